// XOR with a 2-4-4-1 network of zg::var, as micrograd-style tutorials train it: neurons, layers,
// an MLP, mean squared error and plain gradient descent, with each step's graph reclaimed by a
// scope.
#include <zerograd/tape.hpp>

#include <cstdio>
#include <random>
#include <span>
#include <vector>

namespace {

std::mt19937 generator(42);
double uniform(double low, double high) { // from the raw bits, so every platform draws the same
    return low + (high - low) * (generator() / 4294967296.0);
}

struct neuron {
    std::vector<zg::var> weights;
    zg::var bias = 0.0;
    bool nonlinear;

    neuron(std::size_t inputs, bool nonlinear) : nonlinear(nonlinear) {
        for (std::size_t i = 0; i < inputs; ++i)
            weights.emplace_back(uniform(-1, 1));
    }
    zg::var operator()(std::span<const zg::var> x) const {
        zg::var activation = bias;
        for (std::size_t i = 0; i < weights.size(); ++i)
            activation += weights[i] * x[i];
        return nonlinear ? tanh(activation) : activation;
    }
};

struct layer {
    std::vector<neuron> neurons;
    layer(std::size_t inputs, std::size_t outputs, bool nonlinear) {
        for (std::size_t i = 0; i < outputs; ++i)
            neurons.emplace_back(inputs, nonlinear);
    }
    std::vector<zg::var> operator()(std::span<const zg::var> x) const {
        std::vector<zg::var> out;
        for (const auto& n : neurons)
            out.push_back(n(x));
        return out;
    }
};

struct mlp {
    std::vector<layer> layers;
    mlp(std::size_t inputs, std::vector<std::size_t> sizes) {
        for (std::size_t i = 0; i < sizes.size(); ++i)
            layers.emplace_back(i == 0 ? inputs : sizes[i - 1], sizes[i], i + 1 < sizes.size());
    }
    zg::var operator()(std::vector<zg::var> x) const {
        for (const auto& l : layers)
            x = l(x);
        return x[0];
    }
    std::vector<zg::var> parameters() const {
        std::vector<zg::var> all;
        for (const auto& l : layers)
            for (const auto& n : l.neurons) {
                all.insert(all.end(), n.weights.begin(), n.weights.end());
                all.push_back(n.bias);
            }
        return all;
    }
};

} // namespace

int main() {
    const double inputs[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    const double targets[4] = {0, 1, 1, 0};
    const mlp model(2, {4, 4, 1});
    const auto parameters = model.parameters();
    std::printf("parameters: %zu\n", parameters.size());

    double loss_value = 0;
    for (int step = 0; step <= 500; ++step) {
        zg::tape::scope step_scope; // the step's graph is reclaimed at the end of each pass
        zg::var loss = 0.0;
        for (int i = 0; i < 4; ++i)
            loss += square(model({inputs[i][0], inputs[i][1]}) - targets[i]);
        loss /= 4.0;
        for (const auto& p : parameters)
            p.grad() = 0;
        loss.backward();
        for (const auto& p : parameters)
            p.data() -= 0.1 * p.grad();
        loss_value = loss.data();
        if (step % 100 == 0) std::printf("step %3d  loss %.6f\n", step, loss_value);
    }
    for (int i = 0; i < 4; ++i) {
        zg::tape::scope prediction_scope;
        std::printf("%g xor %g = %.4f (target %g)\n", inputs[i][0], inputs[i][1],
                    model({inputs[i][0], inputs[i][1]}).data(), targets[i]);
    }
    std::printf("final loss below 0.01: %s\n", loss_value < 0.01 ? "yes" : "no");
}
