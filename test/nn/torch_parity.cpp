// Prints, as JSON with 17 significant digits, everything torch_parity.py needs to rebuild zg::nn's
// computations in PyTorch: make_moons data, the initial weights of micrograd-style networks, each
// loss and every parameter's gradient, and the parameters after a few optimizer steps; then the
// same for networks of zg::nn::linear layers on tensors, for the linear-algebra operations and for a
// Gaussian process's marginal likelihood.

#include <zerograd/nn.hpp>
#include <zerograd/tape.hpp>
#include <zerograd/tensor.hpp>

#if ZG_TENSOR_EIGEN // linear algebra needs Eigen
#include "models/gaussian_process.hpp"
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace {

const char* separator(std::size_t i) { return i == 0 ? "" : ", "; }

void print_numbers(std::span<const double> values) {
    std::printf("[");
    for (std::size_t i = 0; i < values.size(); ++i)
        std::printf("%s%.17g", separator(i), values[i]);
    std::printf("]");
}

std::vector<double> data_of(std::span<const zg::var> vars) {
    std::vector<double> out;
    for (const zg::var& v : vars)
        out.push_back(v.data());
    return out;
}

std::vector<double> grads_of(std::span<const zg::var> vars) {
    std::vector<double> out;
    for (const zg::var& v : vars)
        out.push_back(v.grad());
    return out;
}

const char* name_of(zg::nn::activation f) {
    switch (f) {
    case zg::nn::activation::relu:
        return "relu";
    case zg::nn::activation::tanh:
        return "tanh";
    case zg::nn::activation::sigmoid:
        return "sigmoid";
    case zg::nn::activation::linear:
        break;
    }
    return "linear";
}

constexpr double alpha = 1e-4; // L2 regularization, as micrograd's demo

// The loss `kind` of `model` over `data`, plus alpha times the sum of squared parameters.
zg::var loss_of(const std::string& kind, const zg::nn::mlp& model, const zg::nn::dataset& data) {
    const std::vector<zg::var> parameters = model.parameters();
    const zg::var l2 = zg::sum(parameters, [](const zg::var& p) { return p * p; });
    if (kind == "cross_entropy") {
        std::vector<std::vector<zg::var>> logits;
        for (const auto& x : data.x)
            logits.push_back(model(x));
        return zg::nn::cross_entropy(logits, data.labels) + alpha * l2;
    }
    std::vector<zg::var> scores;
    for (const auto& x : data.x)
        scores.push_back(model.scalar(x));
    if (kind == "mse") return zg::nn::mse(scores, data.labels) + alpha * l2;
    return zg::nn::hinge(scores, data.signs) + alpha * l2;
}

// One network, its loss and gradients, as a JSON object.
void print_case(const char* kind, const std::vector<std::size_t>& sizes, zg::nn::activation f,
                std::uint64_t seed, const zg::nn::dataset& data) {
    zg::nn::mlp model(2, sizes, f, seed);
    const std::vector<zg::var> parameters = model.parameters();
    zg::tape::scope step;
    const zg::var loss = loss_of(kind, model, data);
    loss.backward();
    std::printf("{\"loss\": \"%s\", \"activation\": \"%s\", \"sizes\": [", kind, name_of(f));
    for (std::size_t i = 0; i < sizes.size(); ++i)
        std::printf("%s%zu", separator(i), sizes[i]);
    std::printf("],\n  \"parameters\": ");
    print_numbers(data_of(parameters));
    std::printf(",\n  \"value\": %.17g,\n  \"grads\": ", loss.data());
    print_numbers(grads_of(parameters));
    std::printf("}");
}

// `steps` steps of an optimizer on the hinge loss of a relu 2-16-16-1 network, as a JSON object
// holding the final parameters; the initial ones are those of the first case (same seed).
template <class Optimizer, class Options>
void print_training(const char* name, const char* options_json, Options options,
                    const zg::nn::dataset& data) {
    zg::nn::mlp model(2, {16, 16, 1}, zg::nn::activation::relu, 1);
    Optimizer optimizer(model.parameters(), options);
    constexpr int steps = 5;
    for (int k = 0; k < steps; ++k) {
        zg::tape::scope step;
        const zg::var loss = loss_of("hinge", model, data);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
    }
    std::printf("{\"optimizer\": \"%s\", \"options\": %s, \"steps\": %d,\n  \"parameters\": ", name,
                options_json, steps);
    print_numbers(data_of(model.parameters()));
    std::printf("}");
}

// Each tensor as {"shape": [...], "values": [...]}, its data or (grads) its gradient.
void print_tensors(const std::vector<zg::tensor>& tensors, bool grads) {
    std::printf("[");
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        std::printf("%s{\"shape\": [", separator(t));
        for (std::size_t d = 0; d < tensors[t].rank(); ++d)
            std::printf("%s%zu", separator(d), tensors[t].shape()[d]);
        std::printf("], \"values\": ");
        print_numbers(grads ? tensors[t].grad() : tensors[t].data());
        std::printf("}");
    }
    std::printf("]");
}

