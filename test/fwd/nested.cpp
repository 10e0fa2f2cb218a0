// Nested duals: dual_t<dual_t<double>> gives second derivatives of every operation, from the same
// rules, checked against central differences of the closed-form first derivatives.
#include "laws.hpp"

#include <zerograd/forward.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

using dual2 = zg::dual_t<zg::dual>;

/// x seeded for second derivatives: value {x, 1}, derivative {1, 0}; f(x).deriv.deriv is f''.
dual2 seed(double x) { return dual2(zg::dual(x, 1.0), zg::dual(1.0, 0.0)); }

/// Whether `second` agrees with a central difference of the first derivative `d` at x (as
/// test/core/rules.cpp holds first derivatives to differences of the value).
template <class D>
bool matches_central_difference(double second, D d, double x) {
    const double h = 1e-6 * std::max(1e-3, std::abs(x));
    const double difference = (d(x + h) - d(x - h)) / (2 * h);
    const double rounding = 4 * std::numeric_limits<double>::epsilon() * std::abs(d(x)) / h;
    return std::abs(second - difference) <=
           1e-6 * std::max({1.0, std::abs(second), std::abs(difference)}) + rounding;
}

} // namespace

TEST_CASE("second derivatives of unary operations") {
    laws::for_each_unary_point([](const auto& law, double x) {
        const dual2 y = law.apply(seed(x));
        INFO(law.name, "(", x, ") = ", y);
        using rule = laws::rule_t<decltype(law)>;
        CHECK(y.value.value == rule{}.value(x));
        // Both first-derivative parts are f'(x): the outer one from the rule's partial, the
        // inner one from differentiating the rule's value formula, so they agree to rounding
        // (sigmoid's y (1 - y) is 0 where y rounds to 1; the formula keeps e^-x).
        CHECK(laws::close(y.value.deriv, law.derivative(x), 1e-12));
        CHECK(laws::close(y.deriv.value, law.derivative(x), 1e-12));
        CHECK(matches_central_difference(y.deriv.deriv, law.derivative, x));
    });
}

TEST_CASE("second derivatives of binary operations, with a plain number on either side") {
    laws::for_each_binary_point([](const auto& law, double x, double y) {
        INFO(law.name, "(", x, ", ", y, ")");
        const dual2 by_left = law.apply(seed(x), y);
        const dual2 by_right = law.apply(x, seed(y));
        CHECK(laws::close(by_left.value.deriv, law.dl(x, y), 1e-12));
        CHECK(laws::close(by_right.value.deriv, law.dr(x, y), 1e-12));
        CHECK(matches_central_difference(
            by_left.deriv.deriv, [&](double t) { return law.dl(t, y); }, x));
        CHECK(matches_central_difference(
            by_right.deriv.deriv, [&](double t) { return law.dr(x, t); }, y));
    });
}

TEST_CASE("closed-form second derivatives") {
    SUBCASE("mixed partial of x * y by seeding x outside and y inside") {
        // Outer level differentiates by x, inner by y: d2/dxdy (x^2 y^3) = 6 x y^2.
        const dual2 x(zg::dual(1.5, 0.0), zg::dual(1.0, 0.0));
        const dual2 y(zg::dual(2.0, 1.0), zg::dual(0.0, 0.0));
        const dual2 f = square(x) * pow(y, 3);
        CHECK(f.deriv.deriv == doctest::Approx(6 * 1.5 * 4.0).epsilon(1e-15));
    }
    SUBCASE("exp, log, sin: f'' in closed form") {
        CHECK(exp(seed(0.7)).deriv.deriv == std::exp(0.7));
        CHECK(log(seed(0.7)).deriv.deriv == doctest::Approx(-1 / (0.7 * 0.7)).epsilon(1e-15));
        CHECK(sin(seed(0.7)).deriv.deriv == -std::sin(0.7));
    }
    SUBCASE("three levels: the third derivative of x^5 is 60 x^2") {
        using dual3 = zg::dual_t<dual2>;
        const dual3 x(seed(2.0), dual2(zg::dual(1.0, 0.0), zg::dual(0.0, 0.0)));
        const dual3 f = pow(x, 5);
        CHECK(f.deriv.deriv.deriv == 240.0);
        CHECK(f.value.value.value == 32.0);
    }
}
