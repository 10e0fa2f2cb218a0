// zerograd/nn/var_or_tensor.hpp: var_or_tensor_optimizer, what makes zg::nn::sgd and zg::nn::adam
// take either a model's zg::var parameters or its zg::tensor parameters.
#pragma once

#include "zerograd/tape/var.hpp"
#include "zerograd/tensor/tensor.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace zg::nn::detail {

/// An optimizer over zg::var parameters (ForVars) or over zg::tensor parameters (ForTensors),
/// chosen by the vector it is given, so that `zg::nn::sgd optimizer(model.parameters())` works
/// for micrograd's mlp and for mlp_t<zg::tensor> alike. Each step goes to the one it holds.
template <class ForVars, class ForTensors, class Options>
class var_or_tensor_optimizer {
public:
    var_or_tensor_optimizer(std::vector<var> parameters, Options options = {})
        : optimizer_(std::in_place_index<0>, std::move(parameters), options) {}
    var_or_tensor_optimizer(std::vector<tensor> parameters, Options options = {})
        : optimizer_(std::in_place_index<1>, std::move(parameters), options) {}
    /// Default options but the learning rate, as `torch.optim.SGD(params, lr)`.
    var_or_tensor_optimizer(std::vector<var> parameters, double learning_rate)
        : optimizer_(std::in_place_index<0>, std::move(parameters), learning_rate) {}
    var_or_tensor_optimizer(std::vector<tensor> parameters, double learning_rate)
        : optimizer_(std::in_place_index<1>, std::move(parameters), learning_rate) {}

    /// Updates every parameter from its gradient.
    void step() {
        std::visit([](auto& optimizer) { optimizer.step(); }, optimizer_);
    }
    /// Sets every parameter's gradient to zero.
    void zero_grad() {
        std::visit([](auto& optimizer) { optimizer.zero_grad(); }, optimizer_);
    }
    Options& options() {
        return std::visit([](auto& optimizer) -> Options& { return optimizer.options(); },
                          optimizer_);
    }
    const Options& options() const {
        return std::visit(
            [](const auto& optimizer) -> const Options& { return optimizer.options(); },
            optimizer_);
    }

    /// How many steps have been taken: adam's t, in its bias corrections.
    std::int64_t steps() const requires requires(const ForVars& optimizer) { optimizer.steps(); }
    {
        return std::visit([](const auto& optimizer) { return optimizer.steps(); }, optimizer_);
    }

    /// The optimizer for one parameter type, say to read its parameters() or adam's steps().
    template <class P>
    auto& as() {
        static_assert(std::is_same_v<P, var> || std::is_same_v<P, tensor>,
                      "zg::nn optimizer as<P>(): P is zg::var or zg::tensor");
        constexpr std::size_t index = std::is_same_v<P, var> ? 0 : 1;
        return std::get<index>(optimizer_);
    }

private:
    std::variant<ForVars, ForTensors> optimizer_;
};

} // namespace zg::nn::detail
