// zg::dual_t itself: construction, mixing with plain numbers (nested too), compound assignment,
// comparisons, printing, constant expressions, and generic code written once for every scalar.
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

namespace {

using dual2 = zg::dual_t<zg::dual>;

/// Generic code as users write it: one template, every scalar.
template <class T>
T f(T x) {
    T y = x;
    for (int i = 0; i < 3; ++i)
        y = y * x + 1; // x^4 + x^2 + x + 1 after three steps
    if (y > 10) return log(y);
    return 2 * y - sqrt(x);
}

/// f' where f takes the log branch (x^4 + x^2 + x + 1 > 10).
double f_prime(double x) { return (4 * x * x * x + 2 * x + 1) / (x * x * x * x + x * x + x + 1); }

} // namespace

static_assert(std::is_trivially_copyable_v<zg::dual>);
static_assert(std::is_trivially_copyable_v<dual2>);
static_assert(std::is_same_v<zg::dual, zg::dual_t<double>>);
static_assert(std::is_same_v<decltype(zg::dual::value), double>);
static_assert(std::is_same_v<decltype(dual2::deriv), zg::dual>);
// Usable in constant expressions with the operations docs/api.md promises there.
static_assert((zg::dual(3.0, 1.0) * 2 + square(zg::dual(1.0, 1.0))).deriv == 4.0);
static_assert(pow(zg::dual(2.0, 1.0), 3).deriv == 12.0);
static_assert(abs(zg::dual(-2.0, 1.0)).deriv == -1.0);
static_assert(max(zg::dual(1.0, 1.0), 2.0).deriv == 0.0);

TEST_CASE("construction") {
    SUBCASE("default is zero with derivative zero, nested too") {
        const zg::dual d;
        CHECK(d.value == 0.0);
        CHECK(d.deriv == 0.0);
        const dual2 d2;
        CHECK(d2.value.value == 0.0);
        CHECK(d2.deriv.deriv == 0.0);
    }
    SUBCASE("from a number: a constant") {
        const zg::dual d = 2.5;
        CHECK(d.value == 2.5);
        CHECK(d.deriv == 0.0);
        const dual2 i = 3; // an int reaches the innermost double
        CHECK(i.value.value == 3.0);
        CHECK(i.deriv.value == 0.0);
    }
    SUBCASE("from a value and a derivative") {
        const zg::dual d(2.0, 1.0);
        CHECK(d.value == 2.0);
        CHECK(d.deriv == 1.0);
    }
}

TEST_CASE("plain numbers mix on either side") {
    SUBCASE("double and int with a dual") {
        const zg::dual x(5.0, 1.0);
        const zg::dual y = 2 * x + 1 - x / 4 + 3.0 - (1 - x) * 2.0;
        CHECK(y.value == 2 * 5 + 1 - 1.25 + 3 - (1 - 5) * 2);
        CHECK(y.deriv == 2 - 0.25 + 2);
        const zg::dual p = pow(x, 3) + pow(2, x) + pow(x, 0.5) + pow(x, 2L);
        CHECK(p.deriv ==
              doctest::Approx(75 + std::log(2.0) * 32 + 0.5 / std::sqrt(5.0) + 10).epsilon(1e-15));
        CHECK(atan2(1, x).deriv == doctest::Approx(-1 / 26.0).epsilon(1e-15));
        CHECK(min(x, 7).deriv == 1.0);
        CHECK(max(7.0, x).deriv == 0.0);
    }
    SUBCASE("double and int with a nested dual") {
        const dual2 x(zg::dual(5.0, 1.0), zg::dual(1.0, 0.0));
        const dual2 y = 2 * x * x + 1 - x / 4 + 3.0 * x - 2.0;
        CHECK(y.value.value == 50 + 1 - 1.25 + 15 - 2);
        CHECK(y.deriv.value == 20 - 0.25 + 3);
        CHECK(y.deriv.deriv == 4.0);
        // pow with 0.5 must not take the integer overload (0.5 -> int is a standard conversion)
        const dual2 root = pow(x, 0.5);
        CHECK(root.value.value == std::sqrt(5.0));
        CHECK(root.deriv.deriv == doctest::Approx(-0.25 * std::pow(5.0, -1.5)).epsilon(1e-15));
        CHECK(pow(x, 3).deriv.deriv == 30.0);
        CHECK(pow(2, x).value.value == 32.0);
        // the inner dual on either side
        const zg::dual c(2.0, 0.0);
        CHECK((x * c).deriv.deriv == 0.0);
        CHECK((c / x).deriv.value == -2.0 / 25);
    }
}

