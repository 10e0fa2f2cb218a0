// bench/models/kalman.hpp: a local-level Kalman filter, the recurrence of state-space models:
// observations y_t of a random walk m_t with noise variance r, whose steps have variance q. The
// filter's state is the mean and variance of m_t given y_0..y_t:
//
//   predicted = p + q,   gain = predicted / (predicted + r)
//   m' = m + gain (y_t - m),   p' = (1 - gain) predicted,   from m_0 = y_0, p_0 = q + 1
//
// and the objective sums every state's mean and log variance. Written as a user writes it in
// expression mode (a zg::scan whose state is a (mean, variance) tuple), as a loop for the
// scalar modes, and its gradient by hand. The point is (q, r).
#pragma once

#include "random.hpp"

#include <zerograd/expr.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

namespace models::kalman {

struct problem {
    std::vector<double> y;
};

/// n observations of a random walk, steps in [-0.5, 0.5) (random.hpp).
inline problem make(std::size_t n, std::uint64_t seed = 1) {
    uniform_numbers uniform{seed};
    problem p;
    double level = 0;
    for (std::size_t t = 0; t < n; ++t) {
        level += uniform() - 0.5;
        p.y.push_back(level + 0.3 * (uniform() - 0.5));
    }
    return p;
}

inline std::vector<double> point() { return {0.5, 1.0}; }

/// The objective as a user writes it in expression mode, by (q, r).
inline auto expression_objective(const problem& p) {
    return [&p](auto q, auto r) {
        auto [mean, variance] = zg::scan(
            p.y, [&](auto y0) { return std::tuple{y0, q + 1.0}; },
            [&](auto previous, auto yt) {
                auto [m, v] = previous;
                auto predicted = v + q;
                auto gain = predicted / (predicted + r);
                return std::tuple{m + gain * (yt - m), (1 - gain) * predicted};
            });
        return zg::sum(mean) + zg::sum(log(variance));
    };
}

/// The same over scalars of any mode: v holds (q, r).
template <class T>
T loop_objective(std::span<const T> v, const problem& p) {
    using std::log;
    const T& q = v[0];
    const T& r = v[1];
    T m = p.y[0], variance = q + 1.0, total = m + log(variance);
    for (std::size_t t = 1; t < p.y.size(); ++t) {
        const T predicted = variance + q;
        const T gain = predicted / (predicted + r);
        m = m + gain * (p.y[t] - m);
        variance = (1 - gain) * predicted;
        total += m + log(variance);
    }
    return total;
}

/// The value and, in g, the gradient, by hand: the filter forwards, keeping each state, then
/// one pass backwards carrying the adjoints of the mean and the variance.
inline double gradient(std::span<const double> x, std::vector<double>& g, const problem& p) {
    const double q = x[0], r = x[1];
    const std::size_t n = p.y.size();
    static thread_local std::vector<double> means, variances;
    means.resize(n);
    variances.resize(n);
    means[0] = p.y[0];
    variances[0] = q + 1.0;
    double total = means[0] + std::log(variances[0]);
    for (std::size_t t = 1; t < n; ++t) {
        const double predicted = variances[t - 1] + q, gain = predicted / (predicted + r);
        means[t] = means[t - 1] + gain * (p.y[t] - means[t - 1]);
        variances[t] = (1 - gain) * predicted;
        total += means[t] + std::log(variances[t]);
    }
    double mean_adjoint = 0, variance_adjoint = 0, dq = 0, dr = 0;
    for (std::size_t t = n; t-- > 1;) {
        mean_adjoint += 1;
        variance_adjoint += 1 / variances[t];
        const double predicted = variances[t - 1] + q, s = predicted + r, gain = predicted / s;
        const double gain_adjoint =
            mean_adjoint * (p.y[t] - means[t - 1]) - variance_adjoint * predicted;
        const double predicted_adjoint =
            variance_adjoint * (1 - gain) + gain_adjoint * r / (s * s);
        dr -= gain_adjoint * predicted / (s * s);
        dq += predicted_adjoint;
        mean_adjoint *= 1 - gain;
        variance_adjoint = predicted_adjoint;
    }
    dq += variance_adjoint + 1 / variances[0];
    g[0] = dq;
    g[1] = dr;
    return total;
}

} // namespace models::kalman
