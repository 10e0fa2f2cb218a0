// Vector leaves: the reductions and the standard AD benchmark functions against hand-derived
// gradients, tape mode and finite differences; no allocation after the first call.
#include "allocation_counter.hpp"
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <ranges>
#include <span>
#include <vector>

namespace {

const std::vector<double> x{0.5, -1.25, 2.0, 0.75};

} // namespace

TEST_CASE("reductions of a vector leaf") {
    SUBCASE("sum") {
        const auto [value, grad] = zg::value_and_grad([](auto v) { return zg::sum(v); }, x);
        CHECK(value == 2.0);
        CHECK(std::get<0>(grad) == std::vector<double>(4, 1.0));
    }
    SUBCASE("prod, without and with zeros") {
        const auto g = std::get<0>(zg::grad([](auto v) { return zg::prod(v); }, x));
        CHECK(laws::all_close(
            g, {-1.25 * 2 * 0.75, 0.5 * 2 * 0.75, 0.5 * -1.25 * 0.75, 0.5 * -1.25 * 2}, 1e-15));
        const std::vector<double> one_zero{2.0, 0.0, 3.0}, two_zeros{0.0, 5.0, 0.0};
        CHECK(std::get<0>(zg::grad([](auto v) { return zg::prod(v); }, one_zero)) ==
              std::vector<double>{0.0, 6.0, 0.0});
        CHECK(std::get<0>(zg::grad([](auto v) { return zg::prod(v); }, two_zeros)) ==
              std::vector<double>{0.0, 0.0, 0.0});
    }
    SUBCASE("log_sum_exp is stable for large elements") {
        const std::vector<double> large{1000.0, 1001.0, 999.0};
        const auto [value, grad] =
            zg::value_and_grad([](auto v) { return zg::log_sum_exp(v); }, large);
        const double total = std::exp(-1.0) + 1 + std::exp(-2.0);
        CHECK(laws::close(value, 1001 + std::log(total), 1e-15));
        CHECK(laws::all_close(std::get<0>(grad),
                              {std::exp(-1.0) / total, 1 / total, std::exp(-2.0) / total}, 1e-14));
    }
    SUBCASE("mean, norm, dot") {
        const double n = std::sqrt(0.25 + 1.5625 + 4 + 0.5625);
        const auto g = std::get<0>(
            zg::grad([](auto v) { return zg::mean(v) + zg::norm(v) + zg::dot(v, v); }, x));
        std::vector<double> expected;
        for (double xi : x) expected.push_back(0.25 + xi / n + 2 * xi);
        CHECK(laws::all_close(g, expected, 1e-14));
    }
    SUBCASE("norm neither overflows nor underflows, and its gradient at zero is 0") {
        for (double magnitude : {1e200, 1e-200, 3.0}) {
            CAPTURE(magnitude);
            const std::vector<double> v{magnitude, -2 * magnitude};
            const auto [value, grad] = zg::value_and_grad([](auto u) { return zg::norm(u); }, v);
            CHECK(laws::close(value, std::sqrt(5.0) * magnitude, 1e-15));
            CHECK(laws::all_close(std::get<0>(grad), {1 / std::sqrt(5.0), -2 / std::sqrt(5.0)},
                                  1e-15));
        }
        const std::vector<double> zeros{0.0, 0.0};
        const auto [value, grad] = zg::value_and_grad([](auto u) { return zg::norm(u); }, zeros);
        CHECK(value == 0.0);
        CHECK(std::get<0>(grad) == zeros);
    }
    SUBCASE("sums beside the one that claims the gradient, short and long") {
        // Only the first sum keeps partials; the others are summed on the spot, up to 16
        // elements inline and beyond in a loop of their own.
        for (std::size_t n : {1, 15, 16, 17, 40}) {
            CAPTURE(n);
            std::vector<double> v(n);
            for (std::size_t k = 0; k < n; ++k) v[k] = std::cos(1.3 * double(k));
            double sum = 0, squares = 0;
            for (double vk : v) {
                sum += vk;
                squares += vk * vk;
            }
            const auto [value, grad] = zg::value_and_grad(
                [](auto u) { return zg::sum(u * u) * zg::sum(u) + zg::sum(u); }, v);
            CHECK(laws::close(value, squares * sum + sum, 1e-14));
            std::vector<double> expected;
            for (double vk : v) expected.push_back(2 * vk * sum + squares + 1);
            CHECK(laws::all_close(std::get<0>(grad), expected, 1e-13));
        }
    }
}