TEST_CASE("compound assignment") {
    SUBCASE("on a dual") {
        const zg::dual x(3.0, 1.0);
        zg::dual y = x;
        y += 1;
        y *= 2.0;
        y -= x;
        y /= 2;
        y += x;
        CHECK(y.value == (((3.0 + 1) * 2) - 3) / 2 + 3);
        CHECK(y.deriv == 1.5);
    }
    SUBCASE("on a nested dual, with numbers, inner duals and nested duals") {
        const dual2 x(zg::dual(3.0, 1.0), zg::dual(1.0, 0.0));
        dual2 y = x;
        y += 1;
        y *= 2.0;
        y *= x;
        y -= zg::dual(1.0, 0.0);
        y /= 2;
        CHECK(y.value.value == ((3.0 + 1) * 2 * 3 - 1) / 2);
        CHECK(y.deriv.deriv == 2.0); // (2 (x + 1) x - 1) / 2 = x^2 + x - 1/2
    }
    SUBCASE("aliasing: x = x + 3 * x") {
        zg::dual x(2.0, 1.0);
        x = x + 3 * x;
        x *= x;
        CHECK(x.value == 64.0);
        CHECK(x.deriv == 64.0); // 16 x^2
    }
}

TEST_CASE("comparisons look at the value") {
    const zg::dual a(1.0, 5.0), b(1.0, -5.0), c(2.0, 0.0);
    CHECK(a == b);
    CHECK(a < c);
    CHECK(c > 1);
    CHECK(1.5 < c);
    CHECK(a == 1.0);
    CHECK(a != 2);
    const dual2 n(zg::dual(2.0, 1.0), zg::dual(1.0, 0.0));
    CHECK(n > 1);
    CHECK(n < 2.5);
    CHECK(n == zg::dual(2.0, 7.0));
    CHECK(n >= dual2(2));
}

TEST_CASE("a constant operand contributes nothing, even where its partial is infinite") {
    // log(0) has an infinite derivative; a constant zero passed through it must not make NaN.
    const zg::dual x(2.0, 1.0);
    const zg::dual y = x + log(zg::dual(0.0)) * 0.0 + sqrt(zg::dual(0.0));
    CHECK(y.deriv == 1.0);
    CHECK(pow(zg::dual(-2.0, 0.0), x).deriv != pow(zg::dual(-2.0, 0.0), x).deriv); // NaN: varies
    CHECK(pow(x, zg::dual(2.0)).deriv == 4.0); // the constant exponent's log(x) is not needed
    CHECK(pow(zg::dual(-2.0, 1.0), zg::dual(2.0)).deriv == -4.0);
}

TEST_CASE("generic code: template <class T> T f(T x) in every scalar") {
    const double x = 2.0;
    SUBCASE("double") { CHECK(f(x) == std::log(23.0)); }
    SUBCASE("dual: the first derivative") {
        const zg::dual y = f(zg::dual(x, 1.0));
        CHECK(y.value == f(x));
        CHECK(y.deriv == doctest::Approx(f_prime(x)).epsilon(1e-14));
        CHECK(zg::derivative([](auto t) { return f(t); }, x) == y.deriv);
    }
    SUBCASE("nested dual: the second derivative") {
        const dual2 y = f(dual2(zg::dual(x, 1.0), zg::dual(1.0, 0.0)));
        const double h = 1e-5;
        CHECK(y.deriv.deriv ==
              doctest::Approx((f_prime(x + h) - f_prime(x - h)) / (2 * h)).epsilon(1e-8));
    }
    SUBCASE("the other branch") {
        const zg::dual y = f(zg::dual(0.5, 1.0));
        CHECK(y.deriv ==
              doctest::Approx(2 * (4 * 0.125 + 2 * 0.5 + 1) - 0.5 / std::sqrt(0.5)).epsilon(1e-14));
    }
    SUBCASE("tape mode agrees") {
        CHECK(zg::tape::grad([](auto t) { return f(t); }, x)[0] ==
              doctest::Approx(f_prime(x)).epsilon(1e-14));
    }
}

TEST_CASE("duals print their value and derivative") {
    std::ostringstream out;
    out << zg::dual(2.0, 1.0) << ' ' << dual2(zg::dual(1.0, 2.0), zg::dual(3.0, 4.0));
    CHECK(out.str() == "dual(value=2, deriv=1) "
                       "dual(value=dual(value=1, deriv=2), deriv=dual(value=3, deriv=4))");
}
