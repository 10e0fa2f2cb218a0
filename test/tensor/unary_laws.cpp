// Every unary operation on tensors obeys its derivative law (test/laws.hpp) element by element,
// and matches central finite differences.
#include "gradient_check.hpp"
#include "laws.hpp"

#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <tuple>
#include <vector>

using zg::tensor;

TEST_CASE("unary operations: values from the rules, gradients match the closed forms") {
    std::apply(
        [](const auto&... law) {
            const auto check = [](const auto& law) {
                using rule = laws::rule_t<decltype(law)>;
                std::vector<double> points;
                for (double x : laws::points)
                    if (law.in_domain(x)) points.push_back(x);
                INFO(law.name);
                zg::tensor::scope scope;
                const tensor x = tensor::from(points, {points.size()}, true);
                const tensor y = law.apply(x);
                CHECK(y.shape() == x.shape());
                sum(y).backward();
                for (std::size_t i = 0; i < points.size(); ++i) {
                    INFO(law.name, "(", points[i], ")");
                    CHECK(y.data()[i] == rule{}.value(points[i]));
                    CHECK(laws::close(x.grad()[i], law.derivative(points[i]), 1e-12));
                }
            };
            (check(law), ...);
        },
        laws::unary_laws);
}

TEST_CASE("unary operations match finite differences") {
    // Moderate points of both signs, each law keeping those inside its domain.
    const std::vector<double> positive = {0.1, 0.35, 0.5, 0.62, 0.8, 0.93};
    const std::vector<double> candidates = {-0.9, -0.45, -0.2, 0.1, 0.35, 0.5, 0.62, 0.8, 0.93};
    std::apply(
        [&](const auto&... law) {
            const auto check = [&](const auto& law) {
                INFO(law.name);
                const auto f = [&](const std::vector<tensor>& in) { return law.apply(in[0]); };
                tensor_test::check_gradients(f, {{positive, {2, 3}}});
                std::vector<double> points;
                for (double x : candidates)
                    if (law.in_domain(x)) points.push_back(x);
                tensor_test::check_gradients(f, {{points, {points.size()}}});
            };
            (check(law), ...);
        },
        laws::unary_laws);
}

TEST_CASE("integer powers are exact, negative bases included") {
    const tensor x = tensor::from({-2, 3}, {2}, true);
    const tensor y = pow(x, 3) + pow(x, -2);
    sum(y).backward();
    CHECK(y.data()[0] == -8 + 0.25);
    CHECK(x.grad()[0] == 3 * 4.0 + -2 * std::pow(-2.0, -3));
    CHECK(x.grad()[1] == 3 * 9.0 + -2 * std::pow(3.0, -3));
}

TEST_CASE("a zero gradient does not meet an infinite partial") {
    // sqrt(relu(x)) at x = -1 is sqrt(0): an infinite partial, on a path multiplied by 0.
    const tensor x = tensor::from({-1, 2}, {2}, true);
    const tensor y = relu(x);
    const tensor z = sum(sqrt(y) * 0.0 + y);
    z.backward();
    CHECK(x.grad()[0] == 0.0);
    CHECK(x.grad()[1] == 1.0);
}
