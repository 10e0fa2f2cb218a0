// zg::scan: recurrences in expression mode, and the stochastic-volatility model written with one,
// against a hand-derived adjoint, tape mode and central finite differences.
#include "allocation_counter.hpp"
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <ranges>
#include <span>
#include <tuple>
#include <vector>

namespace {

const std::vector<double> z{0.3, -1.1, 0.8, 1.7, -0.4, 0.05};
const std::vector<double> y{0.9, -0.2, 1.4, -2.1, 0.6, -0.7};
const std::vector<double> y_squared = [] {
    std::vector<double> squares;
    for (double yt : y) squares.push_back(yt * yt);
    return squares;
}();
const double log_two_pi = std::log(2 * std::numbers::pi);

/// The stochastic-volatility log density (Stan's benchmark model): h = sigma * h_std,
/// h_0 /= sqrt(1 - phi^2), h += mu, h_t += phi (h_{t-1} - mu), y ~ Normal(0, exp(h / 2)),
/// with priors h_std ~ Normal(0, 1), sigma ~ Cauchy(0, 5), mu ~ Cauchy(0, 10), phi ~ U(-1, 1).
const auto stochastic_volatility = [](auto mu, auto phi, auto sigma, auto h_std) {
    const double n = static_cast<double>(zg::size(h_std));
    auto d = zg::scan(sigma * h_std, [&](auto d0) { return d0 / sqrt(1 - square(phi)); },
                      [&](auto previous, auto dt) { return dt + phi * previous; });
    auto h = d + mu; // d = h - mu, the AR(1) deviation
    return -0.5 * zg::sum(h + y_squared * exp(-h)) - 0.5 * zg::sum(square(h_std)) -
           log1p(square(sigma / 5)) - log1p(square(mu / 10)) - n * log_two_pi;
};

/// The same model on the tape, written as the loop it is.
zg::var stochastic_volatility_loop(zg::var mu, zg::var phi, zg::var sigma,
                                   std::span<const zg::var> h_std) {
    const double n = static_cast<double>(h_std.size());
    zg::var total = -log1p(square(sigma / 5)) - log1p(square(mu / 10)) - n * log_two_pi;
    zg::var d = sigma * h_std[0] / sqrt(1 - square(phi));
    for (std::size_t t = 0; t < h_std.size(); ++t) {
        if (t > 0) d = sigma * h_std[t] + phi * d;
        const zg::var h = d + mu;
        total += -0.5 * h - 0.5 * y_squared[t] * exp(-h) - 0.5 * square(h_std[t]);
    }
    return total;
}

struct sv_gradient {
    double value, mu, phi, sigma;
    std::vector<double> h_std;
};

/// The hand-derived adjoint of the model.
sv_gradient stochastic_volatility_by_hand(double mu, double phi, double sigma,
                                          const std::vector<double>& h_std) {
    const std::size_t n = h_std.size();
    const double s = std::sqrt(1 - phi * phi);
    std::vector<double> d(n);
    sv_gradient g{0, 0, 0, 0, std::vector<double>(n)};
    g.value = -std::log1p(sigma * sigma / 25) - std::log1p(mu * mu / 100) - n * log_two_pi;
    for (std::size_t t = 0; t < n; ++t) {
        d[t] = t == 0 ? sigma * h_std[0] / s : sigma * h_std[t] + phi * d[t - 1];
        const double h = d[t] + mu;
        g.value += -0.5 * h - 0.5 * y[t] * y[t] * std::exp(-h) - 0.5 * h_std[t] * h_std[t];
    }
    g.mu = -(mu / 50) / (1 + mu * mu / 100);
    g.sigma = -(2 * sigma / 25) / (1 + sigma * sigma / 25);
    double a = 0; // adjoint of d_t, swept backwards
    for (std::size_t t = n; t-- > 0;) {
        const double h = d[t] + mu;
        const double dh = -0.5 + 0.5 * y[t] * y[t] * std::exp(-h);
        g.mu += dh;
        a = dh + phi * a;
        g.h_std[t] = -h_std[t];
        if (t > 0) {
            g.phi += a * d[t - 1];
            g.sigma += a * h_std[t];
            g.h_std[t] += a * sigma;
        } else {
            g.phi += a * sigma * h_std[0] * phi / (s * s * s);
            g.sigma += a * h_std[0] / s;
            g.h_std[0] += a * sigma / s;
        }
    }
    return g;
}

} // namespace

