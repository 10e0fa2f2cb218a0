// zerograd/nn/mlp.hpp: micrograd's neuron, layer and multilayer perceptron on zg::var, with
// seeded initialization and each model's parameters() and zero_grad().
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/nn/parameter.hpp"
#include "zerograd/nn/random.hpp"
#include "zerograd/tape/var.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace zg::nn {

/// The function a neuron applies to its weighted sum. micrograd's neurons use relu, except the
/// last layer's, which are linear.
enum class activation { linear, relu, tanh, sigmoid };

namespace detail {

/// f(x) for a zg::var or, element by element, a zg::tensor (the functions found by ADL).
template <class T>
T activate(activation f, const T& x) {
    switch (f) {
    case activation::relu:
        return relu(x);
    case activation::tanh:
        return tanh(x);
    case activation::sigmoid:
        return sigmoid(x);
    case activation::linear:
        break;
    }
    return x;
}

inline void check_inputs(const char* who, std::size_t given, std::size_t expected) {
    if (given != expected)
        throw shape_error(std::string("zg::nn::") + who + ": " + std::to_string(given) +
                          " inputs given to a model of " + std::to_string(expected));
}

/// Refuses a network with no layers, no inputs or an empty layer, naming the offending size.
inline void check_sizes(std::size_t inputs, const std::vector<std::size_t>& sizes) {
    if (sizes.empty()) throw shape_error("zg::nn::mlp: no layer sizes given");
    zg::detail::require_setting(inputs > 0, "zg::nn::mlp", "the number of inputs", inputs,
                                "at least 1");
    for (std::size_t i = 0; i < sizes.size(); ++i)
        zg::detail::require_setting(sizes[i] > 0, "zg::nn::mlp",
                                    "the size of layer " + std::to_string(i), sizes[i],
                                    "at least 1");
}

} // namespace detail

/// A multilayer perceptron whose parameters are of type Parameter: zg::var (below, micrograd's
/// MLP, also named `mlp`) or zg::tensor (zerograd/nn/linear.hpp).
template <class Parameter>
class mlp_t;

/// micrograd's Neuron: f(b + w . x) with weights drawn uniformly from [-1, 1) and bias 0.
///
/// The weights and bias are zg::var leaves recorded on the calling thread's tape when the neuron
/// is made, so make models before (outside) the zg::tape::scope of a training step: the step's
/// graph is then reclaimed while the parameters live on. Copying a neuron copies handles, so
/// both copies name the same parameters (as two references to one micrograd Neuron would).
///
///     zg::nn::rng generator(1);
///     zg::nn::neuron n(2, zg::nn::activation::tanh, generator);
///     zg::var y = n({0.5, -1.0}); // tanh(b + w0 * 0.5 - w1)
class neuron : public detail::model_parameters<neuron, var> {
public:
    /// A neuron of `inputs` weights drawn from `generator`.
    neuron(std::size_t inputs, activation f, rng& generator) : f_(f), bias_(0.0) {
        weights_.reserve(inputs);
        for (std::size_t i = 0; i < inputs; ++i)
            weights_.emplace_back(generator.uniform(-1.0, 1.0));
    }
    /// The same, from a temporary generator.
    neuron(std::size_t inputs, activation f, rng&& generator) : neuron(inputs, f, generator) {}
    /// A neuron whose weights are drawn from a generator seeded with `seed`.
    explicit neuron(std::size_t inputs, activation f = activation::relu,
                    std::uint64_t seed = default_seed)
        : neuron(inputs, f, rng(seed)) {}

    /// f(b + sum_i w_i x_i), summed in micrograd's order (bias first).
    var operator()(std::span<const var> x) const { return evaluate(x); }
    /// The same with constant inputs (data): they become no leaves, and each product records
    /// one operand instead of two.
    var operator()(std::span<const double> x) const { return evaluate(x); }
    var operator()(std::initializer_list<double> x) const {
        return evaluate(std::span<const double>(x.begin(), x.size()));
    }

    std::span<const var> weights() const { return weights_; }
    const var& bias() const { return bias_; }
    activation nonlinearity() const { return f_; }
    std::size_t inputs() const { return weights_.size(); }

    /// Calls fn on each parameter in order: the weights, then the bias (micrograd's order).
    template <class Fn>
    void for_each_parameter(Fn&& fn) const {
        for (const var& w : weights_)
            fn(w);
        fn(bias_);
    }

private:
    template <class X>
    var evaluate(std::span<const X> x) const {
        detail::check_inputs("neuron", x.size(), weights_.size());
        var sum = bias_;
        for (std::size_t i = 0; i < weights_.size(); ++i)
            sum = sum + weights_[i] * x[i];
        return detail::activate(f_, sum);
    }

    activation f_;
    std::vector<var> weights_;
    var bias_;
};

/// micrograd's Layer: `outputs` neurons that all see the same inputs.
///
///     zg::nn::layer l(2, 16, zg::nn::activation::relu, 7);
///     std::vector<zg::var> h = l({1.0, 2.0}); // 16 values
class layer : public detail::model_parameters<layer, var> {
public:
    /// `outputs` neurons of `inputs` weights each, drawn neuron by neuron from `generator`.
    layer(std::size_t inputs, std::size_t outputs, activation f, rng& generator) {
        neurons_.reserve(outputs);
        for (std::size_t i = 0; i < outputs; ++i)
            neurons_.emplace_back(inputs, f, generator);
    }
    /// The same, from a temporary generator.
    layer(std::size_t inputs, std::size_t outputs, activation f, rng&& generator)
        : layer(inputs, outputs, f, generator) {}
    /// The same, drawn from a generator seeded with `seed`.
    layer(std::size_t inputs, std::size_t outputs, activation f = activation::relu,
          std::uint64_t seed = default_seed)
        : layer(inputs, outputs, f, rng(seed)) {}

