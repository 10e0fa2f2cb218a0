// test/tensor/gradient_check.hpp: a tensor function's gradient against central finite differences.
// The output is reduced with fixed random weights (not a plain sum), so a gradient that ignores
// which output element it came from (a wrong broadcast reduction, a transposed matmul) shows.
#pragma once

#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace tensor_test {

/// One input of the function under test: its values and shape.
struct input {
    std::vector<double> values;
    zg::tensor_shape shape;
};

using tensor_function = std::function<zg::tensor(const std::vector<zg::tensor>&)>;

/// |a - b| within `tolerance` relative to the larger magnitude (absolute below 1).
inline bool close(double a, double b, double tolerance) {
    if (a == b) return true;
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

/// sum(f(inputs) * w) for constant inputs (no gradient recorded), reclaimed at once.
inline double weighted_value(const tensor_function& f, const std::vector<input>& inputs,
                             const zg::tensor& weights) {
    zg::tensor::scope scope;
    std::vector<zg::tensor> constants;
    for (const input& in : inputs)
        constants.push_back(zg::tensor::from(in.values, in.shape));
    return sum(f(constants) * weights).item();
}

/// Checks every element's gradient of every input against central differences with a step
/// relative to the element's size.
inline void check_gradients(const tensor_function& f, std::vector<input> inputs,
                            double tolerance = 1e-6) {
    zg::tensor::scope scope;
    std::vector<zg::tensor> leaves;
    for (const input& in : inputs)
        leaves.push_back(zg::tensor::from(in.values, in.shape, true));
    const zg::tensor out = f(leaves);
    const zg::tensor weights = zg::tensor::randn(out.shape(), 1234);
    sum(out * weights).backward();
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        for (std::size_t i = 0; i < inputs[k].values.size(); ++i) {
            const double x = inputs[k].values[i];
            const double h = 1e-6 * std::max(1.0, std::abs(x));
            inputs[k].values[i] = x + h;
            const double up = weighted_value(f, inputs, weights);
            inputs[k].values[i] = x - h;
            const double down = weighted_value(f, inputs, weights);
            inputs[k].values[i] = x;
            const double numeric = (up - down) / (2 * h);
            const double analytic = leaves[k].grad()[i];
            INFO("input ", k, " element ", i, ": analytic ", analytic, ", numeric ", numeric);
            CHECK(close(analytic, numeric, tolerance));
        }
    }
}

} // namespace tensor_test
