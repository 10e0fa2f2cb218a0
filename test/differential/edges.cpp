// The rules at the edges of their arguments, through every mode: exponents of every integer
// type, atan2 where its squares leave the double range, and Hessians at points where a rule
// takes a special value (pow at exponent 0, min and max at ties, abs at 0).
#include "laws.hpp"

#include <zerograd/zerograd.hpp>

#include <doctest/doctest.h>

#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <vector>

namespace {

/// d/dx f at x in expression, tape and forward mode.
template <class F>
std::array<double, 3> derivatives(F f, double x) {
    return {zg::grad(f, x)[0], zg::tape::grad(f, x)[0], zg::fwd::grad(f, x)[0]};
}

/// The Hessian of f(x, y) in expression mode, tape mode and by nested duals.
template <class F>
std::array<std::array<std::array<double, 2>, 2>, 3> hessians(F f, double x, double y) {
    const auto by_expression = zg::hessian(f, x, y);
    const auto by_tape = zg::tape::hessian(
        [&](auto v) { return f(v[0], v[1]); }, std::vector<double>{x, y});
    using dual2 = zg::dual_t<zg::dual>;
    std::array<std::array<double, 2>, 2> by_duals{};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            dual2 a(zg::dual(x, i == 0 ? 1 : 0), zg::dual(j == 0 ? 1 : 0, 0));
            dual2 b(zg::dual(y, i == 1 ? 1 : 0), zg::dual(j == 1 ? 1 : 0, 0));
            by_duals[i][j] = f(a, b).deriv.deriv;
        }
    return {by_expression,
            {{{by_tape[0][0], by_tape[0][1]}, {by_tape[1][0], by_tape[1][1]}}},
            by_duals};
}

} // namespace

TEST_CASE("integer exponents of every type and size, alike in every mode") {
    SUBCASE("beyond int: x^(2^32 + 2) at -1") {
        const long long n = (1LL << 32) + 2;
        for (double d : derivatives([n](auto x) { return pow(x, n); }, -1.0))
            CHECK(d == -4294967298.0);
    }
    SUBCASE("the lowest exponents: 2^INT_MIN and 2^INT64_MIN underflow to 0, derivative 0") {
        for (double d : derivatives([](auto x) { return pow(x, INT_MIN); }, 2.0)) CHECK(d == 0.0);
        for (double d : derivatives([](auto x) { return pow(x, INT64_MIN); }, 2.0))
            CHECK(d == 0.0);
        for (double d : derivatives([](auto x) { return pow(x, INT_MIN + 1); }, -1.0))
            CHECK(d == double(INT_MIN + 1)); // -n x^(n-1) at -1, n odd: n
    }
    SUBCASE("unsigned exponents, in constant expressions too") {
        static_assert(zg::grad([](auto x) { return pow(x, 3u); }, 2.0)[0] == 12.0);
        static_assert(zg::grad([](auto x) { return pow(x, std::size_t(2)); }, 5.0)[0] == 10.0);
        for (double d : derivatives([](auto x) { return pow(x, std::uint8_t(3)); }, 2.0))
            CHECK(d == 12.0);
    }
    SUBCASE("an unsigned exponent beyond int64 is refused, not wrapped") {
        const auto f = [](auto x) { return pow(x, ~0ull); };
        CHECK_THROWS_WITH_AS(zg::tape::grad(f, 1.0), doctest::Contains("std::int64_t"), zg::error);
        CHECK_THROWS_AS(zg::fwd::grad(f, 1.0), zg::error);
        CHECK_THROWS_AS(zg::grad(f, 1.0), zg::error);
    }
}

