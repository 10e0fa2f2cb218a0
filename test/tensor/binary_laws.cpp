// Every binary operation on tensors obeys its derivative law (test/laws.hpp) element by element,
// with a plain number on either side too, and matches central finite differences.
#include "gradient_check.hpp"
#include "laws.hpp"

#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <tuple>
#include <vector>

using zg::tensor;

TEST_CASE("binary operations: values from the rules, gradients match the closed forms") {
    std::apply(
        [](const auto&... law) {
            const auto check = [](const auto& law) {
                using rule = laws::rule_t<decltype(law)>;
                std::vector<double> xs, ys;
                for (double x : laws::points)
                    for (double y : laws::points)
                        if (x != y && law.in_domain(x, y)) {
                            xs.push_back(x);
                            ys.push_back(y);
                        }
                INFO(law.name);
                zg::tensor::scope scope;
                const tensor l = tensor::from(xs, {xs.size()}, true);
                const tensor r = tensor::from(ys, {ys.size()}, true);
                const tensor z = law.apply(l, r);
                sum(z).backward();
                for (std::size_t i = 0; i < xs.size(); ++i) {
                    INFO(law.name, "(", xs[i], ", ", ys[i], ")");
                    CHECK(z.data()[i] == rule{}.value(xs[i], ys[i]));
                    CHECK(laws::close(l.grad()[i], law.dl(xs[i], ys[i]), 1e-12));
                    CHECK(laws::close(r.grad()[i], law.dr(xs[i], ys[i]), 1e-12));
                    // A plain number on either side: only the tensor side gets a gradient.
                    const tensor x = tensor::from({xs[i]}, {}, true);
                    const tensor y = tensor::from({ys[i]}, {}, true);
                    law.apply(x, ys[i]).backward();
                    law.apply(xs[i], y).backward();
                    CHECK(x.grad()[0] == l.grad()[i]);
                    CHECK(y.grad()[0] == r.grad()[i]);
                }
            };
            (check(law), ...);
        },
        laws::binary_laws);
}

TEST_CASE("binary operations match finite differences, equal shapes and broadcast") {
    const std::vector<double> left = {0.3, 0.7, 1.3, 2.1, 0.9, 1.7};
    const std::vector<double> right = {1.1, 0.4, 0.8, 2.5, 1.6, 0.6};
    std::apply(
        [&](const auto&... law) {
            const auto check = [&](const auto& law) {
                INFO(law.name);
                const auto f = [&](const std::vector<tensor>& in) {
                    return law.apply(in[0], in[1]);
                };
                tensor_test::check_gradients(f, {{left, {2, 3}}, {right, {2, 3}}});
                tensor_test::check_gradients(f, {{left, {2, 3}}, {{1.1, 0.4, 0.8}, {3}}});
                tensor_test::check_gradients(f, {{{0.5, 2.2}, {2, 1}}, {right, {2, 3}}});
                tensor_test::check_gradients(
                    [&](const std::vector<tensor>& in) { return law.apply(in[0], 1.2); },
                    {{left, {6}}});
                tensor_test::check_gradients(
                    [&](const std::vector<tensor>& in) { return law.apply(1.2, in[0]); },
                    {{right, {3, 2}}});
            };
            (check(law), ...);
        },
        laws::binary_laws);
}

TEST_CASE("min and max split a tie evenly, as the rules say") {
    const tensor x = tensor::from({1, 2}, {2}, true);
    const tensor y = tensor::from({1, 3}, {2}, true);
    sum(min(x, y) + max(x, y)).backward();
    CHECK(x.grad()[0] == 1.0);
    CHECK(y.grad()[0] == 1.0);
    CHECK(x.grad()[1] == 1.0);
}
