// Tape mode obeys every derivative law, with variables on either side or both.
#include "laws.hpp"

#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

TEST_CASE("unary operations match their closed forms") {
    laws::for_each_unary_point([](const auto& law, double x) {
        const auto [value, grad] = zg::tape::value_and_grad(law.apply, x);
        INFO(law.name, "(", x, ")");
        using rule = laws::rule_t<decltype(law)>;
        CHECK(value == rule{}.value(x));
        CHECK(laws::close(grad[0], law.derivative(x), 1e-12));
    });
}

TEST_CASE("binary operations match their closed forms, with a constant on either side") {
    laws::for_each_binary_point([](const auto& law, double x, double y) {
        INFO(law.name, "(", x, ", ", y, ")");
        const auto both = zg::tape::grad(law.apply, x, y);
        CHECK(laws::close(both[0], law.dl(x, y), 1e-12));
        CHECK(laws::close(both[1], law.dr(x, y), 1e-12));
        const auto left = zg::tape::grad([&](auto l) { return law.apply(l, y); }, x);
        const auto right = zg::tape::grad([&](auto r) { return law.apply(x, r); }, y);
        CHECK(left[0] == both[0]);
        CHECK(right[0] == both[1]);
    });
}

TEST_CASE("integer literals mix on either side") {
    const auto g = zg::tape::grad([](auto x) { return 2 * x + 1 - x / 4 + 3 - (1 - x) * 2; }, 5.0);
    CHECK(g[0] == 2 - 0.25 + 2);
    const auto p = zg::tape::grad([](auto x) { return pow(x, 3) + pow(2, x) + pow(x, 0.5); }, 4.0);
    CHECK(laws::close(p[0], 3 * 16 + std::log(2.0) * 16 + 0.25, 1e-15));
}

TEST_CASE("integer powers of negative bases") {
    const auto g = zg::tape::grad([](auto x) { return pow(x, 3) + pow(x, -2); }, -2.0);
    CHECK(g[0] == 3 * 4.0 + -2 * std::pow(-2.0, -3));
}

TEST_CASE("compound assignment with numbers") {
    zg::var x = 3.0;
    zg::var y = x;
    y += 1;
    y *= 2.0;
    y -= x;
    y /= 2;
    y.backward();
    CHECK(y.data() == (((3.0 + 1) * 2) - 3) / 2);
    CHECK(x.grad() == 0.5);
}

TEST_CASE("variables print like micrograd's Value") {
    zg::var x = 2.0;
    std::ostringstream out;
    out << x;
    CHECK(out.str() == "var(data=2, grad=0)");
}
