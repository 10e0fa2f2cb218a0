// bench/models/normal_likelihood.hpp: the negative log-likelihood of data under a normal
// distribution, -sum log N(x_i | mu, sigma) without the constant, over one shard of the data as
// zg::parallel::value_and_grad_sum takes it: parameters mu and log sigma as tape variables, the
// points in a std::vector, a loop of tape-mode operations as a user writes it.
#pragma once

#include <zerograd/tape.hpp>

#include <cstddef>
#include <random>
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

/// 1,000,000 draws of N(1.5, 2^2) in `count` shards of equal size, the same on every run and in
/// every process.
inline std::vector<std::vector<double>> draws(std::size_t count) {
    std::mt19937_64 generator(11);
    std::normal_distribution<double> draw(1.5, 2.0);
    std::vector<std::vector<double>> out(count, std::vector<double>(1'000'000 / count));
    for (auto& shard : out)
        for (double& x : shard)
            x = draw(generator);
    return out;
}

} // namespace models::normal_likelihood
