// Forward mode obeys every derivative law, with duals on either side or both.
#include "laws.hpp"

#include <zerograd/forward.hpp>

#include <doctest/doctest.h>

TEST_CASE("unary operations on duals match their closed forms") {
    laws::for_each_unary_point([](const auto& law, double x) {
        INFO(law.name, "(", x, ")");
        using rule = laws::rule_t<decltype(law)>;
        const zg::dual y = law.apply(zg::dual(x, 1.0));
        CHECK(y.value == rule{}.value(x));
        CHECK(laws::close(y.deriv, law.derivative(x), 1e-12));
        CHECK(zg::derivative(law.apply, x) == y.deriv);
        const auto [value, grad] = zg::fwd::value_and_grad(law.apply, x);
        CHECK(value == y.value);
        CHECK(grad[0] == y.deriv);
        // A constant (derivative zero) stays constant.
        CHECK(law.apply(zg::dual(x)).deriv == 0.0);
    });
}

TEST_CASE("binary operations on duals match their closed forms, with a constant on either side") {
    laws::for_each_binary_point([](const auto& law, double x, double y) {
        INFO(law.name, "(", x, ", ", y, ")");
        using rule = laws::rule_t<decltype(law)>;
        const auto both = zg::fwd::value_and_grad(law.apply, x, y);
        CHECK(both.value == rule{}.value(x, y));
        CHECK(laws::close(both.grad[0], law.dl(x, y), 1e-12));
        CHECK(laws::close(both.grad[1], law.dr(x, y), 1e-12));
        // A plain double on the other side: the mixed overloads compute one partial each.
        const zg::dual left = law.apply(zg::dual(x, 1.0), y);
        const zg::dual right = law.apply(x, zg::dual(y, 1.0));
        CHECK(left.value == both.value);
        CHECK(right.value == both.value);
        CHECK(left.deriv == both.grad[0]);
        CHECK(right.deriv == both.grad[1]);
        // Both sides duals, seeded along (1, 1): the directional derivative is the sum.
        const zg::dual diagonal = law.apply(zg::dual(x, 1.0), zg::dual(y, 1.0));
        CHECK(laws::close(diagonal.deriv, both.grad[0] + both.grad[1], 1e-15));
    });
}