TEST_CASE("atan2's partials where l^2 + r^2 overflows or underflows") {
    const auto f = [](auto y, auto x) { return atan2(y, x); };
    struct point {
        double y, x, dy, dx;
    };
    for (const point p :
         {point{1e-200, 0.0, 0.0, -1e200}, point{1e-200, 1e-200, 5e199, -5e199},
          point{1e154, 1e154, 5e-155, -5e-155}, point{3e200, -4e200, -1.6e-201, -1.2e-201},
          point{3.0, 4.0, 0.16, -0.12}}) {
        INFO("atan2(", p.y, ", ", p.x, ")");
        for (const auto& g : {zg::grad(f, p.y, p.x), zg::tape::grad(f, p.y, p.x),
                              zg::fwd::grad(f, p.y, p.x)}) {
            CHECK(laws::close(g[0], p.dy, 1e-15));
            CHECK(laws::close(g[1], p.dx, 1e-15));
        }
    }
}

TEST_CASE("Hessians at a rule's special points are symmetric and right in every mode") {
    SUBCASE("pow at exponent 0: x^y at (2, 0)") {
        const double ln2 = std::numbers::ln2;
        for (const auto& h : hessians([](auto x, auto y) { return pow(x, y); }, 2.0, 0.0)) {
            CHECK(h[0][0] == 0.0);
            CHECK(laws::close(h[0][1], 0.5, 1e-15));
            CHECK(laws::close(h[1][0], 0.5, 1e-15));
            CHECK(laws::close(h[1][1], ln2 * ln2, 1e-15));
        }
    }
    SUBCASE("min and max at a tie: both follow the midpoint, in every mode and symmetric") {
        // At a tie each side gets half of each adjoint, so min(a, b) and max(a, b) both act as
        // m = (a + b) / 2 there, to second order too: min(a, b) max(a, b) as m^2, whose Hessian
        // is 2 grad(m) grad(m)^T = 1/2 everywhere (not the Hessian of a b, which the tie hides).
        const std::array<std::array<double, 2>, 2> half{{{0.5, 0.5}, {0.5, 0.5}}};
        for (const auto& h :
             hessians([](auto a, auto b) { return min(a, b) * max(a, b); }, 1.0, 1.0))
            CHECK(h == half);
        const std::array<std::array<double, 2>, 2> one{{{1, 1}, {1, 1}}};
        for (const auto& h : hessians(
                 [](auto a, auto b) { return square(min(a, b)) + square(max(a, b)); }, 2.0, 2.0))
            CHECK(h == one);
        // Away from the tie, the sides' own Hessians.
        for (const auto& h :
             hessians([](auto a, auto b) { return min(a, b) * max(a, b); }, 1.0, 1.5))
            CHECK(h == std::array<std::array<double, 2>, 2>{{{0, 1}, {1, 0}}});
    }
    SUBCASE("abs at 0: |x| y at (0, 1), with abs's subgradient 0 at the kink") {
        for (const auto& h : hessians([](auto x, auto y) { return abs(x) * y; }, 0.0, 1.0))
            CHECK(h == std::array<std::array<double, 2>, 2>{});
    }
}

