// bench/functions.hpp: the benchmark functions, each written once as a template over the scalar
// (so double, zg::var and later modes run the same code) with a hand-written gradient beside it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace bench {

inline double square(double x) { return x * x; }

/// The plain number inside a scalar of any mode.
template <class T>
double value_of(const T& x) {
    if constexpr (requires { x.data(); })
        return value_of(x.data());
    else if constexpr (requires { x.deriv; }) // a dual number
        return value_of(x.value);
    else
        return x;
}

/// sum_i x_i x_{i+1} + sin(x_i), i < n - 1.
template <class T>
T pair_sin(std::span<const T> x) {
    T total = 0.0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i)
        total += x[i] * x[i + 1] + sin(x[i]);
    return total;
}
inline double pair_sin_gradient(std::span<const double> x, std::span<double> g) {
    const std::size_t n = x.size();
    double total = 0;
    std::fill(g.begin(), g.end(), 0.0);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        total += x[i] * x[i + 1] + std::sin(x[i]);
        g[i] += x[i + 1] + std::cos(x[i]);
        g[i + 1] += x[i];
    }
    return total;
}

/// Extended Rosenbrock: sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, i < n - 1.
template <class T>
T rosenbrock(std::span<const T> x) {
    T total = 0.0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i)
        total += 100 * square(x[i + 1] - x[i] * x[i]) + square(1 - x[i]);
    return total;
}
inline double rosenbrock_gradient(std::span<const double> x, std::span<double> g) {
    const std::size_t n = x.size();
    double total = 0;
    std::fill(g.begin(), g.end(), 0.0);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const double r = x[i + 1] - x[i] * x[i], s = 1 - x[i];
        total += 100 * r * r + s * s;
        g[i] += -400 * r * x[i] - 2 * s;
        g[i + 1] += 200 * r;
    }
    return total;
}

/// log sum_i exp(x_i), shifted by the largest x_i so that nothing overflows. The shift is a
/// plain number: the result does not depend on it, so neither does the gradient.
template <class T>
T log_sum_exp(std::span<const T> x) {
    double shift = -INFINITY;
    for (const T& xi : x)
        shift = std::max<double>(shift, value_of(xi));
    T total = 0.0;
    for (const T& xi : x)
        total += exp(xi - shift);
    return log(total) + shift;
}
inline double log_sum_exp_gradient(std::span<const double> x, std::span<double> g) {
    double shift = -INFINITY;
    for (double xi : x)
        shift = std::max(shift, xi);
    double total = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        total += g[i] = std::exp(x[i] - shift);
    for (double& gi : g)
        gi /= total;
    return std::log(total) + shift;
}

} // namespace bench