    /// Every neuron's output, in order.
    std::vector<var> operator()(std::span<const var> x) const { return evaluate(x); }
    std::vector<var> operator()(std::span<const double> x) const { return evaluate(x); }
    std::vector<var> operator()(std::initializer_list<double> x) const {
        return evaluate(std::span<const double>(x.begin(), x.size()));
    }

    std::span<const neuron> neurons() const { return neurons_; }
    std::size_t inputs() const { return neurons_.empty() ? 0 : neurons_.front().inputs(); }
    std::size_t outputs() const { return neurons_.size(); }

    /// Calls fn on each parameter in order: each neuron's parameters in turn.
    template <class Fn>
    void for_each_parameter(Fn&& fn) const {
        for (const neuron& n : neurons_)
            n.for_each_parameter(fn);
    }

private:
    template <class X>
    std::vector<var> evaluate(std::span<const X> x) const {
        detail::check_inputs("layer", x.size(), inputs());
        std::vector<var> out;
        out.reserve(neurons_.size());
        for (const neuron& n : neurons_)
            out.push_back(n(x));
        return out;
    }

    std::vector<neuron> neurons_;
};

/// micrograd's MLP: layers of the given sizes, the hidden ones applying `hidden` (relu by
/// default), the last one linear. Weights are drawn layer by layer, neuron by neuron, from one
/// generator, so a seed fixes the whole network.
///
///     zg::nn::mlp model(2, {16, 16, 1}, zg::nn::activation::relu, 42);
///     model.parameter_count();              // 337 = 16*3 + 16*17 + 17
///     zg::var score = model.scalar({0.5, 1.0});
///
/// `mlp` is `mlp_t<zg::var>`; `mlp_t<zg::tensor>` (zerograd/nn/linear.hpp) is the same network on
/// tensors, a batch at a time.
template <>
class mlp_t<var> : public detail::model_parameters<mlp_t<var>, var> {
public:
    /// A network taking `inputs` values through layers of `sizes` neurons each.
    mlp_t(std::size_t inputs, const std::vector<std::size_t>& sizes, activation hidden,
          rng& generator) {
        detail::check_sizes(inputs, sizes);
        layers_.reserve(sizes.size());
        for (std::size_t i = 0; i < sizes.size(); ++i)
            layers_.emplace_back(i == 0 ? inputs : sizes[i - 1], sizes[i],
                                 i + 1 < sizes.size() ? hidden : activation::linear, generator);
    }
    /// The same, from a temporary generator.
    mlp_t(std::size_t inputs, const std::vector<std::size_t>& sizes, activation hidden,
          rng&& generator)
        : mlp_t(inputs, sizes, hidden, generator) {}
    /// The same, drawn from a generator seeded with `seed`.
    mlp_t(std::size_t inputs, const std::vector<std::size_t>& sizes,
          activation hidden = activation::relu, std::uint64_t seed = default_seed)
        : mlp_t(inputs, sizes, hidden, rng(seed)) {}

    /// The last layer's outputs.
    std::vector<var> operator()(std::span<const var> x) const { return evaluate(x); }
    /// The same with constant inputs (data, usually): no leaves are recorded for them.
    std::vector<var> operator()(std::span<const double> x) const { return evaluate(x); }
    std::vector<var> operator()(std::initializer_list<double> x) const {
        return evaluate(std::span<const double>(x.begin(), x.size()));
    }
    /// Anything else, a zg::tensor say, is refused with a message.
    template <class X>
        requires(!std::is_convertible_v<const X&, std::span<const var>> &&
                 !std::is_convertible_v<const X&, std::span<const double>>)
    std::vector<var> operator()(const X&) const {
        static_assert(!std::is_same_v<X, X>,
                      "zg::nn::mlp: this network computes on zg::var, given a range of zg::var "
                      "or of double; for a batch in a zg::tensor, make a "
                      "zg::nn::mlp_t<zg::tensor> (zerograd/nn/linear.hpp)");
        return {};
    }

    /// The single output of a network whose last layer has one neuron (micrograd's MLP returns
    /// it unwrapped); throws zg::shape_error if the last layer is wider.
    var scalar(std::span<const var> x) const { return only((*this)(x)); }
    var scalar(std::span<const double> x) const { return only((*this)(x)); }
    var scalar(std::initializer_list<double> x) const { return only((*this)(x)); }

    std::span<const layer> layers() const { return layers_; }
    std::size_t inputs() const { return layers_.front().inputs(); }
    std::size_t outputs() const { return layers_.back().outputs(); }

    /// Calls fn on each parameter in order: layer by layer, each neuron's weights then its bias.
    template <class Fn>
    void for_each_parameter(Fn&& fn) const {
        for (const layer& l : layers_)
            l.for_each_parameter(fn);
    }

private:
    template <class X>
    std::vector<var> evaluate(std::span<const X> x) const {
        detail::check_inputs("mlp", x.size(), inputs());
        std::vector<var> out = layers_.front()(x);
        for (std::size_t i = 1; i < layers_.size(); ++i)
            out = layers_[i](out);
        return out;
    }

    static var only(const std::vector<var>& out) {
        if (out.size() != 1)
            throw shape_error("zg::nn::mlp::scalar: the network has " + std::to_string(out.size()) +
                              " outputs, not 1");
        return out.front();
    }

    std::vector<layer> layers_;
};

/// micrograd's MLP on zg::var, the common case.
using mlp = mlp_t<var>;

} // namespace zg::nn
