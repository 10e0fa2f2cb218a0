// zg::scan with a state of several scalars (std::tuple, std::array), over an index range, and
// with steps that take the index: against tape mode, hand-derived adjoints and finite
// differences.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <ranges>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace {

const std::vector<double> y{0.9, -0.2, 1.4, -2.1, 0.6, -0.7, 0.3};

/// A local-level Kalman filter: mean m and variance p of the level, process noise q and
/// observation noise r; the objective sums the filtered means and the log variances.
const auto kalman = [](auto q, auto r) {
    auto [m, p] = zg::scan(
        y, [&](auto y0) { return std::tuple{y0, q + 1.0}; },
        [&](auto previous, auto yt) {
            auto [m_before, p_before] = previous;
            auto predicted = p_before + q; // named, used three times
            auto gain = predicted / (predicted + r);
            return std::tuple{m_before + gain * (yt - m_before), (1 - gain) * predicted};
        });
    return zg::sum(m) + zg::sum(log(p));
};

double kalman_plain(double q, double r) {
    double m = y[0], p = q + 1, total = m + std::log(p);
    for (std::size_t t = 1; t < y.size(); ++t) {
        const double predicted = p + q, gain = predicted / (predicted + r);
        m += gain * (y[t] - m);
        p = (1 - gain) * predicted;
        total += m + std::log(p);
    }
    return total;
}

double central(const auto& f, double x, double h = 1e-6) {
    return (f(x + h) - f(x - h)) / (2 * h);
}

} // namespace

