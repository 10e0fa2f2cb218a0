// zg::jacobian in expression mode: a lambda returning several scalar expressions, evaluated once.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <tuple>
#include <vector>

TEST_CASE("the Jacobian of a polar-to-unit map, rows sharing their work") {
    const auto unit = [](auto x, auto y) {
        const auto r = sqrt(x * x + y * y); // shared by both rows
        return std::array{x / r, y / r};
    };
    const auto J = zg::jacobian(unit, 3.0, 4.0);
    // d(x/r)/dx = y^2/r^3, d(x/r)/dy = -xy/r^3, d(y/r)/dx = -xy/r^3, d(y/r)/dy = x^2/r^3
    CHECK(laws::close(J[0][0], 16.0 / 125, 1e-15));
    CHECK(laws::close(J[0][1], -12.0 / 125, 1e-15));
    CHECK(laws::close(J[1][0], -12.0 / 125, 1e-15));
    CHECK(laws::close(J[1][1], 9.0 / 125, 1e-15));
    const auto spread = zg::jacobian(unit, std::array{3.0, 4.0});
    CHECK(spread == J);
}

TEST_CASE("rows of different shapes as a std::tuple, and a number among them") {
    const auto f = [](auto a, auto b) { return std::tuple{a * b, sin(a) + b, 2.0}; };
    const auto J = zg::jacobian(f, 0.5, -1.5);
    CHECK(J[0] == std::array{-1.5, 0.5});
    CHECK(J[1] == std::array{std::cos(0.5), 1.0});
    CHECK(J[2] == std::array{0.0, 0.0});
}

TEST_CASE("expression mode's Jacobian agrees with the tape's") {
    const auto f = [](auto a, auto b, auto c) {
        const auto s = exp(a * b) / (1.0 + c * c);
        return std::tuple{s * c, s + a, log1p(s * s)};
    };
    const auto J = zg::jacobian(f, 0.3, -0.8, 1.2);
    const auto T = zg::tape::jacobian(
        [&](std::span<const zg::var> v) {
            return std::apply([](auto... r) { return std::vector<zg::var>{r...}; },
                              f(v[0], v[1], v[2]));
        },
        std::vector{0.3, -0.8, 1.2});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            CHECK(laws::close(J[i][j], T[i][j], 1e-14));
}
