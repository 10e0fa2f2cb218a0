// NumPy broadcasting: result shapes, gradients summed over the axes broadcasting inserted or
// stretched (by hand and by finite differences), and the shape errors of operands that do not fit.
#include "gradient_check.hpp"

#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <vector>

using tensor_test::check_gradients;
using zg::tensor;

namespace {

// Every arithmetic operator and one function, on the same two inputs.
const std::vector<tensor_test::tensor_function> operations = {
    [](const std::vector<tensor>& in) { return in[0] + in[1]; },
    [](const std::vector<tensor>& in) { return in[0] - in[1]; },
    [](const std::vector<tensor>& in) { return in[0] * in[1]; },
    [](const std::vector<tensor>& in) { return in[0] / in[1]; },
    [](const std::vector<tensor>& in) { return atan2(in[0], in[1]); },
};

} // namespace

TEST_CASE("result shapes follow NumPy") {
    const auto shape = [](zg::tensor_shape a, zg::tensor_shape b) {
        return (tensor::zeros(a) + tensor::zeros(b)).shape().to_string();
    };
    CHECK(shape({3, 1}, {1, 4}) == "[3, 4]");
    CHECK(shape({2, 3}, {3}) == "[2, 3]");
    CHECK(shape({}, {2, 3}) == "[2, 3]");
    CHECK(shape({5, 1, 3}, {4, 1}) == "[5, 4, 3]");
    CHECK(shape({1}, {}) == "[1]");
    CHECK(shape({0, 3}, {3}) == "[0, 3]");
}

TEST_CASE("gradients are summed over broadcast axes") {
    SUBCASE("[3, 1] + [1, 4]") {
        const tensor a = tensor::from({1, 2, 3}, {3, 1}, true);
        const tensor b = tensor::from({10, 20, 30, 40}, {1, 4}, true);
        const tensor c = a + b;
        CHECK(c.shape() == std::vector<std::size_t>{3, 4});
        CHECK(c.data()[4 * 2 + 3] == 43.0);
        sum(c).backward();
        for (double g : a.grad())
            CHECK(g == 4.0);
        for (double g : b.grad())
            CHECK(g == 3.0);
    }
    SUBCASE("[2, 3] * [3]: a bias-like row") {
        const tensor a = tensor::from({1, 2, 3, 4, 5, 6}, {2, 3}, true);
        const tensor b = tensor::from({1, 10, 100}, {3}, true);
        sum(a * b).backward();
        CHECK(b.grad()[0] == 1 + 4);
        CHECK(b.grad()[1] == 2 + 5);
        CHECK(b.grad()[2] == 3 + 6);
        CHECK(a.grad()[4] == 10.0);
    }
    SUBCASE("scalar tensor and double on either side") {
        const tensor s = tensor::from({2}, {}, true);
        const tensor t = tensor::from({1, 2, 3}, {3}, true);
        sum(s * t + 1.0 - 2.0 / t).backward();
        CHECK(s.grad()[0] == 6.0);
        CHECK(t.grad()[2] == doctest::Approx(2.0 + 2.0 / 9));
    }
}

TEST_CASE("broadcasting in every direction matches finite differences") {
    const std::vector<double> six = {0.4, -1.3, 2.2, 0.9, -0.6, 1.7};
    const std::vector<double> four = {1.5, -0.8, 2.4, 0.7};
    for (std::size_t k = 0; k < operations.size(); ++k) {
        INFO("operation ", k);
        const auto& f = operations[k];
        check_gradients(f, {{{0.4, -1.3, 2.2}, {3, 1}}, {four, {1, 4}}});
        check_gradients(f, {{four, {1, 4}}, {{0.4, -1.3, 2.2}, {3, 1}}});
        check_gradients(f, {{six, {2, 3}}, {{1.5, -0.8, 2.4}, {3}}});
        check_gradients(f, {{{1.5, -0.8, 2.4}, {3}}, {six, {2, 3}}});
        check_gradients(f, {{{1.9}, {}}, {six, {2, 3}}});
        check_gradients(f, {{six, {3, 2}}, {{-0.7}, {}}});
        check_gradients(f, {{six, {2, 1, 3}}, {{1.5, -0.8, 2.4, 0.7}, {4, 1}}});
        check_gradients(f, {{six, {3, 2}}, {{1.1, -2.3, 0.5, 1.6, -0.9, 0.3}, {3, 2}}});
    }
}

TEST_CASE("operands that do not broadcast throw shape_error naming both shapes") {
    const tensor a = tensor::zeros({2, 3}), b = tensor::zeros({4});
    CHECK_THROWS_WITH_AS(a + b, "zg::operator+: shapes [2, 3] and [4] do not broadcast",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(a * tensor::zeros({3, 3}),
                         "zg::operator*: shapes [2, 3] and [3, 3] do not broadcast",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(pow(b, a), "zg::pow: shapes [4] and [2, 3] do not broadcast",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(max(a, b), doctest::Contains("zg::max"), zg::shape_error);
}
