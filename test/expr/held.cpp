// Long formulas: operations past a register's worth of tree hold their operand once in the call
// instead of copying it, in every order a user writes them, at the top level, inside element
// functions, on dual numbers and in constant evaluation.
#include "laws.hpp"

#include <zerograd/expr.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

namespace {

// sin(x * 1) + sin(x * 2) + ... + sin(x * N), nested to the left as written left to right.
template <std::size_t N>
constexpr auto sine_sum = [](auto x) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return (... + sin(x * double(K + 1)));
    }(std::make_index_sequence<N>{});
};

const auto rosenbrock10 = [](auto x0, auto x1, auto x2, auto x3, auto x4, auto x5, auto x6, auto x7,
                             auto x8, auto x9) {
    return 100 * pow(x1 - x0 * x0, 2) + pow(1 - x0, 2) + 100 * pow(x2 - x1 * x1, 2) +
           pow(1 - x1, 2) + 100 * pow(x3 - x2 * x2, 2) + pow(1 - x2, 2) +
           100 * pow(x4 - x3 * x3, 2) + pow(1 - x3, 2) + 100 * pow(x5 - x4 * x4, 2) +
           pow(1 - x4, 2) + 100 * pow(x6 - x5 * x5, 2) + pow(1 - x5, 2) +
           100 * pow(x7 - x6 * x6, 2) + pow(1 - x6, 2) + 100 * pow(x8 - x7 * x7, 2) +
           pow(1 - x7, 2) + 100 * pow(x9 - x8 * x8, 2) + pow(1 - x8, 2);
};

std::array<double, 10> rosenbrock10_gradient(const std::array<double, 10>& x) {
    std::array<double, 10> g{};
    for (std::size_t i = 0; i < 9; ++i) {
        const double d = x[i + 1] - x[i] * x[i];
        g[i] += -400 * d * x[i] - 2 * (1 - x[i]);
        g[i + 1] += 200 * d;
    }
    return g;
}

} // namespace

TEST_CASE("a 10-variable formula written as one expression") {
    const std::array x{0.1, 0.3, -0.2, 0.7, 0.4, -0.5, 0.9, 0.2, 1.1, -0.3};
    const auto expected = rosenbrock10_gradient(x);
    const auto by_scalars = zg::grad(rosenbrock10, x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7],
                                     x[8], x[9]);
    const auto by_array = zg::grad(rosenbrock10, x);
    for (std::size_t i = 0; i < 10; ++i) {
        CHECK(laws::close(by_scalars[i], expected[i], 1e-14));
        CHECK(laws::close(by_array[i], expected[i], 1e-14));
    }
}

TEST_CASE("a left-nested sum of 60 terms: value, gradient and second derivative") {
    const double x = 0.37;
    double value = 0, slope = 0, curvature = 0;
    for (int k = 1; k <= 60; ++k) {
        value += std::sin(k * x);
        slope += k * std::cos(k * x);
        curvature -= k * k * std::sin(k * x);
    }
    const auto [v, g] = zg::value_and_grad(sine_sum<60>, x);
    CHECK(laws::close(v, value, 1e-13));
    CHECK(laws::close(g[0], slope, 1e-13));
    CHECK(laws::close(zg::hessian(sine_sum<60>, x)[0][0], curvature, 1e-12));
}

TEST_CASE("long formulas in constant evaluation") {
    // d/dx of x*1 + x*2 + ... + x*40 squared terms: sum of 2 k^2 x.
    constexpr auto squares = [](auto x) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
            return (... + square(x * double(K + 1)));
        }(std::make_index_sequence<40>{});
    };
    constexpr double slope = zg::grad(squares, 0.5)[0];
    static_assert(slope == 2 * 0.5 * (40.0 * 41 * 81 / 6));
    CHECK(slope == 22140.0);
}

TEST_CASE("long formulas inside an element function, with parts that depend on no element") {
    const std::vector<double> data{0.5, -1.25, 2.0, 0.75};
    // An element's tree holds a large part of the scalar arguments alone (hoisted out of the
    // loop, then swept after the element's memory is gone) and a large part of the element.
    const auto f = [&](auto a, auto b) {
        return zg::sum(zg::range(data.size()), [&](std::size_t i) {
            const double t = data[i];
            const auto invariant = sin(a) + cos(b) + a * b + exp(a - b) + sin(a * b) + cos(a + b) +
                                   a * a * b + sqrt(a * a + b * b + 1.0) + sin(a - b) * cos(a) +
                                   exp(a * b) * sin(b);
            const auto own = sin(a * t) + cos(b * t) + a * t * t + exp(b * t) + sin(a + t) +
                             cos(b - t) + a * b * t + square(a * t - b) + sin(a * b * t) +
                             cos(a - b * t) * t;
            return invariant * t + own;
        });
    };
    const auto value_at = [&](double a, double b) {
        double total = 0;
        for (const double t : data) {
            const double invariant = std::sin(a) + std::cos(b) + a * b + std::exp(a - b) +
                                     std::sin(a * b) + std::cos(a + b) + a * a * b +
                                     std::sqrt(a * a + b * b + 1.0) + std::sin(a - b) * std::cos(a) +
                                     std::exp(a * b) * std::sin(b);
            const double own = std::sin(a * t) + std::cos(b * t) + a * t * t + std::exp(b * t) +
                               std::sin(a + t) + std::cos(b - t) + a * b * t +
                               (a * t - b) * (a * t - b) + std::sin(a * b * t) +
                               std::cos(a - b * t) * t;
            total += invariant * t + own;
        }
        return total;
    };
    const double a = 0.3, b = -0.6, h = 1e-6;
    const auto [v, g] = zg::value_and_grad(f, a, b);
    CHECK(laws::close(v, value_at(a, b), 1e-14));
    CHECK(laws::close(g[0], (value_at(a + h, b) - value_at(a - h, b)) / (2 * h), 1e-8));
    CHECK(laws::close(g[1], (value_at(a, b + h) - value_at(a, b - h)) / (2 * h), 1e-8));
}

TEST_CASE("a long formula named once and used twice is shared, not held twice") {
    const auto f = [](auto x, auto y) {
        const auto s = sine_sum<20>(x) + y * y;
        return s * s + s;
    };
    const double x = 0.4, y = 1.5;
    double s = y * y, ds = 0;
    for (int k = 1; k <= 20; ++k) {
        s += std::sin(k * x);
        ds += k * std::cos(k * x);
    }
    const auto g = zg::grad(f, x, y);
    CHECK(laws::close(g[0], (2 * s + 1) * ds, 1e-13));
    CHECK(laws::close(g[1], (2 * s + 1) * 2 * y, 1e-13));
}

TEST_CASE("strong zeros and Jacobians through held trees") {
    // relu(y) * (a long formula whose partial is infinite at x = 0): the zero partial wins.
    const auto f = [](auto x, auto y) { return relu(y) * (sine_sum<12>(x) + sqrt(x)); };
    CHECK(zg::grad(f, 0.0, -1.0) == std::array{0.0, 0.0});
    const auto two = [](auto x, auto y) {
        return std::tuple{sine_sum<12>(x) * y, sine_sum<12>(y) + x};
    };
    const auto j = zg::jacobian(two, 0.2, 0.9);
    double s = 0, ds = 0;
    for (int k = 1; k <= 12; ++k) {
        s += std::sin(k * 0.2);
        ds += k * std::cos(k * 0.2);
    }
    CHECK(laws::close(j[0][0], ds * 0.9, 1e-13));
    CHECK(laws::close(j[0][1], s, 1e-13));
    CHECK(j[1][0] == 1.0);
}