TEST_CASE("elementwise expressions with broadcast scalars, and mixed arguments") {
    const auto f = [](auto s, auto v, auto w) { return zg::sum(s * sin(v) + v * w / s) + s; };
    const std::vector<double> w{1.0, 2.0, 3.0, 4.0};
    const auto [value, grad] = zg::value_and_grad(f, 1.5, x, w);
    const auto& [ds, dv, dw] = grad;
    double expected_value = 1.5, expected_ds = 1;
    std::vector<double> expected_dv, expected_dw;
    for (std::size_t i = 0; i < x.size(); ++i) {
        expected_value += 1.5 * std::sin(x[i]) + x[i] * w[i] / 1.5;
        expected_ds += std::sin(x[i]) - x[i] * w[i] / (1.5 * 1.5);
        expected_dv.push_back(1.5 * std::cos(x[i]) + w[i] / 1.5);
        expected_dw.push_back(x[i] / 1.5);
    }
    CHECK(laws::close(value, expected_value, 1e-14));
    CHECK(laws::close(ds, expected_ds, 1e-14));
    CHECK(laws::all_close(dv, expected_dv, 1e-14));
    CHECK(laws::all_close(dw, expected_dw, 1e-14));
    CHECK_THROWS_AS(zg::grad(f, 1.5, x, std::vector<double>{1.0}), zg::shape_error);
    const auto dot = [](auto v, auto u) { return zg::dot(v, u); };
    CHECK_THROWS_WITH_AS(zg::grad(dot, x, std::vector{1.0}),
                         "zg::expr: elementwise * (or zg::dot) of vectors of sizes 4 and 1",
                         zg::shape_error);
}

TEST_CASE("the standard benchmark functions against hand-derived gradients") {
    SUBCASE("normal log-density with fixed mean and scale") {
        const auto f = [](auto y) {
            return zg::sum(y, [](auto e) {
                return -0.5 * square((e + 0.56) / 1.37) - std::log(1.37) -
                       0.5 * std::log(2 * std::numbers::pi);
            });
        };
        const auto g = std::get<0>(zg::grad(f, x));
        std::vector<double> expected;
        for (double yi : x) expected.push_back(-(yi + 0.56) / (1.37 * 1.37));
        CHECK(laws::all_close(g, expected, 1e-14));
    }
    SUBCASE("normal log-likelihood of data, by the mean and the scale") {
        const std::vector<double> data{0.3, -0.2, 1.4, 0.9, -1.1};
        const auto f = [&](auto mu, auto sigma) {
            return zg::sum(data, [&](auto y) { return -0.5 * square((y - mu) / sigma) - log(sigma); });
        };
        const auto g = zg::grad(f, 0.2, 1.3);
        double dmu = 0, dsigma = 0;
        for (double y : data) {
            dmu += (y - 0.2) / (1.3 * 1.3);
            dsigma += (y - 0.2) * (y - 0.2) / (1.3 * 1.3 * 1.3) - 1 / 1.3;
        }
        CHECK(laws::close(g[0], dmu, 1e-14));
        CHECK(laws::close(g[1], dsigma, 1e-14));
        const auto t = zg::tape::grad(f, 0.2, 1.3);
        CHECK(laws::close(g[0], t[0], 1e-13));
        CHECK(laws::close(g[1], t[1], 1e-13));
    }
    SUBCASE("linear regression: y ~ Normal(X w + b, sigma), normal priors on w and b") {
        const std::size_t rows = 6, p = 3;
        std::vector<double> X(rows * p), y(rows);
        for (std::size_t i = 0; i < X.size(); ++i) X[i] = std::sin(1.7 * double(i));
        for (std::size_t r = 0; r < rows; ++r) y[r] = std::cos(0.9 * double(r));
        const auto row = [&](std::size_t r) { return std::span<const double>(X).subspan(r * p, p); };
        const auto f = [&](auto w, auto b, auto sigma) {
            const auto likelihood = zg::sum(y, [&](auto yr, std::size_t r) {
                return -0.5 * square((yr - zg::dot(row(r), w) - b) / sigma) - log(sigma);
            });
            return likelihood - 0.5 * zg::dot(w, w) - 0.5 * b * b;
        };
        const std::vector<double> w{0.4, -0.3, 0.8};
        const auto [value, grad] = zg::value_and_grad(f, w, 0.1, 1.2);
        const auto& [dw, db, dsigma] = grad;
        std::vector<double> expected_dw{-w[0], -w[1], -w[2]};
        double expected_db = -0.1, expected_dsigma = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            double mean = 0.1;
            for (std::size_t j = 0; j < p; ++j) mean += X[r * p + j] * w[j];
            const double residual = (y[r] - mean) / 1.2;
            for (std::size_t j = 0; j < p; ++j) expected_dw[j] += residual / 1.2 * X[r * p + j];
            expected_db += residual / 1.2;
            expected_dsigma += residual * residual / 1.2 - 1 / 1.2;
        }
        CHECK(laws::all_close(dw, expected_dw, 1e-13));
        CHECK(laws::close(db, expected_db, 1e-13));
        CHECK(laws::close(dsigma, expected_dsigma, 1e-13));
        CHECK(std::isfinite(value));
    }
}

