// zerograd/nn/sgd.hpp: stochastic gradient descent with momentum, dampening, Nesterov momentum and
// weight decay, updating exactly as PyTorch's torch.optim.SGD does.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/nn/parameter.hpp"
#include "zerograd/nn/var_or_tensor.hpp"
#include "zerograd/tape/var.hpp"
#include "zerograd/tensor/tensor.hpp"

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace zg::nn {

/// Settings of sgd, named as PyTorch names them; all may be changed between steps through
/// `options()` (a learning-rate schedule, say).
struct sgd_options {
    double learning_rate = 1e-3; // PyTorch's default since 2.2
    double momentum = 0;
    double dampening = 0;
    double weight_decay = 0; // L2: adds weight_decay * p to each gradient
    bool nesterov = false;
};

/// Stochastic gradient descent over parameters of type P (zg::var, zg::tensor, any trainable
/// type), PyTorch's update: with g = grad + weight_decay * p, the buffer b = g at the first step
/// and b = momentum * b + (1 - dampening) * g after; then p -= learning_rate * d with d = b, or d =
/// g + momentum * b with Nesterov, or d = g without momentum.
///
/// The momentum buffers are allocated when the optimizer is made, so step() and zero_grad()
/// allocate nothing. The optimizer keeps copies of the handles, which name the model's own
/// parameters.
///
///     zg::nn::sgd optimizer(model.parameters(), {.learning_rate = 0.1, .momentum = 0.9});
///     optimizer.zero_grad();
///     loss.backward();
///     optimizer.step();
template <trainable P>
class sgd_t {
public:
    using parameter_type = P;

    /// Throws zg::error naming the setting and its value for one that is negative, infinite or
    /// NaN, or for Nesterov without momentum or with dampening; step() checks them again.
    explicit sgd_t(std::vector<P> parameters, sgd_options options = {})
        : parameters_(std::move(parameters)), options_(options),
          buffers_(parameters_.element_count()) {
        check(options_);
    }
    /// Default options but the learning rate, as `torch.optim.SGD(params, lr)`.
    sgd_t(std::vector<P> parameters, double learning_rate)
        : sgd_t(std::move(parameters), sgd_options{.learning_rate = learning_rate}) {}

    /// Updates every parameter from its gradient.
    void step() {
        check(options_);
        const sgd_options o = options_;
        parameters_.update_each([&](double& value, double g, std::size_t k) {
            if (o.weight_decay != 0) g = g + o.weight_decay * value;
            if (o.momentum != 0) {
                double& b = buffers_[k];
                b = started_ ? b * o.momentum + (1 - o.dampening) * g : g;
                g = o.nesterov ? g + o.momentum * b : b;
            }
            value = value + -o.learning_rate * g;
        });
        if (o.momentum != 0) started_ = true;
    }

    /// Sets every parameter's gradient to zero.
    void zero_grad() { parameters_.zero_grad(); }

    sgd_options& options() { return options_; }
    const sgd_options& options() const { return options_; }
    std::span<const P> parameters() const { return parameters_.get(); }

private:
    static void check(const sgd_options& o) {
        constexpr std::string_view who = "zg::nn::sgd";
        zg::detail::require_finite_non_negative(who, "learning_rate", o.learning_rate);
        zg::detail::require_finite_non_negative(who, "momentum", o.momentum);
        zg::detail::require_finite_non_negative(who, "dampening", o.dampening);
        zg::detail::require_finite_non_negative(who, "weight_decay", o.weight_decay);
        if (o.nesterov) {
            zg::detail::require_setting(o.momentum > 0, who, "momentum", o.momentum,
                                        "> 0 for Nesterov momentum");
            zg::detail::require_setting(o.dampening == 0, who, "dampening", o.dampening,
                                        "0 for Nesterov momentum");
        }
    }

    detail::parameter_list<P> parameters_;
    sgd_options options_;
    std::vector<double> buffers_; // one momentum buffer per parameter value
    bool started_ = false;        // whether the buffers hold a first gradient
};

/// sgd over a model's parameters, zg::var (micrograd's mlp) or zg::tensor (linear,
/// mlp_t<zg::tensor>): `zg::nn::sgd optimizer(model.parameters(), {.learning_rate = 0.01})`.
using sgd = detail::var_or_tensor_optimizer<sgd_t<var>, sgd_t<tensor>, sgd_options>;

} // namespace zg::nn
