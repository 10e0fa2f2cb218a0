// bench/models/gmm.hpp: ADBench's Gaussian mixture objective (Srajer, Kukelova, Fitzgibbon,
// arXiv 1807.10129): the log-likelihood of n points under a mixture of K Gaussians in d
// dimensions plus a Wishart prior on the precision matrices, written as a user writes it in
// expression mode, as a loop for the scalar modes and the peers, and its gradient by hand.
//
// Parameters: alphas (K, unnormalized log weights), means (K d), icf (K d(d+1)/2): per component
// the logarithms of Q's diagonal, then Q's strictly lower entries column by column. Q_k is the
// Cholesky factor of component k's precision matrix.
//
//   f = -n d/2 log(2 pi) + sum_i logsumexp_k(alpha_k + sum(q_k) - |Q_k (x_i - mu_k)|^2 / 2)
//       - n logsumexp(alpha) + sum_k (gamma^2/2 (|diag Q_k|^2 + |L_k|^2) - m sum(q_k)) - K c
#pragma once

#include "random.hpp"

#include <zerograd/expr.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <ranges>
#include <span>
#include <vector>

namespace models::gmm {

/// A problem: its sizes, data and Wishart prior, and a point at which to differentiate.
struct problem {
    int d = 0, k = 0, n = 0;
    std::vector<double> x; // n points of d
    double gamma = 1.0;
    int m = 0;
    std::vector<double> alphas, means, icf; // the point