TEST_CASE("zg::scan: a state of several scalars") {
    SUBCASE("a Kalman filter's mean and variance as a std::tuple, by finite differences") {
        const double q = 0.3, r = 0.5;
        const auto [value, grad] = zg::value_and_grad(kalman, q, r);
        CHECK(laws::close(value, kalman_plain(q, r), 1e-14));
        CHECK(laws::close(std::get<0>(grad),
                          central([&](double x) { return kalman_plain(x, r); }, q), 1e-8));
        CHECK(laws::close(std::get<1>(grad),
                          central([&](double x) { return kalman_plain(q, x); }, r), 1e-8));
    }
    SUBCASE("two coupled recurrences as a std::array, against the tape") {
        // (u_t, v_t) = (a u_{t-1} + b v_{t-1} + x_t, a v_{t-1} + b u_{t-1} + x_t): both
        // components have one type, as a std::array's must (else a std::tuple).
        const std::vector<double> x{0.5, -0.3, 0.8, 0.1, -0.6, 0.4};
        const auto [value, grad] = zg::value_and_grad(
            [](auto x, auto a, auto b) {
                auto [u, v] = zg::scan(
                    x, [&](auto x0) { return std::array{x0 * 1.0, x0 * 0.5}; },
                    [&](auto previous, auto xt) {
                        return std::array{a * previous[0] + b * previous[1] + xt,
                                          a * previous[1] + b * previous[0] + xt};
                    });
                return zg::sum(square(u)) + zg::sum(v * x);
            },
            x, 0.6, -0.3);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](std::span<const zg::var> x, zg::var a, zg::var b) {
                zg::var u = x[0] * 1.0, v = x[0] * 0.5, total = square(u) + v * x[0];
                for (std::size_t t = 1; t < x.size(); ++t) {
                    const zg::var next_u = a * u + b * v + x[t];
                    v = a * v + b * u + x[t];
                    u = next_u;
                    total += square(u) + v * x[t];
                }
                return total;
            },
            x, 0.6, -0.3);
        CHECK(laws::close(value, tape_value, 1e-14));
        CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<2>(grad), std::get<2>(tape_grad), 1e-13));
    }
    SUBCASE("a std::pair state, its components by get<K>, a state past the end") {
        const auto f = [](auto a) {
            auto states = zg::scan(
                y, [&](auto y0) { return std::pair{y0 * a, y0}; },
                [&](auto previous, auto yt) {
                    return std::pair{previous.first * a + previous.second, previous.second + yt};
                });
            return zg::sum(get<0>(states)) + zg::sum(states.template get<1>());
        };
        const auto plain = [](double a) {
            double m = y[0] * a, s = y[0], total = m + s;
            for (std::size_t t = 1; t < y.size(); ++t) {
                m = m * a + s;
                s += y[t];
                total += m + s;
            }
            return total;
        };
        const auto [value, grad] = zg::value_and_grad(f, 0.5);
        CHECK(laws::close(value, plain(0.5), 1e-14));
        CHECK(laws::close(std::get<0>(grad), central(plain, 0.5), 1e-8));
        CHECK_THROWS_WITH_AS((void)zg::grad(
                                 [](auto a) {
                                     const auto states = zg::scan(
                                         y, [&](auto y0) { return std::pair{y0 * a, y0}; },
                                         [&](auto previous, auto) { return previous; });
                                     const auto [m, s] = states[y.size()];
                                     return m * s;
                                 },
                                 0.5),
                             "zg::scan: state 7 of 7 states", zg::shape_error);
    }
    SUBCASE("states read as states[t] inside a later sum, and one component left unused") {
        const auto f = [](auto w, auto x) {
            const auto states = zg::scan(
                x, [&](auto x0) { return std::tuple{x0 * w, 0.0 * x0, exp(x0)}; },
                [&](auto previous, auto xt) {
                    const auto& [h, c, unused] = previous;
                    auto next_c = 0.5 * c + tanh(xt * w);
                    return std::tuple{tanh(next_c) * h + xt, next_c, unused * xt};
                });
            const std::size_t n = states.size();
            return zg::sum(std::views::iota(std::size_t{1}, n), [&](std::size_t t) {
                const auto [h, c, unused] = states[t];
                const auto [h_before, c_before, unused_before] = states[t - 1];
                return h * c_before + c * w;
            });
        };
        const std::vector<double> x{0.2, -0.4, 0.9, 0.35, -0.1};
        const auto [value, grad] = zg::value_and_grad(f, 0.8, x);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](zg::var w, std::span<const zg::var> x) {
                std::vector<zg::var> h{x[0] * w}, c{0.0 * x[0]};
                for (std::size_t t = 1; t < x.size(); ++t) {
                    c.push_back(0.5 * c.back() + tanh(x[t] * w));
                    h.push_back(tanh(c.back()) * h.back() + x[t]);
                }
                zg::var total = 0.0;
                for (std::size_t t = 1; t < x.size(); ++t) total += h[t] * c[t - 1] + c[t] * w;
                return total;
            },
            0.8, x);
        CHECK(laws::close(value, tape_value, 1e-14));
        CHECK(laws::close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::all_close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
    }
    SUBCASE("a scan over another scan's component: two stacked cells") {
        const auto cell = [](auto w, auto u) {
            return [=](auto previous, auto input) {
                const auto& [h, c] = previous;
                auto next_c = c * 0.5 + tanh(input * w + h * u);
                return std::tuple{tanh(next_c), next_c};
            };
        };
        const auto start = [](auto input) { return std::tuple{tanh(input), input * 0.0}; };
        const std::vector<double> x{0.3, -0.7, 0.45, 0.1};
        const auto [value, grad] = zg::value_and_grad(
            [&](auto x, auto w, auto u) {
                auto [h0, c0] = zg::scan(x, start, cell(w, u));
                auto [h1, c1] = zg::scan(h0, start, cell(u, w));
                return zg::sum(h1 * h1) + zg::sum(c0);
            },
            x, 0.9, -0.4);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](std::span<const zg::var> x, zg::var w, zg::var u) {
                const auto layer = [](std::vector<zg::var> input, zg::var w, zg::var u,
                                      std::vector<zg::var>& cs) {
                    std::vector<zg::var> hs{tanh(input[0])};
                    cs = {input[0] * 0.0};
                    for (std::size_t t = 1; t < input.size(); ++t) {
                        cs.push_back(cs.back() * 0.5 + tanh(input[t] * w + hs.back() * u));
                        hs.push_back(tanh(cs.back()));
                    }
                    return hs;
                };
                std::vector<zg::var> c0, c1;
                const auto h0 = layer({x.begin(), x.end()}, w, u, c0);
                const auto h1 = layer(h0, u, w, c1);
                zg::var total = 0.0;
                for (std::size_t t = 0; t < x.size(); ++t) total += h1[t] * h1[t] + c0[t];
                return total;
            },
            x, 0.9, -0.4);
        CHECK(laws::close(value, tape_value, 1e-14));
        CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<2>(grad), std::get<2>(tape_grad), 1e-13));
    }
}

