// bench/models/gaussian_process.hpp: the negative log marginal likelihood of a Gaussian process
// with a squared-exponential kernel, on tensors, as a user writes it:
//
//   K_ij = signal exp(-(x_i - x_j)^2 / (2 length^2)) + noise [i == j]
//   nll = 1/2 y^T K^-1 y + 1/2 log det K + n/2 log(2 pi)
//
// with one solve and one log-determinant, each differentiated at the matrix level. The
// hyperparameters (length scale, signal and noise variances) are one-element tensors.
#pragma once

#include <zerograd/tensor.hpp>

#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

namespace models::gaussian_process {

/// The kernel matrix of points x (shape [n]) with the noise variance on its diagonal.
inline zg::tensor kernel(const zg::tensor& x, const zg::tensor& length, const zg::tensor& signal,
                         const zg::tensor& noise) {
    const std::size_t n = x.numel();
    const zg::tensor difference = reshape(x, {n, 1}) - reshape(x, {1, n});
    const zg::tensor identity = zg::tensor::from(
        [&] {
            std::vector<double> values(n * n, 0.0);
            for (std::size_t i = 0; i < n; ++i)
                values[i * n + i] = 1.0;
            return values;
        }(),
        {n, n});
    return signal * exp(-square(difference) / (2.0 * square(length))) + noise * identity;
}

/// -log p(y | x, length, signal, noise), a one-element tensor.
inline zg::tensor negative_log_likelihood(const zg::tensor& x, const zg::tensor& y,
                                          const zg::tensor& length, const zg::tensor& signal,
                                          const zg::tensor& noise) {
    const zg::tensor k = kernel(x, length, signal, noise);
    const double n = static_cast<double>(x.numel());
    return 0.5 * sum(y * solve(k, y)) + 0.5 * logdet(k) +
           0.5 * n * std::log(2.0 * std::numbers::pi);
}

} // namespace models::gaussian_process
