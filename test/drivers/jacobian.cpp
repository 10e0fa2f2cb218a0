// Jacobians: square, wide and tall against analytic ones, in both directions, and zg::jacobian's
// choice of direction (forward when n <= m, else reverse).
#include <zerograd/forward.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <type_traits>
#include <vector>

namespace {

using matrix = std::vector<std::vector<double>>;

void check_close(const matrix& actual, const matrix& expected) {
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        REQUIRE(actual[i].size() == expected[i].size());
        for (std::size_t j = 0; j < expected[i].size(); ++j) {
            INFO("J[", i, "][", j, "]");
            CHECK(actual[i][j] == doctest::Approx(expected[i][j]).epsilon(1e-14));
        }
    }
}

/// Counts how often f is called on each scalar type: which direction ran.
struct counted {
    int forward_calls = 0, reverse_calls = 0;
    template <class T>
    void count() {
        if constexpr (std::is_same_v<T, zg::dual>)
            ++forward_calls;
        else
            ++reverse_calls;
    }
};

// Polar to Cartesian, (r, theta, phi) -> (x, y, z): square.
const std::vector<double> spherical_point{2.0, 0.7, 1.1};
matrix spherical_jacobian(double r, double t, double p) {
    return {
        {std::sin(t) * std::cos(p), r * std::cos(t) * std::cos(p), -r * std::sin(t) * std::sin(p)},
        {std::sin(t) * std::sin(p), r * std::cos(t) * std::sin(p), r * std::sin(t) * std::cos(p)},
        {std::cos(t), -r * std::sin(t), 0.0}};
}

} // namespace

TEST_CASE("square: spherical to Cartesian coordinates") {
    counted calls;
    const auto f = [&](auto x) {
        using T = std::remove_cvref_t<decltype(x[0])>;
        calls.count<T>();
        return std::vector<T>{x[0] * sin(x[1]) * cos(x[2]), x[0] * sin(x[1]) * sin(x[2]),
                              x[0] * cos(x[1])};
    };
    const matrix expected = spherical_jacobian(2.0, 0.7, 1.1);
    SUBCASE("zg::jacobian goes forward on a tie, one evaluation per input") {
        check_close(zg::jacobian(f, spherical_point), expected);
        CHECK(calls.forward_calls == 3);
        CHECK(calls.reverse_calls == 0);
    }
    SUBCASE("forward and reverse explicitly") {
        check_close(zg::fwd::jacobian(f, spherical_point), expected);
        check_close(zg::tape::jacobian(f, spherical_point), expected);
        CHECK(calls.forward_calls == 3);
        CHECK(calls.reverse_calls == 1);
    }
}

TEST_CASE("wide: R^4 -> R^2 goes reverse, one recording and two sweeps") {
    counted calls;
    const auto f = [&](auto x) {
        using T = std::remove_cvref_t<decltype(x[0])>;
        calls.count<T>();
        return std::vector<T>{x[0] * x[1] * x[2] * x[3], exp(x[0]) + square(x[3]) - x[1]};
    };
    const std::vector<double> x{1.0, 2.0, 3.0, 4.0};
    const matrix expected{{24.0, 12.0, 8.0, 6.0}, {std::exp(1.0), -1.0, 0.0, 8.0}};
    SUBCASE("zg::jacobian: one forward evaluation to learn m, then reverse") {
        check_close(zg::jacobian(f, x), expected);
        CHECK(calls.forward_calls == 1);
        CHECK(calls.reverse_calls == 1);
    }
    SUBCASE("both directions agree") {
        check_close(zg::fwd::jacobian(f, x), expected);
        check_close(zg::tape::jacobian(f, x), expected);
    }
    SUBCASE("nothing stays on the tape") {
        const auto before = zg::tape::this_thread_tape().size();
        (void)zg::jacobian(f, x);
        CHECK(zg::tape::this_thread_tape().size() == before);
    }
}

TEST_CASE("tall: R^2 -> R^4 goes forward, one evaluation per input") {
    counted calls;
    const auto f = [&](auto x) {
        using T = std::remove_cvref_t<decltype(x[0])>;
        calls.count<T>();
        return std::vector<T>{x[0] + x[1], x[0] * x[1], x[0] / x[1], pow(x[0], x[1])};
    };
    const double a = 1.5, b = 2.5;
    const matrix expected{{1.0, 1.0},
                          {b, a},
                          {1 / b, -a / (b * b)},
                          {b * std::pow(a, b - 1), std::pow(a, b) * std::log(a)}};
    SUBCASE("zg::jacobian") {
        check_close(zg::jacobian(f, {a, b}), expected);
        CHECK(calls.forward_calls == 2);
        CHECK(calls.reverse_calls == 0);
    }
    SUBCASE("both directions agree") {
        check_close(zg::fwd::jacobian(f, {a, b}), expected);
        check_close(zg::tape::jacobian(f, {a, b}), expected);
    }
}

TEST_CASE("a lambda that takes one scalar type gets that direction") {
    const std::vector<double> x{1.0, 2.0, 3.0};
    SUBCASE("zg::var only: reverse even when tall") {
        const auto f = [](std::span<const zg::var> v) {
            return std::vector<zg::var>{v[0], v[1] * v[2], v[0] * v[2], v[1], v[2]};
        };
        const matrix J = zg::jacobian(f, x);
        check_close(J, {{1, 0, 0}, {0, 3, 2}, {3, 0, 1}, {0, 1, 0}, {0, 0, 1}});
    }
    SUBCASE("zg::dual only: forward even when wide") {
        const auto f = [](std::span<const zg::dual> v) {
            return std::vector<zg::dual>{v[0] * v[1] * v[2]};
        };
        check_close(zg::jacobian(f, x), {{6, 3, 2}});
    }
}

TEST_CASE("edges") {
    SUBCASE("outputs that do not depend on the inputs, or are inputs") {
        zg::var outside = 5.0; // recorded before the call: a constant to f
        const auto f = [&](auto x) {
            using T = std::remove_cvref_t<decltype(x[0])>;
            if constexpr (std::is_same_v<T, zg::var>)
                return std::vector<T>{T(2.0), outside * 1.0, x[1]};
            else
                return std::vector<T>{T(2.0), T(5.0), x[1]};
        };
        const matrix expected{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 0}};
        check_close(zg::jacobian(f, {1.0, 2.0, 3.0, 4.0}), expected); // reverse
        check_close(zg::fwd::jacobian(f, {1.0, 2.0, 3.0, 4.0}), expected);
    }
    SUBCASE("no inputs: m empty rows") {
        const matrix J = zg::jacobian(
            [](auto x) {
                using T = std::remove_cvref_t<decltype(x)>::value_type;
                return std::vector<T>(3, T(1.0));
            },
            std::vector<double>{});
        CHECK(J == matrix(3));
    }
    SUBCASE("an output count that changes between evaluations is an error") {
        int calls = 0;
        const auto f = [&](auto x) {
            using T = std::remove_cvref_t<decltype(x[0])>;
            return std::vector<T>(std::size_t(++calls) + 2, x[0]);
        };
        CHECK_THROWS_AS(zg::fwd::jacobian(f, {1.0, 2.0}), zg::error);
    }
}
