// zg::hessian: forward-over-reverse in expression mode, against analytic Hessians and the tape's.
#include "laws.hpp"

#include <zerograd/drivers/expr_hessian.hpp>
#include <zerograd/forward.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <span>
#include <vector>

TEST_CASE("analytic Hessians") {
    SUBCASE("x^2 y") {
        const auto h = zg::hessian([](auto x, auto y) { return x * x * y; }, 3.0, 2.0);
        CHECK(h == std::array<std::array<double, 2>, 2>{{{4, 6}, {6, 0}}});
    }
    SUBCASE("Rosenbrock") {
        const auto h = zg::hessian(
            [](auto x, auto y) { return square(1 - x) + 100 * square(y - x * x); },
            std::array{-1.2, 1.0});
        CHECK(laws::close(h[0][0], 2 - 400 * (1.0 - 3 * 1.44), 1e-14));
        CHECK(laws::close(h[0][1], -400 * -1.2, 1e-14));
        CHECK(laws::close(h[1][0], -400 * -1.2, 1e-14));
        CHECK(h[1][1] == 200.0);
    }
    SUBCASE("a quadratic form x^T A x has Hessian A + A^T") {
        const auto h = zg::hessian(
            [](auto x, auto y, auto z) {
                return 2 * x * x + 3 * x * y - y * z + 0.5 * z * z + 4 * x * z;
            },
            0.3, -1.1, 2.0);
        const std::array<std::array<double, 3>, 3> expected{{{4, 3, 4}, {3, 0, -1}, {4, -1, 1}}};
        CHECK(h == expected);
    }
    SUBCASE("log-sum-exp, with a let") {
        const std::array<double, 3> x{0.5, -0.2, 1.1};
        const auto h = zg::hessian(
            [](auto a, auto b, auto c) {
                const auto total = zg::let(exp(a) + exp(b) + exp(c));
                return log(total);
            },
            x);
        double total = 0;
        std::array<double, 3> p{};
        for (double xi : x) total += std::exp(xi);
        for (std::size_t i = 0; i < 3; ++i) p[i] = std::exp(x[i]) / total;
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 3; ++j)
                CHECK(laws::close(h[i][j], (i == j ? p[i] : 0.0) - p[i] * p[j], 1e-14));
    }
    SUBCASE("a log-likelihood over captured data, by its mean and scale") {
        // The element function runs on dual numbers while the data stay doubles.
        const std::vector<double> data{0.5, -1.0, 2.0, 0.25};
        const double mu = 0.3, s = 1.7;
        const auto h = zg::hessian(
            [&](auto m, auto sigma) {
                return zg::sum(data, [&](auto y) { return square((y - m) / sigma); });
            },
            mu, s);
        double mm = 0, ms = 0, ss = 0;
        for (double y : data) {
            mm += 2 / (s * s);
            ms += 4 * (y - mu) / (s * s * s);
            ss += 6 * (y - mu) * (y - mu) / (s * s * s * s);
        }
        CHECK(laws::close(h[0][0], mm, 1e-14));
        CHECK(laws::close(h[0][1], ms, 1e-14));
        CHECK(laws::close(h[1][0], ms, 1e-14));
        CHECK(laws::close(h[1][1], ss, 1e-14));
    }
}

TEST_CASE("expression mode and the tape agree on Hessians") {
    const auto f = [](auto x, auto y) { return sin(x * y) + exp(x) / (1 + y * y) + pow(x, 3); };
    const auto h = zg::hessian(f, 0.7, -0.4);
    const auto t = zg::tape::hessian(
        [&](std::span<const zg::tape::basic_var<zg::dual>> v) { return f(v[0], v[1]); },
        std::vector{0.7, -0.4});
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 2; ++j) CHECK(laws::close(h[i][j], t[i][j], 1e-13));
}
