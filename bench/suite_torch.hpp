// bench/suite_torch.hpp: what bench/suite.cpp and its libtorch translation unit share: the
// gradient function type, the cases' data, and the libtorch modes by case name.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

/// A value-and-gradient function: returns f(x) and writes the gradient into g.
using gradient_function = std::function<double(std::span<const double>, std::vector<double>&)>;

/// The regression case's data: X (rows of n columns, row-major) and y.
struct regression_arrays {
    std::vector<double> X, y;
};

/// The constants and data of the cases that have any.
struct torch_data {
    double normal_mu, normal_sigma, normal_constant;
    std::function<const regression_arrays&(std::size_t n)> regression;
    std::function<const std::vector<double>&(std::size_t n)> volatility; // y_t^2
};

/// Each case's gradient in libtorch, by case name (bench/suite_torch.cpp).
std::map<std::string, gradient_function> libtorch_modes(const torch_data& data);
