// Sums, means, log_softmax and cross_entropy: hand-computed values, finite differences, stability
// at large logits, and the errors of bad axes and bad labels.
#include "gradient_check.hpp"

#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using tensor_test::check_gradients;
using tensor_test::close;
using zg::tensor;

namespace {
const std::vector<double> six = {0.4, -1.3, 2.2, 0.9, -0.6, 1.7};
const std::vector<double> twelve = {0.1, 0.5, -0.3, 1.2, -1.1, 0.8, 0.2, -0.4, 0.9, 1.5, -0.7, 0.6};
} // namespace

TEST_CASE("sum and mean, whole and along an axis") {
    const tensor a = tensor::from({1, 2, 3, 4, 5, 6}, {2, 3}, true);
    CHECK(sum(a).item() == 21.0);
    CHECK(sum(a).rank() == 0);
    CHECK(mean(a).item() == 3.5);
    const tensor s0 = sum(a, 0), s1 = sum(a, 1), last = sum(a, -1), m0 = mean(a, 0);
    CHECK(s0.shape().to_string() == "[3]");
    CHECK(s0.data()[2] == 9.0);
    CHECK(s1.shape().to_string() == "[2]");
    CHECK(s1.data()[1] == 15.0);
    CHECK(last.data()[1] == 15.0);
    CHECK(m0.data()[0] == 2.5);
    mean(a).backward();
    CHECK(a.grad()[3] == 1.0 / 6);
    CHECK(sum(tensor::zeros({2, 3, 4}), 1).shape().to_string() == "[2, 4]");
    CHECK_THROWS_WITH_AS(sum(a, 2), "zg::sum: axis 2 is out of range for shape [2, 3]",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(mean(a, -3), doctest::Contains("zg::mean: axis -3"), zg::shape_error);
}

TEST_CASE("reductions match finite differences") {
    check_gradients([](const std::vector<tensor>& in) { return sum(in[0]); }, {{six, {2, 3}}});
    check_gradients([](const std::vector<tensor>& in) { return mean(in[0]); }, {{six, {3, 2}}});
    for (int axis : {0, 1, 2, -1}) {
        INFO("axis ", axis);
        check_gradients([axis](const std::vector<tensor>& in) { return sum(in[0], axis); },
                        {{twelve, {2, 3, 2}}});
        check_gradients([axis](const std::vector<tensor>& in) { return mean(in[0], axis); },
                        {{twelve, {2, 3, 2}}});
        check_gradients([axis](const std::vector<tensor>& in) { return log_softmax(in[0], axis); },
                        {{twelve, {2, 3, 2}}});
    }
}

TEST_CASE("log_softmax: hand-computed values, stable at large logits") {
    const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)); // 3.4076059644
    const tensor y = log_softmax(tensor::from({1, 2, 3}, {3}));
    CHECK(close(y.data()[0], 1 - lse, 1e-15));
    CHECK(close(y.data()[2], 3 - lse, 1e-15));
    const tensor big = log_softmax(tensor::from({1000, 1001, 3000, 3000}, {2, 2}));
    CHECK(close(big.data()[0], -std::log1p(std::exp(1.0)), 1e-15)); // -1.3132616875
    CHECK(close(big.data()[1], -std::log1p(std::exp(-1.0)), 1e-15));
    CHECK(close(big.data()[2], -std::log(2.0), 1e-15));
    const tensor columns = log_softmax(tensor::from({1, 1000, 2, 1000}, {2, 2}), 0);
    CHECK(close(columns.data()[0], 1 - (2 + std::log1p(std::exp(-1.0))), 1e-15));
    CHECK(close(columns.data()[1], -std::log(2.0), 1e-15));
    CHECK_THROWS_AS(log_softmax(tensor::zeros({2}), 1), zg::shape_error);
}

TEST_CASE("cross_entropy: the mean of -log_softmax at the labels") {
    const tensor logits = tensor::from({1, 2, 3, 1, 2, 3}, {2, 3}, true);
    const tensor loss = cross_entropy(logits, {2, 0});
    const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
    CHECK(close(loss.item(), ((lse - 3) + (lse - 1)) / 2, 1e-15)); // 1.4076059644
    loss.backward();
    // (softmax - onehot) / batch
    const std::vector<double> softmax = {std::exp(1 - lse), std::exp(2 - lse), std::exp(3 - lse)};
    const std::vector<double> expected = {softmax[0] / 2,       softmax[1] / 2,
                                          (softmax[2] - 1) / 2, (softmax[0] - 1) / 2,
                                          softmax[1] / 2,       softmax[2] / 2};
    for (std::size_t i = 0; i < 6; ++i)
        CHECK(close(logits.grad()[i], expected[i], 1e-15));
    // The same as composing log_softmax, a one-hot mask and a mean.
    const tensor mask = tensor::from({0, 0, 1, 1, 0, 0}, {2, 3});
    const tensor composed = -sum(log_softmax(logits) * mask) / 2.0;
    CHECK(close(composed.item(), loss.item(), 1e-15));
}

TEST_CASE("cross_entropy matches finite differences") {
    check_gradients(
        [](const std::vector<tensor>& in) {
            return cross_entropy(in[0], {1, 0, 3});
        },
        {{twelve, {3, 4}}});
    check_gradients(
        [](const std::vector<tensor>& in) {
            return cross_entropy(matmul(in[0], in[1]) + in[2], std::vector<int>{2, 0});
        },
        {{six, {2, 3}},
         {{0.3, -0.2, 1.1, 0.5, 0.7, -0.9, 1.3, 0.1, -0.6}, {3, 3}},
         {{0.1, 0.2, -0.3}, {3}}});
}

TEST_CASE("cross_entropy is stable at logits of 1000 and more") {
    for (double scale : {1000.0, 1e4, 1e300}) {
        INFO("scale ", scale);
        const double tolerance = 1e-15;
        const tensor logits = tensor::from({scale, 0, -scale, scale, scale, scale}, {2, 3}, true);
        const tensor loss = cross_entropy(logits, {0, 1});
        CHECK(close(loss.item(), std::log(3.0) / 2, tolerance));
        loss.backward();
        for (double g : logits.grad())
            CHECK(std::isfinite(g));
        CHECK(logits.grad()[0] == 0.0);
        CHECK(close(logits.grad()[3], 1.0 / 6, tolerance));
        CHECK(close(logits.grad()[4], (1.0 / 3 - 1) / 2, tolerance));
    }
    const tensor wrong = tensor::from({1000, -1000}, {1, 2}, true);
    CHECK(cross_entropy(wrong, {1}).item() == 2000.0);
}

TEST_CASE("bad labels and bad logits throw") {
    const tensor logits = tensor::zeros({2, 5});
    CHECK_THROWS_WITH_AS(cross_entropy(logits, {0, 1, 2}),
                         "zg::cross_entropy: 3 labels for logits of shape [2, 5]; expected one "
                         "label per row",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(cross_entropy(logits, {0, 7}),
                         "zg::cross_entropy: label 7 of row 1 is out of range for 5 classes",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(cross_entropy(logits, {-1, 0}), doctest::Contains("label -1"),
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(cross_entropy(tensor::zeros({5}), {0}),
                         doctest::Contains("logits of shape [5]"), zg::shape_error);
    CHECK_THROWS_AS(cross_entropy(tensor::zeros({0, 5}), std::vector<int>{}), zg::shape_error);
}