TEST_CASE("a zero on a path is a strong zero in every mode: no NaN from 0 times infinity") {
    const auto check_all = [](auto f, double x, double expected) {
        for (double d : derivatives(f, x)) CHECK(d == expected);
        CHECK(zg::derivative(f, x) == expected);
    };
    // x cbrt(x) = x^(4/3): cbrt's partial at 0 is infinite, its adjoint x is 0.
    check_all([](auto x) { return x * cbrt(x); }, 0.0, 0.0);
    // relu(x - 1) cbrt(x) is 0 near 0.
    check_all([](auto x) { return relu(x - 1) * cbrt(x); }, 0.0, 0.0);
    // sqrt(relu(x)) is 0 for x < 0: the infinite adjoint of relu's node meets its zero partial.
    check_all([](auto x) { return sqrt(relu(x)); }, -1.0, 0.0);
    // relu(log(x)) at 0: log(0) = -inf, dead relu, log's infinite partial behind it.
    check_all([](auto x) { return relu(log(x)); }, 0.0, 0.0);
    // 0 sqrt(x) at 0 through a constant factor.
    check_all([](auto x) { return 0.0 * sqrt(x); }, 0.0, 0.0);
    // x^(relu(x) + 3) at -2 is x^3 near -2: pow's partial by the exponent is NaN at a negative
    // base, the exponent's own partial is 0.
    check_all([](auto x) { return pow(x, relu(x) + 3); }, -2.0, 12.0);

    SUBCASE("with vector leaves: relu(s) sum(cbrt(u)) at s = -1, u = {0, 1}") {
        const auto f = [](auto s, auto u) { return relu(s) * zg::sum(cbrt(u)); };
        const std::vector<double> u{0.0, 1.0};
        const auto [ds_e, du_e] = zg::grad(f, -1.0, u);
        const auto [ds_t, du_t] = zg::tape::grad(f, -1.0, u);
        const auto [ds_f, du_f] = zg::fwd::grad(f, -1.0, u);
        CHECK(ds_e == 0.0);
        CHECK(ds_t == 0.0);
        CHECK(ds_f == 0.0);
        for (const auto& du : {du_e, du_t, du_f}) CHECK(du == std::vector<double>{0.0, 0.0});
    }
    SUBCASE("an infinite adjoint into a vector reduction passes 0 through zero partials") {
        // sqrt of a reduction that is 0: every reduction's elements, its broadcast scalars and
        // its kept or claimed partials meet the infinite adjoint (zg::scan's recurrence does not
        // take it as strong).
        const std::vector<double> dead{-1.0, -2.0}, mixed{-1.0, 2.0};
        const auto check_modes = [](auto f, const std::vector<double>& u, double s,
                                    const std::vector<double>& du, double ds) {
            const auto [du_e, ds_e] = zg::grad(f, u, s);
            const auto [du_t, ds_t] = zg::tape::grad(f, u, s);
            const auto [du_f, ds_f] = zg::fwd::grad(f, u, s);
            for (const auto& g : {du_e, du_t, du_f}) CHECK(g == du);
            for (double g : {ds_e, ds_t, ds_f}) CHECK(g == ds);
        };
        check_modes([](auto u, auto) { return sqrt(zg::sum(relu(u))); }, dead, 0, {0, 0}, 0);
        check_modes([](auto u, auto) { return sqrt(zg::mean(relu(u))); }, dead, 0, {0, 0}, 0);
        check_modes([](auto u, auto) { return sqrt(zg::prod(relu(u))); }, mixed, 0, {0, 0}, 0);
        check_modes([](auto u, auto) { return sqrt(zg::log_sum_exp(relu(u))); },
                    std::vector<double>{-1.0}, 0, {0}, 0);
        check_modes([](auto u, auto s) { return sqrt(zg::dot(relu(u), u) + relu(s)); }, dead, -1,
                    {0, 0}, 0);
        check_modes([](auto u, auto s) { return log(zg::sum(relu(u) + relu(s))); }, dead, -3,
                    {0, 0}, 0);
        // s = 0 with live elements: d/ds is infinite, the elements' partials s relu' are 0.
        const double inf = std::numeric_limits<double>::infinity();
        check_modes([](auto u, auto s) { return sqrt(zg::sum(relu(u) * s)); }, mixed, 0, {0, 0},
                    inf);
        check_modes(
            [](auto u, auto s) { return sqrt(zg::sum(u, [&](auto y) { return relu(y) * s; })); },
            dead, 1.5, {0, 0}, 0);
        // The first sum claims u's gradient; the second sweeps its elements itself.
        check_modes([](auto u, auto s) { return zg::sum(u) * s + cbrt(zg::sum(relu(u))); }, dead,
                    0.5, {0.5, 0.5}, -3);
    }
    SUBCASE("on tensors: sqrt(relu(t)) at t < 0") {
        const zg::tensor t = zg::tensor::from({-1.0, 4.0}, {2}, true);
        sum(sqrt(relu(t))).backward();
        CHECK(t.grad()[0] == 0.0);
        CHECK(t.grad()[1] == 0.25);
    }
}