TEST_CASE("zg::scan") {
    SUBCASE("a running sum is a cumulative sum; its gradient counts the later terms") {
        // sum_t s_t with s_t = s_{t-1} + x_t: x_k appears in n - k states.
        const auto [value, grad] = zg::value_and_grad(
            [](auto x) {
                return zg::sum(zg::scan(x, [](auto previous, auto xt) { return previous + xt; }));
            },
            z);
        CHECK(laws::close(value, 6 * 0.3 + 5 * -1.1 + 4 * 0.8 + 3 * 1.7 + 2 * -0.4 + 0.05, 1e-14));
        CHECK(std::get<0>(grad) == std::vector<double>{6, 5, 4, 3, 2, 1});
    }
    SUBCASE("an exponential moving average of data, differentiated by its weight") {
        // s_0 = y_0, s_t = w s_{t-1} + (1 - w) y_t; f = s_{n-1}.
        const auto f = [](auto w) {
            auto s = zg::scan(y, [&](auto previous, auto yt) { return w * previous + (1 - w) * yt; });
            return zg::sum(zg::slice(s, y.size() - 1, 1));
        };
        const auto plain = [](double w) {
            double s = y[0];
            for (std::size_t t = 1; t < y.size(); ++t) s = w * s + (1 - w) * y[t];
            return s;
        };
        const double w = 0.7, h = 1e-6;
        const auto [value, grad] = zg::value_and_grad(f, w);
        CHECK(laws::close(value, plain(w), 1e-15));
        CHECK(laws::close(grad[0], (plain(w + h) - plain(w - h)) / (2 * h), 1e-8));
    }
    SUBCASE("a state used twice, and a slice of the states") {
        const auto f = [](auto x) {
            auto s = zg::scan(x, [](auto previous, auto xt) { return 0.5 * previous * xt; });
            return zg::sum(s * s) + zg::sum(zg::slice(s, 1, 2));
        };
        const auto g = std::get<0>(zg::grad(f, z));
        const auto t = std::get<0>(zg::tape::grad(
            [](std::span<const zg::var> x) {
                std::vector<zg::var> s{x[0]};
                for (std::size_t k = 1; k < x.size(); ++k) s.push_back(0.5 * s.back() * x[k]);
                zg::var total = 0.0;
                for (const zg::var& sk : s) total += sk * sk;
                return total + s[1] + s[2];
            },
            z));
        CHECK(laws::all_close(g, t, 1e-13));
    }
    SUBCASE("sums over the states: scaled, with the input beside the states, one left out") {
        // Each sum keeps its partials by the states until its sweep; the one left out of the
        // result must leave nothing behind.
        const auto f = [](auto x, auto w) {
            auto s = zg::scan(x, [&](auto previous, auto xt) { return w * previous + xt * xt; });
            const auto unused = zg::sum(exp(s));
            (void)unused;
            return 3 * zg::sum(s * x + s * s) - 0.5 * zg::sum(sin(s)) * w;
        };
        const auto [value, grad] = zg::value_and_grad(f, z, 0.7);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](std::span<const zg::var> x, zg::var w) {
                std::vector<zg::var> s{x[0]}; // s_0 = x_0: scan with no first step
                for (std::size_t k = 1; k < x.size(); ++k)
                    s.push_back(w * s.back() + x[k] * x[k]);
                zg::var products = 0.0, sines = 0.0;
                for (std::size_t k = 0; k < x.size(); ++k) {
                    products += s[k] * x[k] + s[k] * s[k];
                    sines += sin(s[k]);
                }
                return 3 * products - 0.5 * sines * w;
            },
            z, 0.7);
        CHECK(laws::close(value, tape_value, 1e-13));
        CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
    }
    SUBCASE("a leaf in the input and in the steps receives both adjoints") {
        const auto [value, grad] = zg::value_and_grad(
            [](auto x, auto w) {
                auto s = zg::scan(
                    w * x, [&](auto s0) { return s0 * w; },
                    [&](auto previous, auto xt) { return w * previous + xt; });
                return zg::sum(sin(s));
            },
            z, 0.7);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](std::span<const zg::var> x, zg::var w) {
                std::vector<zg::var> s{w * x[0] * w};
                for (std::size_t k = 1; k < x.size(); ++k)
                    s.push_back(w * s.back() + w * x[k]);
                zg::var total = 0.0;
                for (const zg::var& sk : s)
                    total += sin(sk);
                return total;
            },
            z, 0.7);
        CHECK(laws::close(value, tape_value, 1e-13));
        CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
    }
    SUBCASE("recurrences of every length, odd and even, against the tape") {
        // The backward sweep takes two steps at a time, and the second sum's sweep finds the
        // adjoints of the first half zero: lengths 1 to 35 cover the step left over from an odd
        // length and a look for zero adjoints across blocks.
        for (std::size_t n = 1; n <= 35; ++n) {
            CAPTURE(n);
            std::vector<double> x(n);
            for (std::size_t k = 0; k < n; ++k) x[k] = std::sin(0.7 * double(k) + 0.3);
            const auto [value, grad] = zg::value_and_grad(
                [](auto x, auto w) {
                    auto s = zg::scan(
                        w * x, [&](auto s0) { return s0 * w; },
                        [&](auto previous, auto xt) { return w * sin(previous) + xt; });
                    const std::size_t half = zg::size(s) / 2;
                    return zg::sum(s * s) + zg::sum(zg::slice(s, half, zg::size(s) - half));
                },
                x, 0.7);
            const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
                [](std::span<const zg::var> x, zg::var w) {
                    std::vector<zg::var> s{w * x[0] * w};
                    for (std::size_t k = 1; k < x.size(); ++k)
                        s.push_back(w * sin(s.back()) + w * x[k]);
                    zg::var total = 0.0;
                    for (const zg::var& sk : s) total += sk * sk;
                    for (std::size_t k = s.size() / 2; k < s.size(); ++k) total += s[k];
                    return total;
                },
                x, 0.7);
            CHECK(laws::close(value, tape_value, 1e-13));
            CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
            CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
        }
    }
    SUBCASE("the stochastic-volatility model: by hand, on the tape, by finite differences") {
        const double mu = -0.4, phi = 0.85, sigma = 0.6;
        const auto expected = stochastic_volatility_by_hand(mu, phi, sigma, z);
        const auto [value, grad] = zg::value_and_grad(stochastic_volatility, mu, phi, sigma, z);
        const auto& [g_mu, g_phi, g_sigma, g_h_std] = grad;
        CHECK(laws::close(value, expected.value, 1e-14));
        CHECK(laws::close(g_mu, expected.mu, 1e-13));
        CHECK(laws::close(g_phi, expected.phi, 1e-13));
        CHECK(laws::close(g_sigma, expected.sigma, 1e-13));
        CHECK(laws::all_close(g_h_std, expected.h_std, 1e-13));

        const auto [tape_value, tape_grad] =
            zg::tape::value_and_grad(stochastic_volatility_loop, mu, phi, sigma, z);
        CHECK(laws::close(tape_value, value, 1e-13));
        CHECK(laws::close(std::get<0>(tape_grad), g_mu, 1e-13));
        CHECK(laws::close(std::get<1>(tape_grad), g_phi, 1e-13));
        CHECK(laws::close(std::get<2>(tape_grad), g_sigma, 1e-13));
        CHECK(laws::all_close(std::get<3>(tape_grad), g_h_std, 1e-13));

        const double h = 1e-6;
        const auto at = [&](double m, double p, double s) {
            return zg::value_and_grad(stochastic_volatility, m, p, s, z).value;
        };
        CHECK(laws::close(g_mu, (at(mu + h, phi, sigma) - at(mu - h, phi, sigma)) / (2 * h), 1e-7));
        CHECK(laws::close(g_phi, (at(mu, phi + h, sigma) - at(mu, phi - h, sigma)) / (2 * h), 1e-7));
        CHECK(laws::close(g_sigma, (at(mu, phi, sigma + h) - at(mu, phi, sigma - h)) / (2 * h),
                          1e-7));
    }
    SUBCASE("a function summed over the states, and states indexed inside one") {
        const auto f = [](auto x, auto w) {
            auto s = zg::scan(x, [&](auto previous, auto xt) { return w * previous + xt; });
            const std::size_t n = zg::size(s);
            return zg::sum(s, [&](auto st) { return st * st * w; }) +
                   zg::sum(std::views::iota(std::size_t{1}, n),
                           [&](std::size_t k) { return s[k] * s[k - 1]; });
        };
        const auto [value, grad] = zg::value_and_grad(f, z, 0.7);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](std::span<const zg::var> x, zg::var w) {
                std::vector<zg::var> s{x[0]};
                for (std::size_t k = 1; k < x.size(); ++k) s.push_back(w * s.back() + x[k]);
                zg::var total = 0.0;
                for (std::size_t k = 0; k < s.size(); ++k) total += s[k] * s[k] * w;
                for (std::size_t k = 1; k < s.size(); ++k) total += s[k] * s[k - 1];
                return total;
            },
            z, 0.7);
        CHECK(laws::close(value, tape_value, 1e-13));
        CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
    }
    SUBCASE("steps that name an intermediate, or use one named outside, against the tape") {
        // Named intermediates used twice are kept as shared nodes: the steps are kept as trees.
        const auto f = [](auto x, auto w) {
            const auto damping = exp(-w) * w; // named outside the steps, used by every step
            auto s = zg::scan(
                x, [&](auto s0) { return s0 * damping; },
                [&](auto previous, auto xt) {
                    const auto t = w * previous + xt * damping;
                    return 0.1 * t * t + t;
                });
            return zg::sum(s * s) + damping;
        };
        const auto [value, grad] = zg::value_and_grad(f, z, 0.7);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(
            [](std::span<const zg::var> x, zg::var w) {
                const zg::var damping = exp(-w) * w;
                std::vector<zg::var> s{x[0] * damping};
                for (std::size_t k = 1; k < x.size(); ++k) {
                    const zg::var t = w * s.back() + x[k] * damping;
                    s.push_back(0.1 * t * t + t);
                }
                zg::var total = damping;
                for (const zg::var& sk : s) total += sk * sk;
                return total;
            },
            z, 0.7);
        CHECK(laws::close(value, tape_value, 1e-13));
        CHECK(laws::all_close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
    }
    SUBCASE("no allocation after the first call beyond the returned gradient") {
        const auto call = [] {
            return zg::value_and_grad(stochastic_volatility, -0.4, 0.85, 0.6, z).value;
        };
        call();
        const long before = test::allocation_count();
        for (int i = 0; i < 10; ++i) call();
        CHECK(test::allocation_count() - before == 10); // the std::vector in each gradient
    }
}