TEST_CASE("zg::scan: inside a sum's elements, and in a Jacobian") {
    SUBCASE("a recurrence per group, each in an element of a sum, by hand and finite differences") {
        const auto f = [](auto a) {
            return zg::sum(std::views::iota(0, 3), [&](int g) {
                auto s = zg::scan(
                    y, [&](auto y0) { return y0 * a; },
                    [&](auto previous, auto yt) { return previous * a + yt * double(g); });
                return zg::sum(s);
            });
        };
        const auto plain = [](double a) {
            double total = 0;
            for (int g = 0; g < 3; ++g) {
                double s = y[0] * a;
                total += s;
                for (std::size_t t = 1; t < y.size(); ++t) total += s = s * a + y[t] * g;
            }
            return total;
        };
        const auto [value, grad] = zg::value_and_grad(f, 0.5);
        CHECK(laws::close(value, plain(0.5), 1e-14));
        CHECK(laws::close(std::get<0>(grad), central(plain, 0.5), 1e-8));
    }
    SUBCASE("two outputs of a tuple state's scan, by finite differences") {
        const auto outputs = [](auto a, auto b) {
            auto [p, q] = zg::scan(
                y, [&](auto y0) { return std::tuple{y0 * a, y0 * b}; },
                [&](auto previous, auto yt) {
                    const auto& [p_before, q_before] = previous;
                    return std::tuple{p_before * a + q_before, q_before * b + yt};
                });
            return std::array{zg::sum(p), zg::sum(q)};
        };
        const auto plain = [](double a, double b) {
            double p = y[0] * a, q = y[0] * b;
            std::array<double, 2> sums{p, q};
            for (std::size_t t = 1; t < y.size(); ++t) {
                const double p_next = p * a + q;
                q = q * b + y[t];
                p = p_next;
                sums[0] += p;
                sums[1] += q;
            }
            return sums;
        };
        const auto jacobian = zg::jacobian(outputs, 0.5, 0.3);
        for (std::size_t row = 0; row < 2; ++row) {
            CAPTURE(row);
            CHECK(laws::close(jacobian[row][0],
                              central([&](double a) { return plain(a, 0.3)[row]; }, 0.5), 1e-8));
            CHECK(laws::close(jacobian[row][1],
                              central([&](double b) { return plain(0.5, b)[row]; }, 0.3), 1e-8));
        }
    }
}

