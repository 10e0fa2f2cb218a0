// bench/models/normal_likelihood.hpp: the negative log-likelihood of data under a normal
// distribution, -sum log N(x_i | mu, sigma) without the constant, over one shard of the data as
// zg::parallel::value_and_grad_sum takes it: parameters mu and log sigma as tape variables, the
// points in a std::vector, a loop of tape-mode operations as a user writes it.
#pragma once

#include <zerograd/tape.hpp>

#include <span>
#include <vector>

namespace models::normal_likelihood {

inline const auto shard_nll = [](std::span<const zg::var> p, const std::vector<double>& xs) {
    const zg::var mu = p[0], log_sigma = p[1];
    const zg::var inverse_sigma = exp(-log_sigma);
    zg::var total = 0.0;
    for (double x : xs)
        total += 0.5 * square((x - mu) * inverse_sigma) + log_sigma;
    return total;
};

} // namespace models::normal_likelihood