// Linear layers of `sizes` on tensors, `between[l]` applied after layer l (none after the last),
// its cross-entropy on the batch and every gradient, as a JSON object.
void print_tensor_case(const std::vector<std::size_t>& sizes,
                       const std::vector<zg::nn::activation>& between, std::uint64_t seed,
                       const zg::tensor& x, const std::vector<int>& labels) {
    zg::nn::rng generator(seed);
    std::vector<zg::nn::linear> layers;
    std::vector<zg::tensor> parameters;
    for (std::size_t l = 0; l < sizes.size(); ++l) {
        layers.emplace_back(l == 0 ? 2 : sizes[l - 1], sizes[l], generator);
        parameters.push_back(layers.back().weight());
        parameters.push_back(layers.back().bias());
    }
    zg::tensor::scope step;
    zg::tensor h = layers[0](x);
    for (std::size_t l = 1; l < layers.size(); ++l)
        h = layers[l](zg::nn::detail::activate(between[l - 1], h));
    const zg::tensor loss = zg::nn::cross_entropy(h, labels);
    loss.backward();
    std::printf("{\"activations\": [");
    for (std::size_t l = 0; l < between.size(); ++l)
        std::printf("%s\"%s\"", separator(l), name_of(between[l]));
    std::printf("],\n  \"parameters\": ");
    print_tensors(parameters, false);
    std::printf(",\n  \"value\": %.17g,\n  \"grads\": ", loss.item());
    print_tensors(parameters, true);
    std::printf("}");
}

// `steps` steps of an optimizer on the cross-entropy of a relu mlp_t<zg::tensor> 2-16-16-2, as
// a JSON object holding the initial and final parameters.
template <class Optimizer, class Options>
void print_tensor_training(const char* name, const char* options_json, Options options,
                           const zg::tensor& x, const std::vector<int>& labels) {
    const zg::nn::mlp_t<zg::tensor> model(2, {16, 16, 2}, zg::nn::activation::relu, 5);
    std::printf("{\"optimizer\": \"%s\", \"options\": %s, \"steps\": 5,\n  \"initial\": ",
                name, options_json);
    print_tensors(model.parameters(), false);
    Optimizer optimizer(model.parameters(), options);
    for (int k = 0; k < 5; ++k) {
        zg::tensor::scope step;
        const zg::tensor loss = zg::nn::cross_entropy(model(x), labels);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
    }
    std::printf(",\n  \"parameters\": ");
    print_tensors(model.parameters(), false);
    std::printf("}");
}

#if ZG_TENSOR_EIGEN

/// A leaf holding t's values, with a gradient.
zg::tensor leaf_of(const zg::tensor& t) {
    return zg::tensor::from({t.data().begin(), t.data().end()}, t.shape(), true);
}

