// zg::nn::linear and mlp_t<zg::tensor>: PyTorch's initialization, outputs by hand, agreement with
// micrograd's scalar mlp given the same weights (outputs, losses, gradients), the tensor losses,
// shape errors, and a two-moons training loop that allocates nothing once warm.
#include <zerograd/nn.hpp>

#include "allocation_counter.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

using zg::tensor;
using zg::nn::activation;

namespace {

bool close(double a, double b, double relative = 1e-12) {
    return std::abs(a - b) <= relative * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

/// A tensor mlp holding the weights of a scalar one: neuron j of layer l gives column j of W_l
/// (its weights) and element j of b_l (its bias).
zg::nn::mlp_t<tensor> copy_of(const zg::nn::mlp& scalar) {
    std::vector<std::size_t> sizes;
    for (const zg::nn::layer& l : scalar.layers())
        sizes.push_back(l.outputs());
    const activation hidden = scalar.layers().front().neurons().front().nonlinearity();
    zg::nn::mlp_t<tensor> model(scalar.inputs(), sizes, hidden);
    for (std::size_t l = 0; l < sizes.size(); ++l) {
        const zg::nn::linear& layer = model.layers()[l];
        const auto neurons = scalar.layers()[l].neurons();
        for (std::size_t j = 0; j < neurons.size(); ++j) {
            for (std::size_t i = 0; i < layer.inputs(); ++i)
                layer.weight().data()[i * layer.outputs() + j] = neurons[j].weights()[i].data();
            layer.bias().data()[j] = neurons[j].bias().data();
        }
    }
    return model;
}

} // namespace

TEST_CASE("linear: PyTorch's initialization, x W + b, shapes") {
    const zg::nn::linear layer(4, 3, 7);
    CHECK(layer.weight().shape() == std::vector<std::size_t>{4, 3});
    CHECK(layer.bias().shape() == std::vector<std::size_t>{3});
    CHECK(layer.parameter_count() == 15);
    CHECK(layer.parameters().size() == 2);

    SUBCASE("uniform in [-1/sqrt(inputs), 1/sqrt(inputs)), W then b from one seeded generator") {
        zg::nn::rng generator(7);
        for (double w : layer.weight().data())
            CHECK(w == generator.uniform(-0.5, 0.5));
        for (double b : layer.bias().data())
            CHECK(b == generator.uniform(-0.5, 0.5));
    }
    SUBCASE("a batch and a single sample") {
        const tensor x = tensor::from({1, 2, 3, 4, -1, 0, 0.5, 2}, {2, 4});
        const tensor y = layer(x);
        REQUIRE(y.shape() == std::vector<std::size_t>{2, 3});
        const auto w = layer.weight().data(), b = layer.bias().data(), xs = x.data();
        for (std::size_t r = 0; r < 2; ++r)
            for (std::size_t j = 0; j < 3; ++j) {
                double expected = b[j];
                for (std::size_t i = 0; i < 4; ++i)
                    expected += xs[r * 4 + i] * w[i * 3 + j];
                CHECK(close(y.data()[r * 3 + j], expected));
            }
        const tensor one = layer(tensor::from({1, 2, 3, 4}, {4}));
        REQUIRE(one.shape() == std::vector<std::size_t>{3});
        for (std::size_t j = 0; j < 3; ++j)
            CHECK(one.data()[j] == y.data()[j]);
    }
    SUBCASE("a wrong number of features names the layer and the shape") {
        try {
            (void)layer(tensor::ones({2, 5}));
            FAIL("no shape_error");
        } catch (const zg::shape_error& e) {
            const std::string message = e.what();
            CHECK(message.find("zg::nn::linear") != std::string::npos);
            CHECK(message.find("[2, 5]") != std::string::npos);
            CHECK(message.find("4 inputs") != std::string::npos);
        }
    }
    SUBCASE("a layer or network with an empty side is refused") {
        CHECK_THROWS_WITH_AS(zg::nn::linear(0, 3),
                             "zg::nn::linear: inputs is 0; it must be at least 1", zg::error);
        CHECK_THROWS_WITH_AS(zg::nn::linear(3, 0),
                             "zg::nn::linear: outputs is 0; it must be at least 1", zg::error);
        CHECK_THROWS_WITH_AS(zg::nn::mlp_t<tensor>(2, {0, 1}),
                             "zg::nn::mlp: the size of layer 0 is 0; it must be at least 1",
                             zg::error);
    }
}

TEST_CASE("mlp_t<tensor> agrees with micrograd's scalar mlp given the same weights") {
    const zg::nn::dataset data = zg::nn::make_moons(20, 0.1, 3);
    const tensor x = zg::nn::to_tensor(data);
    REQUIRE(x.shape() == std::vector<std::size_t>{20, 2});

    for (const activation hidden : {activation::relu, activation::tanh, activation::sigmoid}) {
        CAPTURE(static_cast<int>(hidden));
        SUBCASE("cross_entropy over a batch of logits") {
            const zg::nn::mlp scalar(2, {8, 6, 3}, hidden, 5);
            const zg::nn::mlp_t<tensor> model = copy_of(scalar);
            CHECK(model.parameter_count() == scalar.parameter_count());
            std::vector<int> labels;
            for (std::size_t i = 0; i < data.size(); ++i)
                labels.push_back(static_cast<int>(i % 3));

            zg::tape::scope scalar_step;
            std::vector<std::vector<zg::var>> logits;
            for (const auto& point : data.x)
                logits.push_back(scalar(point));
            const zg::var expected = zg::nn::cross_entropy(logits, labels);
            expected.backward();

            tensor::scope tensor_step;
            const tensor out = model(x);
            for (std::size_t i = 0; i < data.size(); ++i)
                for (std::size_t j = 0; j < 3; ++j)
                    CHECK(close(out.data()[i * 3 + j], logits[i][j].data()));
            const tensor loss = zg::nn::cross_entropy(out, labels);
            loss.backward();
            CHECK(close(loss.item(), expected.data()));

            for (std::size_t l = 0; l < 3; ++l) {
                const zg::nn::linear& layer = model.layers()[l];
                const auto neurons = scalar.layers()[l].neurons();
                for (std::size_t j = 0; j < neurons.size(); ++j) {
                    for (std::size_t i = 0; i < layer.inputs(); ++i)
                        CHECK(close(layer.weight().grad()[i * layer.outputs() + j],
                                    neurons[j].weights()[i].grad()));
                    CHECK(close(layer.bias().grad()[j], neurons[j].bias().grad()));
                }
            }
        }
        SUBCASE("hinge and mse on one score per sample") {
            const zg::nn::mlp scalar(2, {6, 1}, hidden, 9);
            const zg::nn::mlp_t<tensor> model = copy_of(scalar);
            zg::tape::scope scalar_step;
            std::vector<zg::var> scores;
            for (const auto& point : data.x)
                scores.push_back(scalar.scalar(point));
            tensor::scope tensor_step;
            const tensor out = model(x); // [20, 1]
            CHECK(close(zg::nn::hinge(out, data.signs).item(),
                        zg::nn::hinge(scores, data.signs).data()));
            const zg::var mse = zg::nn::mse(scores, data.labels);
            const tensor tensor_mse = zg::nn::mse(out, data.labels);
            CHECK(close(tensor_mse.item(), mse.data()));
            mse.backward();
            tensor_mse.backward();
            const zg::nn::linear& first = model.layers()[0];
            const auto neurons = scalar.layers()[0].neurons();
            for (std::size_t j = 0; j < neurons.size(); ++j)
                CHECK(close(first.bias().grad()[j], neurons[j].bias().grad()));
        }
    }
}

TEST_CASE("tensor losses: values by hand and clear errors") {
    const tensor p = tensor::from({0.5, -2.0, 3.0}, {3, 1}, true);
    CHECK(zg::nn::mse(p, std::vector<double>{1, -2, 1}).item() == doctest::Approx((0.25 + 4) / 3));
    CHECK(zg::nn::mse(p, tensor::from({1, -2, 1}, {3, 1})).item() ==
          doctest::Approx((0.25 + 4) / 3));
    // relu(1 - 0.5) + relu(1 - 2) + relu(1 + 3) over 3
    CHECK(zg::nn::hinge(p, std::vector<int>{1, -1, -1}).item() == doctest::Approx(4.5 / 3));
    CHECK(zg::nn::cross_entropy(tensor::from({1000, 0, 0, 1000}, {2, 2}), {0, 0}).item() ==
          doctest::Approx(500));

    // [3, 1] against [3] would broadcast to [3, 3]: refused, not silently averaged.
    CHECK_THROWS_AS(zg::nn::mse(p, tensor::from({1, 2, 3}, {3})), zg::shape_error);
    CHECK_THROWS_AS(zg::nn::mse(p, std::vector<double>{1, 2}), zg::shape_error);
    CHECK_THROWS_AS(zg::nn::hinge(p, std::vector<int>{1, 0, 1}), zg::error);
    CHECK_THROWS_AS(zg::nn::hinge(p, std::vector<int>{1}), zg::shape_error);
    CHECK_THROWS_AS(zg::nn::cross_entropy(p, {0, 0, 1}), zg::error); // label 1 of 1 class
}

TEST_CASE("losses called unqualified after `using namespace zg::nn`") {
    using namespace zg::nn;
    const tensor logits = tensor::from({2.0, 0.0, 0.0, 1.0}, {2, 2});
    const std::vector<int> labels{0, 1};
    // Argument-dependent lookup finds zg::cross_entropy as well: one function, not two.
    const double expected = (std::log(1 + std::exp(-2.0)) + std::log(1 + std::exp(-1.0))) / 2;
    CHECK(cross_entropy(logits, labels).item() == doctest::Approx(expected).epsilon(1e-15));
    CHECK(cross_entropy(logits, {0, 1}).item() == doctest::Approx(expected).epsilon(1e-15));
    CHECK(mse(logits, std::vector<double>{2, 0, 0, 1}).item() == 0.0);
}

TEST_CASE("two moons on tensors: adam to 100% training accuracy, nothing allocated once warm") {
    const zg::nn::dataset data = zg::nn::make_moons(100, 0.1, 1);
    const tensor x = zg::nn::to_tensor(data);
    const zg::nn::mlp_t<tensor> model(2, {16, 16, 2}, activation::relu, 1);
    zg::nn::adam_t optimizer(model.parameters(), {.learning_rate = 0.02}); // deduced
    static_assert(std::is_same_v<decltype(optimizer), zg::nn::adam_t<tensor>>);

    long allocations_after_warm_up = 0;
    double loss = 0;
    for (int step = 0; step < 300; ++step) {
        if (step == 10) allocations_after_warm_up = test::allocation_count();
        tensor::scope step_scope;
        const tensor l = zg::nn::cross_entropy(model(x), data.labels);
        optimizer.zero_grad();
        l.backward();
        optimizer.step();
        loss = l.item();
    }
    CHECK(test::allocation_count() == allocations_after_warm_up);
    CHECK(loss < 0.05);

    tensor::scope prediction;
    const tensor logits = model(x);
    int correct = 0;
    for (std::size_t i = 0; i < data.size(); ++i) {
        const int predicted = logits.data()[2 * i + 1] > logits.data()[2 * i] ? 1 : 0;
        correct += predicted == data.labels[i];
    }
    CHECK(correct == 100);
}

TEST_CASE("a model made inside a scope loses its parameters with it") {
    std::vector<tensor> lost;
    {
        tensor::scope step;
        lost = zg::nn::mlp_t<tensor>(2, {4, 1}).parameters();
    }
    CHECK_THROWS_AS((void)lost.front().data(), zg::dangling_var);
}

TEST_CASE("zg::nn::sgd and zg::nn::adam take tensor parameters, and a bare learning rate") {
    const zg::nn::linear layer(3, 2, 4);
    const tensor x = tensor::from({0.5, -1, 2, 1, 0, -0.5}, {2, 3});
    const auto loss_of = [&] { return zg::nn::cross_entropy(layer(x), {0, 1}); };
    const std::vector<double> w0(layer.weight().data().begin(), layer.weight().data().end());

    SUBCASE("sgd: p -= learning_rate * grad") {
        zg::nn::sgd optimizer(layer.parameters(), 0.5);
        CHECK(optimizer.options().learning_rate == 0.5);
        tensor::scope step;
        optimizer.zero_grad();
        loss_of().backward();
        const std::vector<double> g(layer.weight().grad().begin(), layer.weight().grad().end());
        optimizer.step();
        for (std::size_t i = 0; i < w0.size(); ++i)
            CHECK(layer.weight().data()[i] == w0[i] - 0.5 * g[i]);
        CHECK(optimizer.as<tensor>().parameters().size() == 2);
    }
    SUBCASE("adam: the first step moves each weight by the learning rate against its gradient") {
        zg::nn::adam optimizer(layer.parameters(), {.learning_rate = 0.01});
        tensor::scope step;
        optimizer.zero_grad();
        loss_of().backward();
        const std::vector<double> g(layer.weight().grad().begin(), layer.weight().grad().end());
        optimizer.step();
        for (std::size_t i = 0; i < w0.size(); ++i) // m / sqrt(v) is sign(g) at step 1
            CHECK(layer.weight().data()[i] ==
                  doctest::Approx(w0[i] - 0.01 * (g[i] > 0 ? 1 : -1)).epsilon(1e-6));
    }
    SUBCASE("the same names on zg::var parameters") {
        const zg::var p = 2.0;
        zg::nn::sgd optimizer({p}, 0.25);
        p.grad() = 4.0;
        optimizer.step();
        CHECK(p.data() == 1.0);
        zg::nn::adam adam({p}, 0.125);
        CHECK(adam.options().learning_rate == 0.125);
        CHECK(adam.options().beta1 == 0.9);
    }
}
