// bench/models/mlp.hpp: a small network's loss over a batch, the shape of machine learning from
// scratch: one hidden layer of H tanh units over inputs of D features, one linear output, the
// squared error summed over a batch of B examples:
//
//   out_b = sum_j w2[j] tanh(W1[j] . x_b + b1[j]) + b2,   loss = sum_b (out_b - y_b)^2
//
// Written as a user writes it in expression mode (a sum over the batch of a sum over the hidden
// units, each a dot product of a slice of W1 with the example), as a loop for the scalar modes,
// and its gradient by hand. The point holds W1 (H by D, by rows), b1 (H), w2 (H) and b2 in a row.
#pragma once

#include "random.hpp"

#include <zerograd/expr.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <vector>

namespace models::mlp {

struct problem {
    std::size_t batch = 0, features = 0, hidden = 0;
    std::vector<double> x; // batch by features
    std::vector<double> y;

    std::size_t parameters() const { return hidden * features + 2 * hidden + 1; }
    std::span<const double> example(std::size_t b) const {
        return std::span<const double>(x).subspan(b * features, features);
    }
};

/// Inputs in [-1, 1), targets in [-1, 1) (random.hpp).
inline problem make(std::size_t batch, std::size_t features, std::size_t hidden,
                    std::uint64_t seed = 1) {
    uniform_numbers uniform{seed};
    problem p{batch, features, hidden, {}, {}};
    for (std::size_t e = 0; e < batch * features; ++e)
        p.x.push_back(2 * uniform() - 1);
    for (std::size_t b = 0; b < batch; ++b)
        p.y.push_back(2 * uniform() - 1);
    return p;
}

/// Weights in [-0.3, 0.3), scaled by the fan-in, biases in [-0.1, 0.1).
inline std::vector<double> point(const problem& p, std::uint64_t seed = 2) {
    uniform_numbers uniform{seed};
    std::vector<double> w;
    for (std::size_t e = 0; e < p.hidden * p.features; ++e)
        w.push_back((0.6 * uniform() - 0.3) / std::sqrt(double(p.features)));
    for (std::size_t j = 0; j < p.hidden; ++j)
        w.push_back(0.2 * uniform() - 0.1);
    for (std::size_t j = 0; j < p.hidden; ++j)
        w.push_back((0.6 * uniform() - 0.3) / std::sqrt(double(p.hidden)));
    w.push_back(0.2 * uniform() - 0.1);
    return w;
}

/// The loss as a user writes it in expression mode, by (W1, b1, w2, b2).
inline auto expression_objective(const problem& p) {
    return [&p](auto w1, auto b1, auto w2, auto b2) {
        const std::size_t d = p.features;
        return zg::sum(std::views::iota(std::size_t{0}, p.batch), [&](std::size_t b) {
            const auto out =
                zg::sum(std::views::iota(std::size_t{0}, p.hidden), [&](std::size_t j) {
                    return w2[j] * tanh(zg::dot(zg::slice(w1, j * d, d), p.example(b)) + b1[j]);
                }) +
                b2;
            return square(out - p.y[b]);
        });
    };
}

/// The same over scalars of any mode: v holds the point.
template <class T>
T loop_objective(std::span<const T> v, const problem& p) {
    using std::tanh;
    const std::size_t d = p.features, h = p.hidden;
    const T* w1 = v.data();
    const T* b1 = w1 + h * d;
    const T* w2 = b1 + h;
    const T& b2 = w2[h];
    T total = 0.0;
    for (std::size_t b = 0; b < p.batch; ++b) {
        T out = b2;
        for (std::size_t j = 0; j < h; ++j) {
            T a = b1[j];
            for (std::size_t i = 0; i < d; ++i)
                a += w1[j * d + i] * p.x[b * d + i];
            out += w2[j] * tanh(a);
        }
        const T error = out - p.y[b];
        total += error * error;
    }
    return total;
}

/// The value and, in g, the gradient, by hand: per example, the hidden units forwards, then
/// backpropagation through the output and the units.
inline double gradient(std::span<const double> x, std::vector<double>& g, const problem& p) {
    const std::size_t d = p.features, h = p.hidden;
    const double* w1 = x.data();
    const double* b1 = w1 + h * d;
    const double* w2 = b1 + h;
    const double b2 = w2[h];
    std::fill(g.begin(), g.end(), 0.0);
    double* dw1 = g.data();
    double* db1 = dw1 + h * d;
    double* dw2 = db1 + h;
    static thread_local std::vector<double> units;
    units.resize(h);
    double total = 0;
    for (std::size_t b = 0; b < p.batch; ++b) {
        const double* example = p.x.data() + b * d;
        double out = b2;
        for (std::size_t j = 0; j < h; ++j) {
            double a = b1[j];
            for (std::size_t i = 0; i < d; ++i)
                a += w1[j * d + i] * example[i];
            units[j] = std::tanh(a);
            out += w2[j] * units[j];
        }
        const double error = out - p.y[b];
        total += error * error;
        const double dout = 2 * error;
        dw2[h] += dout; // b2
        for (std::size_t j = 0; j < h; ++j) {
            dw2[j] += dout * units[j];
            const double da = dout * w2[j] * (1 - units[j] * units[j]);
            db1[j] += da;
            for (std::size_t i = 0; i < d; ++i)
                dw1[j * d + i] += da * example[i];
        }
    }
    return total;
}

} // namespace models::mlp
