// Expression mode obeys every derivative law, and agrees with tape mode to the last bits.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

TEST_CASE("unary operations match their closed forms and tape mode") {
    laws::for_each_unary_point([](const auto& law, double x) {
        const auto [value, grad] = zg::value_and_grad(law.apply, x);
        INFO(law.name, "(", x, ")");
        using rule = laws::rule_t<decltype(law)>;
        CHECK(value == rule{}.value(x));
        CHECK(laws::close(grad[0], law.derivative(x), 1e-12));
        CHECK(laws::close(grad[0], zg::tape::grad(law.apply, x)[0], 1e-13));
    });
}

TEST_CASE("binary operations match their closed forms, with a constant on either side") {
    laws::for_each_binary_point([](const auto& law, double x, double y) {
        INFO(law.name, "(", x, ", ", y, ")");
        const auto both = zg::grad(law.apply, x, y);
        CHECK(laws::close(both[0], law.dl(x, y), 1e-12));
        CHECK(laws::close(both[1], law.dr(x, y), 1e-12));
        CHECK(laws::close(both[0], zg::tape::grad(law.apply, x, y)[0], 1e-13));
        CHECK(laws::close(both[1], zg::tape::grad(law.apply, x, y)[1], 1e-13));
        const auto left = zg::grad([&](auto l) { return law.apply(l, y); }, x);
        const auto right = zg::grad([&](auto r) { return law.apply(x, r); }, y);
        CHECK(left[0] == both[0]);
        CHECK(right[0] == both[1]);
    });
}

TEST_CASE("numbers mix on either side, integer powers are exact") {
    const auto f = [](auto x) { return 2 * x + 1 - x / 4 + 3 - (1 - x) * 2 + pow(x, 3) + pow(2, x); };
    const auto g = zg::grad(f, 4.0);
    CHECK(laws::close(g[0], 2 - 0.25 + 2 + 3 * 16 + std::log(2.0) * 16, 1e-15));
    CHECK(g[0] == zg::tape::grad(f, 4.0)[0]);
    CHECK(zg::grad([](auto x) { return pow(x, 3) + pow(x, -2); }, -2.0)[0] ==
          3 * 4.0 + -2 * std::pow(-2.0, -3));
}

TEST_CASE("comparisons look at values") {
    const auto g = zg::grad(
        [](auto x, auto y) {
            CHECK(x < y);
            CHECK(x == 2.0);
            CHECK(0 < x);
            return x * y;
        },
        2.0, 3.0);
    CHECK(g[1] == 2.0);
}

TEST_CASE("qualified calls zg::sin(x), zg::pow(x, n) work in every mode") {
    // d/dx of tanh(x) + x^3 + relu(x) + max(x, 0.2) + sigmoid(x) * exp(x) at 0.5
    const auto f = [](auto x) {
        return zg::tanh(x) + zg::pow(x, 3) + zg::relu(x) + zg::max(x, 0.2) +
               zg::sigmoid(x) * zg::exp(x);
    };
    const double x = 0.5, t = std::tanh(x), s = 1 / (1 + std::exp(-x));
    const double expected = (1 - t * t) + 3 * x * x + 1 + 1 + std::exp(x) * s * (2 - s);
    CHECK(laws::close(zg::grad(f, x)[0], expected, 1e-15));
    CHECK(laws::close(zg::tape::grad(f, x)[0], expected, 1e-15));
    CHECK(laws::close(zg::fwd::grad(f, x)[0], expected, 1e-15));
    zg::var v = x;
    zg::var y = f(v);
    y.backward();
    CHECK(laws::close(v.grad(), expected, 1e-15));
}

TEST_CASE("a logistic loss by softplus and log_sigmoid stays finite at margins of +-800") {
    // softplus(-m) = -log_sigmoid(m): the loss of margin m = y w x; log1p(exp(-m)) is inf at
    // m = -800 and its gradient 0 there, where the loss is 800 and its gradient by w is -y x.
    const double x = 2.0, y = -1.0;
    const auto by_softplus = [&](auto w) { return softplus(-y * w * x); };
    const auto by_log_sigmoid = [&](auto w) { return -log_sigmoid(y * w * x); };
    for (const double w : {-400.0, 400.0, 0.25}) {
        const double margin = y * w * x;
        const double loss = margin < -30 ? -margin : std::log1p(std::exp(-margin));
        const double slope = -y * x / (1 + std::exp(margin)); // d loss / dw
        INFO("w = ", w);
        const auto agrees = [&](const auto& result) {
            CHECK(laws::close(result.value, loss, 1e-15));
            CHECK(laws::close(result.grad[0], slope, 1e-15));
        };
        agrees(zg::value_and_grad(by_softplus, w));
        agrees(zg::value_and_grad(by_log_sigmoid, w));
        agrees(zg::tape::value_and_grad(by_softplus, w));
        agrees(zg::tape::value_and_grad(by_log_sigmoid, w));
        agrees(zg::fwd::value_and_grad(by_softplus, w));
        agrees(zg::fwd::value_and_grad(by_log_sigmoid, w));
    }
}
