// zg::nn::neuron, layer and mlp: parameter counts and order, seeded initialization, outputs
// computed by hand, shape errors, zero_grad, and parameters that outlive a step's scope.
#include <zerograd/nn/mlp.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using zg::nn::activation;

TEST_CASE("parameter counts") {
    CHECK(zg::nn::neuron(2).parameters().size() == 3);
    CHECK(zg::nn::layer(2, 16).parameters().size() == 48);
    const zg::nn::mlp model(2, {16, 16, 1});
    CHECK(model.parameters().size() == 337); // 16 * 3 + 16 * 17 + 1 * 17
    CHECK(model.parameter_count() == 337);
    CHECK(zg::nn::mlp(2, {4, 4, 1}).parameter_count() == 37); // micrograd's XOR network
    CHECK(model.inputs() == 2);
    CHECK(model.outputs() == 1);
    CHECK(model.layers().size() == 3);
}

TEST_CASE("for_each_parameter walks the parameters in parameters()' order") {
    const zg::nn::mlp model(3, {4, 2}, activation::tanh, 5);
    const std::vector<zg::var> listed = model.parameters();
    std::vector<const double*> walked;
    model.for_each_parameter([&](const zg::var& p) { walked.push_back(&p.data()); });
    REQUIRE(walked.size() == 26); // 4 * 4 + 2 * 5
    for (std::size_t i = 0; i < walked.size(); ++i)
        CHECK(walked[i] == &listed[i].data()); // the same variable, not an equal value
    const zg::nn::neuron n(2, activation::linear, 5);
    std::vector<double> values;
    n.for_each_parameter([&](const zg::var& p) { values.push_back(p.data()); });
    CHECK(values == std::vector<double>{n.weights()[0].data(), n.weights()[1].data(), 0.0});
}

TEST_CASE("initialization: micrograd's uniform(-1, 1) weights and zero biases, from a seed") {
    const zg::nn::mlp a(2, {16, 16, 1}, activation::relu, 7),
        b(2, {16, 16, 1}, activation::relu, 7);
    const zg::nn::mlp c(2, {16, 16, 1}, activation::relu, 8);
    const auto pa = a.parameters(), pb = b.parameters(), pc = c.parameters();
    int differ = 0;
    for (std::size_t i = 0; i < pa.size(); ++i) {
        CHECK(pa[i].data() == pb[i].data());
        CHECK(pa[i].data() >= -1);
        CHECK(pa[i].data() < 1);
        differ += pa[i].data() != pc[i].data();
    }
    CHECK(differ == 337 - 33); // every weight; the 33 biases are 0 in both

    SUBCASE("drawn layer by layer, neuron by neuron, weight by weight from one generator") {
        zg::nn::rng generator(7);
        for (const auto& l : a.layers())
            for (const auto& n : l.neurons()) {
                for (const auto& w : n.weights())
                    CHECK(w.data() == generator.uniform(-1, 1));
                CHECK(n.bias().data() == 0);
            }
    }
    SUBCASE("parameters() lists each neuron's weights, then its bias") {
        const auto& first = a.layers()[0].neurons()[0];
        CHECK(pa[0].index() == first.weights()[0].index());
        CHECK(pa[1].index() == first.weights()[1].index());
        CHECK(pa[2].index() == first.bias().index());
        CHECK(pa[336].index() == a.layers()[2].neurons()[0].bias().index());
    }
    SUBCASE("hidden layers use the activation given, the last layer is linear") {
        CHECK(a.layers()[0].neurons()[0].nonlinearity() == activation::relu);
        CHECK(a.layers()[1].neurons()[5].nonlinearity() == activation::relu);
        CHECK(a.layers()[2].neurons()[0].nonlinearity() == activation::linear);
        const zg::nn::mlp t(3, {2, 2}, activation::tanh);
        CHECK(t.layers()[0].neurons()[1].nonlinearity() == activation::tanh);
        CHECK(t.layers()[1].neurons()[1].nonlinearity() == activation::linear);
    }
}