TEST_CASE("expression mode and tape mode agree on reductions") {
    const auto f = [](auto s, auto v) {
        return s * zg::sum(v) + zg::prod(v) + zg::log_sum_exp(v) + zg::mean(v) * zg::norm(v) +
               zg::sum(v, [&](auto e) { return sin(e) * s; });
    };
    const auto [value, grad] = zg::value_and_grad(f, 0.7, x);
    const auto [tape_value, tape_grad] = zg::tape::value_and_grad(f, 0.7, x);
    CHECK(laws::close(value, tape_value, 1e-13));
    CHECK(laws::close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
    CHECK(laws::all_close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
}

TEST_CASE("a sum that writes its partials into the gradient, whoever else reaches it") {
    // The first sum built over a vector argument adds its partials into the gradient as it is
    // built; its sweep scales them, and other nodes' adjoints are added at the end. Each case is
    // checked against the same function written as loops in tape mode.
    const std::vector<double> w{1.5, -0.5, 0.25, 2.0};
    using vars = std::span<const zg::var>;
    const auto agree = [&](auto expression_f, auto tape_f) {
        const auto [value, grad] = zg::value_and_grad(expression_f, 0.7, x, w);
        const auto [tape_value, tape_grad] = zg::tape::value_and_grad(tape_f, 0.7, x, w);
        CHECK(laws::close(value, tape_value, 1e-13));
        CHECK(laws::close(std::get<0>(grad), std::get<0>(tape_grad), 1e-13));
        CHECK(laws::all_close(std::get<1>(grad), std::get<1>(tape_grad), 1e-13));
        CHECK(laws::all_close(std::get<2>(grad), std::get<2>(tape_grad), 1e-13));
    };
    const auto sum_of = [](std::size_t n, auto term) {
        zg::var total = 0.0;
        for (std::size_t i = 0; i < n; ++i)
            total += term(i);
        return total;
    };
    SUBCASE("alone, with an adjoint other than 1") {
        agree([](auto s, auto v, auto) { return 3.0 * zg::sum(sin(v) * s) / s; },
              [&](zg::var s, vars v, vars) {
                  return 3.0 * sum_of(v.size(), [&](std::size_t i) { return sin(v[i]) * s; }) / s;
              });
    }
    SUBCASE("used twice") {
        agree(
            [](auto s, auto v, auto) {
                const auto t = zg::sum(v * v * s);
                return t * t;
            },
            [&](zg::var s, vars v, vars) {
                const zg::var t = sum_of(v.size(), [&](std::size_t i) { return v[i] * v[i] * s; });
                return t * t;
            });
    }
    SUBCASE("built before other nodes over the same vectors") {
        agree(
            [](auto s, auto v, auto u) {
                return zg::sum(exp(v) * u) + zg::dot(v, v) * s + zg::prod(u) + zg::log_sum_exp(v);
            },
            [&](zg::var s, vars v, vars u) {
                return sum_of(v.size(), [&](std::size_t i) { return exp(v[i]) * u[i]; }) +
                       zg::dot(v, v) * s + zg::prod(u) + zg::log_sum_exp(v);
            });
    }
    SUBCASE("built after other nodes over the same vectors") {
        agree([](auto s, auto v, auto u) { return zg::prod(v) * s + zg::sum(exp(v) + u); },
              [&](zg::var s, vars v, vars u) {
                  return zg::prod(v) * s +
                         sum_of(v.size(), [&](std::size_t i) { return exp(v[i]) + u[i]; });
              });
    }
    SUBCASE("built but not part of the result") {
        agree(
            [](auto s, auto v, auto u) {
                const auto unused = zg::sum(log(square(v)) * u);
                (void)unused;
                return zg::dot(v, u) * s;
            },
            [](zg::var s, vars v, vars u) { return zg::dot(v, u) * s; });
        // Its partials (infinite at 0 here) leave nothing behind, not even 0 * inf.
        const std::vector<double> with_zero{0.0, 1.0, -2.0, 0.5};
        const auto [value, grad] = zg::value_and_grad(
            [](auto, auto v, auto u) {
                (void)zg::sum(log(square(v)) * u);
                return 2.0;
            },
            0.7, with_zero, w);
        CHECK(value == 2.0);
        CHECK(std::get<1>(grad) == std::vector<double>(4, 0.0));
        CHECK(std::get<2>(grad) == std::vector<double>(4, 0.0));
    }
    SUBCASE("used inside sum(v, fn)") {
        agree(
            [](auto s, auto v, auto u) {
                const auto t = zg::sum(v * u);
                return 0.5 * zg::sum(v, [&](auto e) { return e * t * s; }) + t;
            },
            [&](zg::var s, vars v, vars u) {
                const zg::var t = zg::dot(v, u);
                return 0.5 * sum_of(v.size(), [&](std::size_t i) { return v[i] * t * s; }) + t;
            });
    }
    SUBCASE("bound by let") {
        agree(
            [](auto s, auto v, auto) {
                const auto t = zg::let(zg::sum(square(v) * s));
                return t * t + 2.0 * t;
            },
            [&](zg::var s, vars v, vars) {
                const zg::var t = sum_of(v.size(), [&](std::size_t i) { return square(v[i]) * s; });
                return t * t + 2.0 * t;
            });
    }
}

TEST_CASE("after the first call, only the returned gradient is allocated") {
    const auto f = [](auto s, auto v) {
        return zg::sum(v, [&](auto e) { return square(e - s); }) + zg::log_sum_exp(v * s);
    };
    (void)zg::grad(f, 0.3, x); // warm-up: the scratch arena
    const long before = test::allocation_count();
    for (int i = 0; i < 100; ++i) (void)zg::grad(f, 0.3, x);
    CHECK(test::allocation_count() - before == 100); // one std::vector<double> per call
}

TEST_CASE("slices: sums over neighbours, in both modes") {
    const std::size_t n = x.size();
    const auto expr_pair_sin = [n](auto v) {
        const auto head = zg::slice(v, 0, n - 1), tail = zg::slice(v, 1, n - 1);
        return zg::sum(head * tail + sin(head));
    };
    const auto g = std::get<0>(zg::grad(expr_pair_sin, x));
    std::vector<double> expected(n, 0.0);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        expected[i] += x[i + 1] + std::cos(x[i]);
        expected[i + 1] += x[i];
    }
    CHECK(laws::all_close(g, expected, 1e-15));
    const auto tape_dot = [n](std::span<const zg::var> v) {
        return zg::dot(zg::slice(v, 0, n - 1), zg::slice(v, 1, n - 1));
    };
    const auto expr_dot = [n](auto v) { return zg::dot(zg::slice(v, 0, n - 1), zg::slice(v, 1, n - 1)); };
    CHECK(laws::all_close(std::get<0>(zg::grad(expr_dot, x)),
                          std::get<0>(zg::tape::grad(tape_dot, x)), 1e-15));
    CHECK_THROWS_AS(zg::grad([](auto v) { return zg::sum(zg::slice(v, 2, 5)); }, x),
                    zg::shape_error);
}

TEST_CASE("a zg::grad call inside f leaves the outer call's scratch arena intact") {
    const std::vector<double> data{0.2, -0.4, 1.1};
    const auto inner = [](auto w) { return zg::prod(w) + zg::log_sum_exp(w); };
    // prod(v) keeps its prefix products in the arena before the inner call runs, and the outer
    // log_sum_exp takes arena space after it.
    const auto f = [&](auto v) {
        const auto product = zg::prod(v);
        const double c = zg::value_and_grad(inner, data).value;
        return product * c + zg::log_sum_exp(v);
    };
    double c = data[0] * data[1] * data[2], exp_total = 0, product = 1;
    double data_exp_total = 0;
    for (const double d : data) data_exp_total += std::exp(d);
    c += std::log(data_exp_total);
    for (const double xi : x) {
        product *= xi;
        exp_total += std::exp(xi);
    }
    std::vector<double> expected;
    for (const double xi : x) expected.push_back(c * product / xi + std::exp(xi) / exp_total);
    CHECK(laws::all_close(std::get<0>(zg::grad(f, x)), expected, 1e-14));
}

TEST_CASE("a function that builds sums but returns a number has a zero gradient") {
    // The first sum claims v's gradient and the second writes there too, then neither is used.
    const auto [value, grad] = zg::value_and_grad(
        [](auto v) {
            const auto unused = zg::sum(v) + zg::sum(v * 2.0);
            (void)unused;
            return 1.5;
        },
        x);
    CHECK(value == 1.5);
    CHECK(std::get<0>(grad) == std::vector<double>(x.size(), 0.0));
}

TEST_CASE("sum(v, fn) with fn giving a number: a constant term, as in tape and forward mode") {
    // s * (sum_k 1) + sum_k k v_k^0: ds = n, dv = 0.
    const auto f = [](auto s, auto v) {
        return s * zg::sum(v, [](auto) { return 1.0; }) +
               zg::sum(v, [](auto, std::size_t k) { return double(k); });
    };
    for (const auto& [value, grad] :
         {zg::value_and_grad(f, 2.0, x), zg::tape::value_and_grad(f, 2.0, x),
          zg::fwd::value_and_grad(f, 2.0, x)}) {
        CHECK(value == 2.0 * 4 + (0 + 1 + 2 + 3));
        CHECK(std::get<0>(grad) == 4.0);
        CHECK(std::get<1>(grad) == std::vector<double>(x.size(), 0.0));
    }
}

TEST_CASE("a captured range of doubles times a scalar leaf is a vector expression") {
    // zg::dot(data, data * a + b) and friends, with only scalar leaves, against the tape's loop.
    const std::vector<double> data{0.5, 1.5, -2.0, 3.0};
    const auto g = zg::grad(
        [&](auto a, auto b) {
            return zg::dot(data, data * a + b) + zg::norm(data * a - b) +
                   zg::log_sum_exp(data * a + b * b) + zg::prod(data + a * b) +
                   zg::sum(pow(b - data * a, 2));
        },
        0.7, 1.3);
    const auto t = zg::tape::grad(
        [&](zg::var a, zg::var b) {
            zg::var d = 0.0, n = 0.0, l = 0.0, p = 1.0, s = 0.0;
            for (double x : data) {
                d += x * (x * a + b);
                n += square(x * a - b);
                l += exp(x * a + b * b);
                p *= x + a * b;
                s += pow(b - x * a, 2);
            }
            return d + sqrt(n) + log(l) + p + s;
        },
        0.7, 1.3);
    CHECK(laws::close(g[0], t[0], 1e-13));
    CHECK(laws::close(g[1], t[1], 1e-13));
}

namespace {
/// A helper that makes data of its own and mixes it into the expression.
auto weighted_sum(const auto& v) {
    std::vector<double> w = {1, 2, 3};
    return zg::sum(v * w);
}
std::vector<double> weights() { return {1, 2, 3}; }
} // namespace

TEST_CASE("data local to the lambda, to a helper, or a temporary, is read while it lives") {
    // f = sum(v) * sum(v * w) with w = (1, 2, 3): at (1, 1, 1), df/dv_k = 6 + 3 w_k.
    const std::vector<double> ones{1.0, 1.0, 1.0};
    const std::vector<double> expected{9.0, 12.0, 15.0};
    const auto local = [](auto v) {
        std::vector<double> w = {1, 2, 3};
        return zg::sum(v) * zg::sum(v * w);
    };
    const auto helper = [](auto v) { return zg::sum(v) * weighted_sum(v); };
    const auto temporary = [](auto v) { return zg::sum(v) * zg::sum(v * weights()); };
    CHECK(std::get<0>(zg::grad(local, ones)) == expected);
    CHECK(std::get<0>(zg::grad(helper, ones)) == expected);
    CHECK(std::get<0>(zg::grad(temporary, ones)) == expected);
}
