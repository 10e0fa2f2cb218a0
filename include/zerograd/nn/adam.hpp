// zerograd/nn/adam.hpp: Adam with PyTorch's defaults and PyTorch's exact, bias-corrected update.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/nn/parameter.hpp"
#include "zerograd/nn/var_or_tensor.hpp"
#include "zerograd/tape/var.hpp"
#include "zerograd/tensor/tensor.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace zg::nn {

/// Settings of adam, with torch.optim.Adam's defaults; all may be changed between steps through
/// `options()`.
struct adam_options {
    double learning_rate = 1e-3;
    double beta1 = 0.9;   // decay of the mean of gradients
    double beta2 = 0.999; // decay of the mean of squared gradients
    double eps = 1e-8;
    double weight_decay = 0; // L2 added to the gradient (Adam's, not AdamW's decoupled decay)
};

/// Adam over parameters of type P (zg::var, zg::tensor, any trainable type). At step t, as
/// PyTorch computes it:
///
///     g = grad + weight_decay * p
///     m = beta1 * m + (1 - beta1) * g
///     v = beta2 * v + (1 - beta2) * g * g
///     p -= (learning_rate / (1 - beta1^t)) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
///
/// (eps is added after the bias correction of v, as PyTorch does, not before.) The moments are
/// allocated when the optimizer is made, so step() and zero_grad() allocate nothing.
///
///     zg::nn::adam optimizer(model.parameters(), {.learning_rate = 0.01});
template <trainable P>
class adam_t {
public:
    using parameter_type = P;

    /// Throws zg::error naming the setting and its value for a learning rate, eps or weight decay
    /// that is negative, infinite or NaN, or a beta outside [0, 1); step() checks them again.
    explicit adam_t(std::vector<P> parameters, adam_options options = {})
        : parameters_(std::move(parameters)), options_(options), m_(parameters_.element_count()),
          v_(m_.size()) {
        check(options_);
    }
    /// Default options but the learning rate, as `torch.optim.Adam(params, lr)`.
    adam_t(std::vector<P> parameters, double learning_rate)
        : adam_t(std::move(parameters), adam_options{.learning_rate = learning_rate}) {}

    /// Updates every parameter from its gradient.
    void step() {
        check(options_);
        const adam_options o = options_;
        ++steps_;
        const double t = static_cast<double>(steps_);
        const double step_size = o.learning_rate / (1 - std::pow(o.beta1, t));
        const double correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, t));
        parameters_.update_each([&](double& value, double g, std::size_t k) {
            if (o.weight_decay != 0) g = g + o.weight_decay * value;
            m_[k] = m_[k] * o.beta1 + (1 - o.beta1) * g;
            v_[k] = v_[k] * o.beta2 + (1 - o.beta2) * g * g;
            const double denominator = std::sqrt(v_[k]) / correction2_sqrt + o.eps;
            // Grouped as PyTorch's addcdiv computes it, so both give the same doubles.
            value = value + -step_size * m_[k] / denominator;
        });
    }

    /// Sets every parameter's gradient to zero.
    void zero_grad() { parameters_.zero_grad(); }

    /// How many steps have been taken (t in the bias corrections).
    std::int64_t steps() const { return steps_; }
    adam_options& options() { return options_; }
    const adam_options& options() const { return options_; }
    std::span<const P> parameters() const { return parameters_.get(); }

private:
    static void check(const adam_options& o) {
        constexpr std::string_view who = "zg::nn::adam";
        zg::detail::require_finite_non_negative(who, "learning_rate", o.learning_rate);
        zg::detail::require_finite_non_negative(who, "eps", o.eps);
        zg::detail::require_finite_non_negative(who, "weight_decay", o.weight_decay);
        zg::detail::require_setting(o.beta1 >= 0 && o.beta1 < 1, who, "beta1", o.beta1,
                                    "in [0, 1)");
        zg::detail::require_setting(o.beta2 >= 0 && o.beta2 < 1, who, "beta2", o.beta2,
                                    "in [0, 1)");
    }

    detail::parameter_list<P> parameters_;
    adam_options options_;
    std::vector<double> m_; // first moments, one per parameter value
    std::vector<double> v_; // second moments
    std::int64_t steps_ = 0;
};

/// adam over a model's parameters, zg::var (micrograd's mlp) or zg::tensor (linear,
/// mlp_t<zg::tensor>): `zg::nn::adam optimizer(model.parameters(), {.learning_rate = 0.01})`.
using adam = detail::var_or_tensor_optimizer<adam_t<var>, adam_t<tensor>, adam_options>;

} // namespace zg::nn