TEST_CASE("outputs by hand") {
    zg::nn::rng generator(3);
    const zg::nn::neuron n(2, activation::tanh, generator);
    n.bias().data() = 0.25;
    const double w0 = n.weights()[0].data(), w1 = n.weights()[1].data();
    const double expected = std::tanh(0.25 + w0 * 0.5 + w1 * -2.0);

    SUBCASE("a neuron, on numbers and on variables") {
        CHECK(n({0.5, -2.0}).data() == expected);
        const std::vector<double> numbers{0.5, -2.0};
        CHECK(n(numbers).data() == expected);
        const std::vector<zg::var> vars{0.5, -2.0};
        const zg::var y = n(vars);
        CHECK(y.data() == expected);
        y.backward();
        CHECK(vars[0].grad() == doctest::Approx((1 - expected * expected) * w0));
        CHECK(n.weights()[1].grad() == doctest::Approx((1 - expected * expected) * -2.0));
        CHECK(n.bias().grad() == doctest::Approx(1 - expected * expected));
    }
    SUBCASE("activations") {
        const zg::nn::neuron r(1, activation::relu, 1), s(1, activation::sigmoid, 1);
        const zg::nn::neuron l(1, activation::linear, 1);
        const double w = r.weights()[0].data();
        CHECK(r({2.0}).data() == std::max(0.0, 2 * w));
        CHECK(r({-2.0}).data() == std::max(0.0, -2 * w));
        CHECK(s({2.0}).data() == doctest::Approx(1 / (1 + std::exp(-2 * w))));
        CHECK(l({2.0}).data() == 2 * w);
    }
    SUBCASE("an mlp is its layers composed") {
        const zg::nn::mlp model(2, {3, 2}, activation::relu, 11);
        const auto& hidden = model.layers()[0];
        const auto& last = model.layers()[1];
        const std::vector<zg::var> h = hidden({0.3, -0.7});
        const std::vector<zg::var> by_layers = last(h);
        const std::vector<zg::var> out = model({0.3, -0.7});
        REQUIRE(out.size() == 2);
        CHECK(out[0].data() == by_layers[0].data());
        CHECK(out[1].data() == by_layers[1].data());
        double manual = last.neurons()[1].bias().data();
        for (std::size_t j = 0; j < 3; ++j)
            manual += last.neurons()[1].weights()[j].data() * h[j].data();
        CHECK(out[1].data() == doctest::Approx(manual));
        CHECK_THROWS_AS(model.scalar({0.3, -0.7}), zg::shape_error);
    }
}

TEST_CASE("shape errors") {
    const zg::nn::mlp model(2, {4, 1});
    CHECK_THROWS_WITH_AS(model({1.0, 2.0, 3.0}), doctest::Contains("3 inputs"), zg::shape_error);
    CHECK_THROWS_AS(zg::nn::neuron(2)({1.0}), zg::shape_error);
    CHECK_THROWS_WITH_AS(zg::nn::layer(3, 2)({1.0, 2.0}),
                         "zg::nn::layer: 2 inputs given to a model of 3", zg::shape_error);
    CHECK_THROWS_AS(zg::nn::mlp(2, {}), zg::shape_error);
    CHECK_THROWS_WITH_AS(zg::nn::mlp(2, {0, 1}),
                         "zg::nn::mlp: the size of layer 0 is 0; it must be at least 1", zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::mlp(2, {4, 0}), doctest::Contains("the size of layer 1 is 0"),
                         zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::mlp(0, {1}),
                         "zg::nn::mlp: the number of inputs is 0; it must be at least 1",
                         zg::error);
}

TEST_CASE("zero_grad clears every parameter's gradient, at every level") {
    zg::nn::mlp model(2, {4, 4, 1}, activation::tanh, 5);
    const auto parameters = model.parameters();
    {
        zg::tape::scope step;
        model.scalar({1.0, -1.0}).backward();
    }
    int nonzero = 0;
    for (const auto& p : parameters)
        nonzero += p.grad() != 0;
    CHECK(nonzero == 37);
    model.zero_grad();
    for (const auto& p : parameters)
        CHECK(p.grad() == 0);
}

TEST_CASE("parameters outlive a step's scope; a model made inside one does not") {
    const zg::nn::mlp model(2, {4, 1}, activation::relu, 2);
    double first = 0;
    {
        zg::tape::scope step;
        first = model.scalar({0.5, 0.5}).data();
    }
    {
        zg::tape::scope step;
        CHECK(model.scalar({0.5, 0.5}).data() == first);
    }
    std::vector<zg::var> lost;
    {
        zg::tape::scope step;
        lost = zg::nn::mlp(2, {4, 1}).parameters();
    }
    CHECK_THROWS_AS(lost[0].data(), zg::dangling_var);
}