    int icf_size() const { return d * (d + 1) / 2; }
    /// Where Q's strictly lower entry (r, c), c < r, is in a component's icf: after the
    /// diagonal, column by column.
    int lower(int r, int c) const { return d + c * (2 * d - c - 1) / 2 + (r - c - 1); }
    /// The terms that do not depend on the parameters.
    double constant() const {
        const double wishart_n = d + m + 1;
        double multigamma = 0.25 * d * (d - 1) * std::log(std::numbers::pi);
        for (int j = 1; j <= d; ++j)
            multigamma += std::lgamma(0.5 * wishart_n + 0.5 * (1 - j));
        const double c = wishart_n * d * std::log(gamma / std::numbers::sqrt2) - multigamma;
        return -0.5 * n * d * std::log(2 * std::numbers::pi) - k * c;
    }
};

/// A seeded problem: standard normal points and means, log weights and log-diagonals near 0,
/// lower entries near 0 (random.hpp: the same numbers on every machine).
inline problem make(int d, int k, int n, std::uint64_t seed = 1) {
    uniform_numbers uniform{seed};
    const auto normal = [&] {
        const double u = uniform(), v = uniform();
        return std::sqrt(-2 * std::log(1 - u)) * std::cos(2 * std::numbers::pi * v);
    };
    problem p;
    p.d = d;
    p.k = k;
    p.n = n;
    for (int i = 0; i < n * d; ++i)
        p.x.push_back(normal());
    for (int j = 0; j < k; ++j)
        p.alphas.push_back(0.5 * normal());
    for (int j = 0; j < k * d; ++j)
        p.means.push_back(normal());
    for (int j = 0; j < k; ++j)
        for (int e = 0; e < p.icf_size(); ++e)
            p.icf.push_back((e < d ? 0.3 : 0.1) * normal());
    return p;
}

/// The Wishart prior's terms that depend on icf, as both expression-mode forms write it.
template <class Icf>
auto wishart_prior(const problem& p, const Icf& icf) {
    const int d = p.d, s = p.icf_size();
    return zg::sum(std::views::iota(0, p.k), [&](int k) {
        const auto q = zg::slice(icf, std::size_t(k * s), std::size_t(d));
        const auto l = zg::slice(icf, std::size_t(k * s + d), std::size_t(s - d));
        return 0.5 * p.gamma * p.gamma * (zg::sum(exp(2.0 * q)) + zg::dot(l, l)) - p.m * zg::sum(q);
    });
}

/// The objective as a user writes it in expression mode: a sum over the points of a
/// log-sum-exp over the components of sums over Q's rows and columns, the vectors indexed.
inline auto expression_objective(const problem& p) {
    return [&p](auto alphas, auto means, auto icf) {
        const int d = p.d, s = p.icf_size();
        const auto components = std::views::iota(0, p.k);
        const auto rows = std::views::iota(0, d);
        const auto likelihood = zg::sum(std::views::iota(0, p.n), [&](int i) {
            const std::span<const double> x(p.x.data() + std::size_t(i) * d, std::size_t(d));
            return zg::log_sum_exp(components, [&](int k) {
                const auto q = zg::slice(icf, std::size_t(k * s), std::size_t(d));
                const auto centered = x - zg::slice(means, std::size_t(k * d), std::size_t(d));
                const auto mahalanobis = zg::sum(rows, [&](int r) {
                    const auto lower = zg::sum(std::views::iota(0, r), [&](int c) {
                        return icf[std::size_t(k * s + p.lower(r, c))] * centered[std::size_t(c)];
                    });
                    return square(exp(q[std::size_t(r)]) * centered[std::size_t(r)] + lower);
                });
                return alphas[std::size_t(k)] + zg::sum(q) - 0.5 * mahalanobis;
            });
        });
        const auto prior = wishart_prior(p, icf);
        return p.constant() + likelihood - double(p.n) * zg::log_sum_exp(alphas) + prior;
    };
}

/// The same written the other natural way: the log of a sum of exponentials per point (no
/// shift: the terms stay small here), each component's Q read through slices of icf.
inline auto exp_sum_objective(const problem& p) {
    return [&p](auto alphas, auto means, auto icf) {
        const int d = p.d, s = p.icf_size();
        const auto components = std::views::iota(0, p.k);
        const auto rows = std::views::iota(0, d);
        const auto likelihood = zg::sum(std::views::iota(0, p.n), [&](int i) {
            const std::span<const double> x(p.x.data() + std::size_t(i) * d, std::size_t(d));
            return log(zg::sum(components, [&](int k) {
                const auto q = zg::slice(icf, std::size_t(k * s), std::size_t(d));
                const auto l = zg::slice(icf, std::size_t(k * s + d), std::size_t(s - d));
                const auto centered = x - zg::slice(means, std::size_t(k * d), std::size_t(d));
                const auto mahalanobis = zg::sum(rows, [&](int r) {
                    const auto lower = zg::sum(std::views::iota(0, r), [&](int c) {
                        return l[std::size_t(p.lower(r, c) - d)] * centered[std::size_t(c)];
                    });
                    return square(exp(q[std::size_t(r)]) * centered[std::size_t(r)] + lower);
                });
                return exp(alphas[std::size_t(k)] + zg::sum(q) - 0.5 * mahalanobis);
            }));
        });
        const auto prior = wishart_prior(p, icf);
        return p.constant() + likelihood - double(p.n) * log(zg::sum(exp(alphas))) + prior;
    };
}

namespace detail {

/// A scalar's value, whatever the mode or peer that made it.
template <class T>
double value_of(const T& t) {
    if constexpr (requires { t.data(); })
        return zg::detail::primal(t.data());
    else if constexpr (requires { t.value(); })
        return t.value(); // ADOL-C's adouble
    else if constexpr (requires { t.val(); })
        return t.val(); // Sacado's
    else
        return zg::detail::primal(t);
}

/// log sum exp of the terms, shifted by their largest value (a constant: the result does not
/// depend on it).
template <class T>
T log_sum_exp(const std::vector<T>& terms) {
    using std::exp, std::log;
    double shift = -INFINITY;
    for (const T& t : terms)
        shift = std::max(shift, value_of(t));
    T total = 0.0;
    for (const T& t : terms)
        total += exp(t - shift);
    return T(log(total) + shift);
}

} // namespace detail

/// The likelihood's terms of points first .. first + count - 1 as a loop over scalars of any mode
/// (double, zg::var, zg::dual, the peers'): v holds alphas, means and icf in a row.
template <class T>
T loop_likelihood(std::span<const T> v, const problem& p, int first, int count) {
    using std::exp;
    const int d = p.d, k = p.k, s = p.icf_size();
    const T* alphas = v.data();
    const T* means = alphas + k;
    const T* icf = means + k * d;
    std::vector<T> terms(std::size_t(k), T(0.0)), centered(std::size_t(d), T(0.0));
    T likelihood = 0.0;
    for (int i = first; i < first + count; ++i) {
        for (int j = 0; j < k; ++j) {
            const T* q = icf + j * s;
            T sum_q = 0.0, mahalanobis = 0.0;
            for (int r = 0; r < d; ++r) {
                sum_q += q[r];
                centered[std::size_t(r)] = p.x[std::size_t(i * d + r)] - means[j * d + r];
            }
            for (int r = 0; r < d; ++r) {
                T row = exp(q[r]) * centered[std::size_t(r)];
                for (int c = 0; c < r; ++c)
                    row += q[p.lower(r, c)] * centered[std::size_t(c)];
                mahalanobis += row * row;
            }
            terms[std::size_t(j)] = alphas[j] + sum_q - 0.5 * mahalanobis;
        }
        likelihood += detail::log_sum_exp(terms);
    }
    return likelihood;
}

/// The terms that are not the points': the weights' normalization and the Wishart prior, as a
/// loop, given the likelihood of every point.
template <class T>
T loop_objective_given(std::span<const T> v, const problem& p, const T& likelihood) {
    using std::exp;
    const int d = p.d, k = p.k, s = p.icf_size();
    const T* alphas = v.data();
    const T* icf = alphas + k + k * d;
    std::vector<T> alpha_terms(alphas, alphas + k);
    T prior = 0.0;
    for (int j = 0; j < k; ++j) {
        const T* q = icf + j * s;
        T squares = 0.0, sum_q = 0.0;
        for (int r = 0; r < d; ++r) {
            squares += exp(2.0 * q[r]);
            sum_q += q[r];
        }
        for (int e = d; e < s; ++e)
            squares += q[e] * q[e];
        prior += 0.5 * p.gamma * p.gamma * squares - p.m * sum_q;
    }
    return T(p.constant() + likelihood - double(p.n) * detail::log_sum_exp(alpha_terms) + prior);
}

/// The same as a loop over scalars of any mode (double, zg::var, zg::dual, the peers'), as a
/// user of an operator-overloading tool writes it: v holds alphas, means and icf in a row.
template <class T>
T loop_objective(std::span<const T> v, const problem& p) {
    return loop_objective_given(v, p, loop_likelihood(v, p, 0, p.n));
}

/// The objective in pieces for sums over shards of data (zg::parallel, zg::mpi): `count` points
/// from `first`; the last piece also carries the terms that are not the points' (the weights'
/// normalization, the prior), so that the pieces add up to loop_objective.
struct shard {
    const problem* p;
    int first, count;
    bool rest;
};

inline std::vector<shard> shards(const problem& p, int points_each) {
    std::vector<shard> out;
    for (int first = 0; first < p.n; first += points_each)
        out.push_back({&p, first, std::min(points_each, p.n - first), first + points_each >= p.n});
    return out;
}

/// One shard's part of the objective, for variables of any scalar mode: v is a span of them.
inline constexpr auto shard_objective = [](auto v, const shard& s) {
    const auto likelihood = loop_likelihood(v, *s.p, s.first, s.count);
    return s.rest ? loop_objective_given(v, *s.p, likelihood) : likelihood;
};

/// The gradient by hand: per point, each component's centered point and Q times it are kept
/// until the log-sum-exp's weights are known; then the adjoint of each component's term flows
/// back through Q (Q^T Q (x - mu) for the mean). g has the layout of v.
inline double gradient(std::span<const double> v, std::span<double> g, const problem& p) {
    const int d = p.d, k = p.k, s = p.icf_size();
    const double* alphas = v.data();
    const double* means = alphas + k;
    const double* icf = means + k * d;
    double* g_alphas = g.data();
    double* g_means = g_alphas + k;
    double* g_icf = g_means + k * d;
    std::fill(g.begin(), g.end(), 0.0);
    std::vector<double> diagonal(std::size_t(k * d), 0.0), sum_q(std::size_t(k), 0.0);
    for (int j = 0; j < k; ++j)
        for (int r = 0; r < d; ++r) {
            diagonal[std::size_t(j * d + r)] = std::exp(icf[j * s + r]);
            sum_q[std::size_t(j)] += icf[j * s + r];
        }
    std::vector<double> terms(std::size_t(k), 0.0), centered(std::size_t(k * d), 0.0);
    std::vector<double> qx(std::size_t(k * d), 0.0);
    double likelihood = 0;
    for (int i = 0; i < p.n; ++i) {
        const double* x = p.x.data() + std::size_t(i) * d;
        double top = -INFINITY;
        for (int j = 0; j < k; ++j) {
            const double* q = icf + j * s;
            double* xc = centered.data() + j * d;
            double* y = qx.data() + j * d;
            double mahalanobis = 0;
            for (int r = 0; r < d; ++r)
                xc[r] = x[r] - means[j * d + r];
            for (int r = 0; r < d; ++r) {
                double row = diagonal[std::size_t(j * d + r)] * xc[r];
                for (int c = 0; c < r; ++c)
                    row += q[p.lower(r, c)] * xc[c];
                y[r] = row;
                mahalanobis += row * row;
            }
            terms[std::size_t(j)] = alphas[j] + sum_q[std::size_t(j)] - 0.5 * mahalanobis;
            top = std::max(top, terms[std::size_t(j)]);
        }
        double total = 0;
        for (int j = 0; j < k; ++j)
            total += std::exp(terms[std::size_t(j)] - top);
        const double lse = top + std::log(total);
        likelihood += lse;
        for (int j = 0; j < k; ++j) {
            const double weight = std::exp(terms[std::size_t(j)] - lse);
            const double* q = icf + j * s;
            const double* xc = centered.data() + j * d;
            const double* y = qx.data() + j * d;
            double* gq = g_icf + j * s;
            g_alphas[j] += weight;
            for (int r = 0; r < d; ++r) {
                const double dr = diagonal[std::size_t(j * d + r)];
                gq[r] += weight * (1 - y[r] * dr * xc[r]);
                g_means[j * d + r] += weight * y[r] * dr; // (Q^T Q x)_r, diagonal part
                for (int c = 0; c < r; ++c) {
                    const int e = p.lower(r, c);
                    gq[e] -= weight * y[r] * xc[c];
                    g_means[j * d + c] += weight * y[r] * q[e];
                }
            }
        }
    }
    double top = -INFINITY, total = 0;
    for (int j = 0; j < k; ++j)
        top = std::max(top, alphas[j]);
    for (int j = 0; j < k; ++j)
        total += std::exp(alphas[j] - top);
    for (int j = 0; j < k; ++j)
        g_alphas[j] -= p.n * std::exp(alphas[j] - top) / total;
    double prior = 0;
    for (int j = 0; j < k; ++j) {
        const double* q = icf + j * s;
        double squares = 0;
        for (int r = 0; r < d; ++r) {
            const double d2 = diagonal[std::size_t(j * d + r)] * diagonal[std::size_t(j * d + r)];
            squares += d2;
            g_icf[j * s + r] += p.gamma * p.gamma * d2 - p.m;
        }
        for (int e = d; e < s; ++e) {
            squares += q[e] * q[e];
            g_icf[j * s + e] += p.gamma * p.gamma * q[e];
        }
        prior += 0.5 * p.gamma * p.gamma * squares - p.m * sum_q[std::size_t(j)];
    }
    return p.constant() + likelihood - p.n * (top + std::log(total)) + prior;
}

/// The point as one vector: alphas, means, icf.
inline std::vector<double> point(const problem& p) {
    std::vector<double> v(p.alphas);
    v.insert(v.end(), p.means.begin(), p.means.end());
    v.insert(v.end(), p.icf.begin(), p.icf.end());
    return v;
}

} // namespace models::gmm