/// A batch of symmetric positive definite matrices M M^T + n I, of shape `shape` ([..., n, n]).
zg::tensor positive_definite(zg::tensor_shape shape, std::uint64_t seed) {
    const zg::tensor m = zg::tensor::randn(shape, seed);
    const auto md = m.data();
    const std::size_t n = shape[shape.rank() - 1];
    std::vector<double> values(m.numel());
    for (std::size_t b = 0; b < m.numel() / (n * n); ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double total = i == j ? static_cast<double>(n) : 0.0;
                for (std::size_t p = 0; p < n; ++p)
                    total += md[b * n * n + i * n + p] * md[b * n * n + j * n + p];
                values[b * n * n + i * n + j] = total;
            }
    return zg::tensor::from(values, shape, true);
}

// One operation of zg's linear algebra on `inputs`, reduced with fixed normal weights: the
// inputs, the weights, the value and every input's gradient, as a JSON object.
template <class Operation>
void print_linalg_case(const char* operation, const std::vector<zg::tensor>& inputs,
                       Operation f) {
    zg::tensor::scope step;
    const zg::tensor out = f(inputs);
    const zg::tensor weights = zg::tensor::randn(out.shape(), 99);
    const zg::tensor loss = sum(out * weights);
    loss.backward();
    std::printf("{\"operation\": \"%s\", \"inputs\": ", operation);
    print_tensors(inputs, false);
    std::printf(",\n  \"weights\": ");
    print_tensors({weights}, false);
    std::printf(",\n  \"value\": %.17g,\n  \"grads\": ", loss.item());
    print_tensors(inputs, true);
    std::printf("}");
}

#endif // ZG_TENSOR_EIGEN

} // namespace

int main() {
    const zg::nn::dataset data = zg::nn::make_moons(100, 0.1, 1);
    std::printf("{\"alpha\": %.17g,\n\"x\": [", alpha);
    for (std::size_t i = 0; i < data.size(); ++i)
        std::printf("%s[%.17g, %.17g]", separator(i), data.x[i][0], data.x[i][1]);
    std::printf("],\n\"labels\": [");
    for (std::size_t i = 0; i < data.size(); ++i)
        std::printf("%s%d", separator(i), data.labels[i]);
    std::printf("],\n\"cases\": [\n");
    using zg::nn::activation;
    print_case("hinge", {16, 16, 1}, activation::relu, 1, data);
    std::printf(",\n");
    print_case("mse", {16, 16, 1}, activation::tanh, 2, data);
    std::printf(",\n");
    print_case("cross_entropy", {16, 16, 2}, activation::relu, 3, data);
    std::printf(",\n");
    print_case("cross_entropy", {8, 3}, activation::sigmoid, 4, data);
    std::printf("],\n\"training\": [\n");
    print_training<zg::nn::sgd>(
        "sgd", R"({"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.001})",
        zg::nn::sgd_options{
            .learning_rate = 0.1, .momentum = 0.9, .dampening = 0.1, .weight_decay = 1e-3},
        data);
    std::printf(",\n");
    print_training<zg::nn::sgd>(
        "sgd", R"({"lr": 0.05, "momentum": 0.8, "nesterov": true})",
        zg::nn::sgd_options{.learning_rate = 0.05, .momentum = 0.8, .nesterov = true}, data);
    std::printf(",\n");
    print_training<zg::nn::adam>("adam", R"({"lr": 0.01, "weight_decay": 0.01})",
                                 zg::nn::adam_options{.learning_rate = 0.01, .weight_decay = 0.01},
                                 data);
    std::printf(",\n");
    print_training<zg::nn::adam>("adam", "{}", zg::nn::adam_options{}, data);

    const zg::tensor x = zg::nn::to_tensor(data);
    std::printf("],\n\"tensor_cases\": [\n");
    print_tensor_case({16, 16, 2}, {activation::tanh, activation::relu}, 6, x, data.labels);
    std::printf(",\n");
    print_tensor_case({32, 2}, {activation::sigmoid}, 7, x, data.labels);
    std::printf("],\n\"tensor_training\": [\n");
    print_tensor_training<zg::nn::adam_t<zg::tensor>>(
        "adam", R"({"lr": 0.01, "weight_decay": 0.01})",
        zg::nn::adam_options{.learning_rate = 0.01, .weight_decay = 0.01}, x, data.labels);
    std::printf(",\n");
    print_tensor_training<zg::nn::sgd_t<zg::tensor>>(
        "sgd", R"({"lr": 0.1, "momentum": 0.9})",
        zg::nn::sgd_options{.learning_rate = 0.1, .momentum = 0.9}, x, data.labels);