TEST_CASE("zg::scan: over an index range, and steps that take the index") {
    SUBCASE("a recurrence over std::views::iota, by hand") {
        // s_0 = a, s_t = a s_{t-1} + t: sum_t s_t, a polynomial in a.
        const auto f = [](auto a) {
            auto s = zg::scan(
                std::views::iota(0, 5), [&](int) { return a; },
                [&](auto previous, int t) { return previous * a + double(t); });
            return zg::sum(s);
        };
        const auto plain = [](double a) {
            double s = a, total = a;
            for (int t = 1; t < 5; ++t) total += s = s * a + t;
            return total;
        };
        const auto [value, grad] = zg::value_and_grad(f, 0.7);
        CHECK(laws::close(value, plain(0.7), 1e-15));
        // d/da of a + (a^2+1) + (a^3+a+2) + (a^4+a^2+2a+3) + (a^5+a^3+2a^2+3a+4)
        const double a = 0.7, by_hand = 1 + 2 * a + (3 * a * a + 1) + (4 * a * a * a + 2 * a + 2) +
                                        (5 * std::pow(a, 4) + 3 * a * a + 4 * a + 3);
        CHECK(laws::close(std::get<0>(grad), by_hand, 1e-14));
    }
    SUBCASE("an index range's steps read a vector's elements, with a tuple state") {
        // A running mean and second moment of w * x over the indices.
        const std::vector<double> x{1.5, -0.5, 2.0, 0.25};
        const auto f = [](auto w, auto x) {
            auto [mean, moment] = zg::scan(
                std::views::iota(std::size_t{0}, zg::size(x)),
                [&](std::size_t) { return std::tuple{w * x[0], square(w * x[0])}; },
                [&](auto previous, std::size_t t) {
                    const auto [m, s] = previous;
                    const double weight = 1.0 / double(t + 1);
                    auto xt = w * x[t];
                    return std::tuple{m + weight * (xt - m), s + weight * (square(xt) - s)};
                });
            return zg::sum(zg::slice(moment, 3, 1)) - square(zg::sum(zg::slice(mean, 3, 1)));
        };
        const auto [value, grad] = zg::value_and_grad(f, 0.8, x);
        // The variance of w x is w^2 var(x); by w: 2 w var(x).
        double mean = 0, moment = 0;
        for (double xt : x) mean += xt / 4, moment += xt * xt / 4;
        CHECK(laws::close(value, 0.64 * (moment - mean * mean), 1e-14));
        CHECK(laws::close(std::get<0>(grad), 1.6 * (moment - mean * mean), 1e-14));
        std::vector<double> by_x(4);
        for (std::size_t t = 0; t < 4; ++t) by_x[t] = 0.64 * 2 * (x[t] - mean) / 4;
        CHECK(laws::all_close(std::get<1>(grad), by_x, 1e-13));
    }
    SUBCASE("a step over a vector that takes the index t as a third argument") {
        // s_t = s_{t-1} * decay^t + x_t: the step reads t to weight its input.
        const std::vector<double> x{0.4, 0.1, -0.3, 0.8, 0.6};
        const auto [value, grad] = zg::value_and_grad(
            [](auto x, auto decay) {
                return zg::sum(zg::scan(x, [&](auto previous, auto xt, std::size_t t) {
                    return previous * pow(decay, double(t)) + xt;
                }));
            },
            x, 0.9);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](std::span<const zg::var> x, zg::var decay) {
                zg::var s = x[0], total = x[0];
                for (std::size_t t = 1; t < x.size(); ++t)
                    total += s = s * pow(decay, double(t)) + x[t];
                return total;
            },
            x, 0.9);
        CHECK(laws::close(value, tape_value, 1e-14));
        CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
    }
    SUBCASE("an empty range is an error that names the call; the next call works") {
        const auto f = [](auto a, int n) {
            return zg::sum(zg::scan(
                std::views::iota(0, n), [&](int) { return a; },
                [&](auto previous, int) { return previous * a; }));
        };
        CHECK_THROWS_AS((void)zg::grad([&](auto a) { return f(a, 0); }, 0.5), zg::shape_error);
        CHECK_THROWS_WITH_AS((void)zg::grad([&](auto a) { return f(a, -1); }, 0.5),
                             doctest::Contains("zg::scan(range, first, step)"), zg::error);
        const auto [value, grad] = zg::value_and_grad([&](auto a) { return f(a, 3); }, 0.5);
        CHECK(laws::close(value, 0.5 + 0.25 + 0.125, 1e-15));
        CHECK(laws::close(std::get<0>(grad), 1 + 2 * 0.5 + 3 * 0.25, 1e-15));
    }
}
