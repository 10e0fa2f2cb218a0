// zg::grad and zg::value_and_grad: argument and result shapes, and no heap allocation.
#include "allocation_counter.hpp"

#include <zerograd/expr.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>

TEST_CASE("numbers give std::array, value_and_grad gives value and grad") {
    const auto f = [](auto x, auto y) { return x * y + sin(x); };
    const std::array<double, 2> g = zg::grad(f, 2.0, 3.0);
    CHECK(g[0] == 3.0 + std::cos(2.0));
    CHECK(g[1] == 2.0);
    const auto [v, g2] = zg::value_and_grad(f, 2.0, 3.0);
    static_assert(std::is_same_v<decltype(v), const double>);
    CHECK(v == 6.0 + std::sin(2.0));
    CHECK(g2 == g);
    CHECK(zg::grad(f, 2, 3) == g);
}

TEST_CASE("a single std::array is spread into leaves") {
    const auto rosenbrock = [](auto x, auto y) { return square(1 - x) + 100 * square(y - x * x); };
    const std::array<double, 2> g = zg::grad(rosenbrock, std::array{-1.2, 1.0});
    CHECK(g[0] == doctest::Approx(-215.6).epsilon(1e-14));
    CHECK(g[1] == doctest::Approx(-88.0).epsilon(1e-14));
}

TEST_CASE("a function that ignores its inputs has zero gradient") {
    const auto [v, g] = zg::value_and_grad([](auto) { return 4.0; }, 1.0);
    CHECK(v == 4.0);
    CHECK(g[0] == 0.0);
}

TEST_CASE("no heap allocation for numbers and std::array") {
    const long before = test::allocation_count();
    double total = 0;
    for (int i = 0; i < 1000; ++i) {
        total += zg::grad([](auto x, auto y) { return exp(x * y) / (1 + square(y)); }, 0.1 * i,
                          0.5)[0];
        total += zg::grad([](auto a, auto b, auto c) {
            const auto s = zg::let(a * b + c);
            return s * s + tanh(s);
        }, std::array{0.5, -1.0, 0.25})[2];
    }
    CHECK(test::allocation_count() == before);
    CHECK(std::isfinite(total));
}

TEST_CASE("the expression a lambda builds can be kept and swept later") {
    const auto e = zg::expr::build([](auto a, auto b) { return a * b + b; }, 2.0, -3.0);
    CHECK(e.value() == -9.0);
    std::array<double, 2> gradient{};
    zg::expr::sweep(e, gradient);
    CHECK(gradient == std::array{-3.0, 3.0});
}