#if ZG_TENSOR_EIGEN
    std::printf("],\n\"linalg_cases\": [\n");
    const auto solve_of = [](const std::vector<zg::tensor>& in) { return solve(in[0], in[1]); };
    const auto one = [](auto operation) {
        return [operation](const std::vector<zg::tensor>& in) { return operation(in[0]); };
    };
    print_linalg_case("solve", {leaf_of(zg::tensor::randn({4, 4}, 11)),
                                leaf_of(zg::tensor::randn({4, 3}, 12))},
                      solve_of);
    std::printf(",\n");
    print_linalg_case("solve", {positive_definite({2, 3, 3}, 13), leaf_of(zg::tensor::randn({2, 3}, 14))},
                      solve_of);
    std::printf(",\n");
    print_linalg_case("inverse", {leaf_of(zg::tensor::randn({4, 4}, 15))},
                      one([](const zg::tensor& a) { return inverse(a); }));
    std::printf(",\n");
    print_linalg_case("inverse", {leaf_of(zg::tensor::randn({2, 3, 3}, 16))},
                      one([](const zg::tensor& a) { return inverse(a); }));
    std::printf(",\n");
    print_linalg_case("cholesky", {positive_definite({5, 5}, 17)},
                      one([](const zg::tensor& a) { return cholesky(a); }));
    std::printf(",\n");
    print_linalg_case("cholesky", {positive_definite({2, 3, 3}, 18)},
                      one([](const zg::tensor& a) { return cholesky(a); }));
    std::printf(",\n");
    print_linalg_case("logdet", {positive_definite({5, 5}, 19)},
                      one([](const zg::tensor& a) { return logdet(a); }));
    std::printf(",\n");
    print_linalg_case("logdet", {positive_definite({2, 3, 3}, 20)},
                      one([](const zg::tensor& a) { return logdet(a); }));

    // A Gaussian process on 50 noisy points of a sine: the likelihood's gradient by the length
    // scale and the signal and noise variances.
    const std::size_t points = 50;
    std::vector<double> xs(points), ys(points);
    const zg::tensor noise = zg::tensor::randn({points}, 21);
    for (std::size_t i = 0; i < points; ++i) {
        xs[i] = 5.0 * static_cast<double>(i) / static_cast<double>(points - 1);
        ys[i] = std::sin(xs[i]) + 0.1 * noise.data()[i];
    }
    const zg::tensor gp_x = zg::tensor::from(xs, {points}), gp_y = zg::tensor::from(ys, {points});
    const std::vector<zg::tensor> hyperparameters = {zg::tensor::from({0.8}, {}, true),
                                                     zg::tensor::from({1.3}, {}, true),
                                                     zg::tensor::from({0.05}, {}, true)};
    const zg::tensor nll = models::gaussian_process::negative_log_likelihood(
        gp_x, gp_y, hyperparameters[0], hyperparameters[1], hyperparameters[2]);
    nll.backward();
    std::printf("],\n\"gaussian_process\": {\"x\": ");
    print_numbers(gp_x.data());
    std::printf(",\n  \"y\": ");
    print_numbers(gp_y.data());
    std::printf(",\n  \"hyperparameters\": ");
    print_tensors(hyperparameters, false);
    std::printf(",\n  \"value\": %.17g,\n  \"grads\": ", nll.item());
    print_tensors(hyperparameters, true);
    std::printf("}}\n");
#else
    std::printf("]}\n");
#endif
}
