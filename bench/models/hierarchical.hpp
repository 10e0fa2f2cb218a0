// bench/models/hierarchical.hpp: a hierarchical normal model, the everyday shape of applied
// statistics: n observations in G groups, y_i ~ Normal(mu[g_i], exp(log_sigma[g_i])), the
// group means drawn from mu[g] ~ Normal(0, tau), log tau a parameter with a flat prior. Written
// as a user writes it in expression mode (a sum over the observations that indexes the groups'
// parameters, a named intermediate), as a loop for the scalar modes, and its gradient by hand.
// The point holds mu (G), log_sigma (G) and log_tau in a row.
#pragma once

#include "random.hpp"

#include <zerograd/expr.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <vector>

namespace models::hierarchical {

struct problem {
    std::size_t groups = 0;
    std::vector<double> y;
    std::vector<std::size_t> group; // of each observation
};

/// n observations spread over `groups` groups in turn, y in [-1, 2) (random.hpp).
inline problem make(std::size_t n, std::size_t groups, std::uint64_t seed = 1) {
    uniform_numbers uniform{seed};
    problem p{groups, {}, {}};
    for (std::size_t i = 0; i < n; ++i) {
        p.y.push_back(3 * uniform() - 1);
        p.group.push_back((i * 7) % groups);
    }
    return p;
}

inline std::vector<double> point(const problem& p) {
    std::vector<double> x;
    for (std::size_t g = 0; g < p.groups; ++g)
        x.push_back(0.1 * double(g) - 0.3); // mu
    for (std::size_t g = 0; g < p.groups; ++g)
        x.push_back(0.05 * double(g) - 0.2); // log_sigma
    x.push_back(0.4);                        // log_tau
    return x;
}

/// The log density as a user writes it in expression mode, by (mu, log_sigma, log_tau).
inline auto expression_objective(const problem& p) {
    return [&p](const auto& mu, const auto& log_sigma, auto log_tau) {
        const auto likelihood =
            zg::sum(std::views::iota(std::size_t{0}, p.y.size()), [&](std::size_t i) {
                const auto sigma = exp(log_sigma[p.group[i]]);
                return -0.5 * square((p.y[i] - mu[p.group[i]]) / sigma) - log(sigma);
            });
        const auto tau = exp(log_tau);
        const auto prior = zg::sum(std::views::iota(std::size_t{0}, p.groups),
                                   [&](std::size_t g) { return -0.5 * square(mu[g] / tau); });
        return likelihood + prior - double(p.groups) * log_tau;
    };
}

/// The same over scalars of any mode: v holds the point.
template <class T>
T loop_objective(std::span<const T> v, const problem& p) {
    using std::exp, std::log;
    const std::size_t groups = p.groups;
    T total = 0.0;
    for (std::size_t i = 0; i < p.y.size(); ++i) {
        const std::size_t g = p.group[i];
        const T sigma = exp(v[groups + g]);
        const T z = (p.y[i] - v[g]) / sigma;
        total += -0.5 * z * z - log(sigma);
    }
    const T tau = exp(v[2 * groups]);
    for (std::size_t g = 0; g < groups; ++g) {
        const T z = v[g] / tau;
        total += -0.5 * z * z;
    }
    return T(total - double(groups) * v[2 * groups]);
}

/// The value and, in g, the gradient, by hand: one pass over the observations.
inline double gradient(std::span<const double> x, std::vector<double>& g, const problem& p) {
    const std::size_t groups = p.groups;
    std::fill(g.begin(), g.end(), 0.0);
    double* dmu = g.data();
    double* dlog_sigma = dmu + groups;
    double total = 0;
    for (std::size_t i = 0; i < p.y.size(); ++i) {
        const std::size_t k = p.group[i];
        const double inverse = std::exp(-x[groups + k]);
        const double z = (p.y[i] - x[k]) * inverse;
        total += -0.5 * z * z - x[groups + k];
        dmu[k] += z * inverse;
        dlog_sigma[k] += z * z - 1;
    }
    const double inverse_tau = std::exp(-x[2 * groups]);
    double dlog_tau = -double(groups);
    for (std::size_t k = 0; k < groups; ++k) {
        const double z = x[k] * inverse_tau;
        total += -0.5 * z * z;
        dmu[k] -= z * inverse_tau;
        dlog_tau += z * z;
    }
    g[2 * groups] = dlog_tau;
    return total - double(groups) * x[2 * groups];
}

} // namespace models::hierarchical
