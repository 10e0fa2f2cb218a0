// zerograd/nn/linear.hpp: networks on tensors, a batch at a time: linear (x W + b) and
// mlp_t<zg::tensor>, a stack of linear layers, initialized as PyTorch's nn.Linear.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/nn/datasets.hpp"
#include "zerograd/nn/mlp.hpp" // activation, mlp_t
#include "zerograd/nn/random.hpp"
#include "zerograd/tensor.hpp"

#include <cmath> // sqrt: the initialization bound
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility> // move
#include <vector>

namespace zg::nn {

/// A fully connected layer on tensors: y = x W + b, for x of shape [batch, inputs] (or [inputs]),
/// W of shape [inputs, outputs] and b of shape [outputs], broadcast over the batch. W and b are
/// drawn as PyTorch's nn.Linear draws them, uniformly from [-1/sqrt(inputs), 1/sqrt(inputs)),
/// W row by row, then b. (W is PyTorch's weight transposed, so that the forward pass is one
/// matmul with no transpose.)
///
/// W and b are tensors with requires_grad, made on the calling thread's tensor tape when the
/// layer is made: make layers before (outside) the zg::tensor::scope of a training step. Copying a
/// layer copies handles, so both copies name the same parameters.
///
///     zg::nn::linear layer(2, 16, 7);
///     zg::tensor h = layer(zg::tensor::ones({100, 2})); // shape [100, 16]
class linear : public detail::model_parameters<linear, tensor> {
public:
    /// A layer of `inputs` by `outputs` weights and `outputs` biases drawn from `generator`.
    linear(std::size_t inputs, std::size_t outputs, rng& generator)
        : weight_(draw({inputs, outputs}, inputs, generator)),
          bias_(draw({outputs}, inputs, generator)) {}
    /// The same, from a temporary generator.
    linear(std::size_t inputs, std::size_t outputs, rng&& generator)
        : linear(inputs, outputs, generator) {}
    /// The same, drawn from a generator seeded with `seed`.
    linear(std::size_t inputs, std::size_t outputs, std::uint64_t seed = default_seed)
        : linear(inputs, outputs, rng(seed)) {}

    /// x W + b. Throws zg::shape_error unless x's last axis has `inputs()` elements. (A template
    /// only so that a program that never calls it does not compile the matrix product's kernels.)
    template <class = void>
    tensor operator()(const tensor& x) const {
        const tensor_shape& shape = x.shape();
        if (shape.rank() == 0 || shape[shape.rank() - 1] != inputs())
            throw shape_error("zg::nn::linear: an input of shape " + shape.to_string() +
                              " given to a layer of " + std::to_string(inputs()) +
                              " inputs (its last axis must have " + std::to_string(inputs()) + ")");
        return matmul(x, weight_) + bias_;
    }

    const tensor& weight() const { return weight_; }
    const tensor& bias() const { return bias_; }
    std::size_t inputs() const { return weight_.shape()[0]; }
    std::size_t outputs() const { return weight_.shape()[1]; }

    /// Calls fn on each parameter in order: W, then b.
    template <class Fn>
    void for_each_parameter(Fn&& fn) const {
        fn(weight_);
        fn(bias_);
    }

private:
    static tensor draw(const tensor_shape& shape, std::size_t inputs, rng& generator) {
        zg::detail::require_setting(inputs > 0, "zg::nn::linear", "inputs", inputs, "at least 1");
        const std::size_t outputs = shape[shape.rank() - 1];
        zg::detail::require_setting(outputs > 0, "zg::nn::linear", "outputs", outputs,
                                    "at least 1");
        const double bound = 1.0 / std::sqrt(static_cast<double>(inputs));
        tensor t = tensor::zeros(shape, true);
        for (double& value : t.data())
            value = generator.uniform(-bound, bound);
        return t;
    }

    tensor weight_;
    tensor bias_;
};

/// A multilayer perceptron on tensors: linear layers of the given sizes, the hidden ones followed
/// by `hidden` (relu by default), the last one not, so that it gives logits or scores for a whole
/// batch in one call. Layers are drawn in order from one generator, so a seed fixes the network.
///
///     zg::nn::mlp_t<zg::tensor> model(2, {16, 16, 2}, zg::nn::activation::relu, 42);
///     zg::tensor logits = model(x);                        // x: [batch, 2] -> [batch, 2]
///     zg::tensor loss = zg::nn::cross_entropy(logits, labels);
template <>
class mlp_t<tensor> : public detail::model_parameters<mlp_t<tensor>, tensor> {
public:
    /// A network taking `inputs` features through layers of `sizes` outputs each.
    mlp_t(std::size_t inputs, const std::vector<std::size_t>& sizes, activation hidden,
          rng& generator)
        : hidden_(hidden) {
        detail::check_sizes(inputs, sizes);
        layers_.reserve(sizes.size());
        for (std::size_t i = 0; i < sizes.size(); ++i)
            layers_.emplace_back(i == 0 ? inputs : sizes[i - 1], sizes[i], generator);
    }
    /// The same, from a temporary generator.
    mlp_t(std::size_t inputs, const std::vector<std::size_t>& sizes, activation hidden,
          rng&& generator)
        : mlp_t(inputs, sizes, hidden, generator) {}
    /// The same, drawn from a generator seeded with `seed`.
    mlp_t(std::size_t inputs, const std::vector<std::size_t>& sizes,
          activation hidden = activation::relu, std::uint64_t seed = default_seed)
        : mlp_t(inputs, sizes, hidden, rng(seed)) {}

    /// The last layer's outputs for a batch x of shape [batch, inputs()] (or one sample of shape
    /// [inputs()]). Throws zg::shape_error for another number of features. (A template as
    /// linear's.)
    template <class = void>
    tensor operator()(const tensor& x) const {
        tensor h = layers_.front()(x);
        for (std::size_t i = 1; i < layers_.size(); ++i)
            h = layers_[i](detail::activate(hidden_, h));
        return h;
    }

    std::span<const linear> layers() const { return layers_; }
    activation nonlinearity() const { return hidden_; }
    std::size_t inputs() const { return layers_.front().inputs(); }
    std::size_t outputs() const { return layers_.back().outputs(); }

    /// Calls fn on each parameter in order: layer by layer, W then b.
    template <class Fn>
    void for_each_parameter(Fn&& fn) const {
        for (const linear& l : layers_)
            l.for_each_parameter(fn);
    }

private:
    activation hidden_;
    std::vector<linear> layers_;
};

/// A dataset's points as a constant tensor of shape [n, 2], a batch for mlp_t<zg::tensor>.
///
///     auto data = zg::nn::make_moons(100, 0.1, 1);
///     zg::tensor logits = model(zg::nn::to_tensor(data)); // [100, outputs]
inline tensor to_tensor(const dataset& data) {
    std::vector<double> values;
    values.reserve(2 * data.size());
    for (const auto& point : data.x)
        values.insert(values.end(), point.begin(), point.end());
    return tensor::from(std::move(values), {data.size(), 2});
}

} // namespace zg::nn
