// zerograd/tensor/reductions.hpp: sums and means of tensors (whole or along an axis), log_softmax
// and cross_entropy, each with its backward.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp" // the rule of log_sum_exp at its edges
#include "zerograd/tensor/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace zg {

namespace detail {

/// Backward of a sum (Mean false) or mean of every element: each element gets g (or g / count).
template <bool Mean>
void sum_all_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& x = tape.node(self.operands[0]);
    double* gx = tape.gradient_of(x);
    const std::size_t count = x.value.size();
    const double g = Mean ? self.grad[0] / static_cast<double>(count) : self.grad[0];
    for (std::size_t i = 0; i < count; ++i)
        gx[i] += g;
}

/// Backward of a sum or mean along axis `parameter`: each element gets its row's gradient.
template <bool Mean>
void sum_axis_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& x = tape.node(self.operands[0]);
    double* gx = tape.gradient_of(x);
    const axis_view v = view_around(x.shape, static_cast<std::size_t>(self.parameter));
    const double scale = Mean ? 1.0 / static_cast<double>(v.n) : 1.0;
    const double* g = self.grad.data();
    for (std::size_t o = 0; o < v.outer; ++o)
        for (std::size_t j = 0; j < v.n; ++j)
            for (std::size_t in = 0; in < v.inner; ++in)
                gx[(o * v.n + j) * v.inner + in] += g[o * v.inner + in] * scale;
}

template <bool Mean>
tensor record_sum(const tensor& x) {
    tensor_tape& tape = tensor_access::tape(x, Mean ? "mean" : "sum");
    const tensor_node& xn = tensor_access::node(x);
    const auto i =
        tape.push(tensor_shape{}, xn.requires_grad, &sum_all_backward<Mean>, Mean ? "mean" : "sum");
    tensor_node& out = tape.node(i);
    out.operands[0] = tensor_access::index(x);
    double total = 0.0;
    for (double v : xn.value)
        total += v;
    out.value[0] = Mean ? total / static_cast<double>(xn.value.size()) : total;
    return tensor_access::make(tape, i);
}

template <bool Mean>
tensor record_sum(const tensor& x, int axis) {
    tensor_tape& tape = tensor_access::tape(x, Mean ? "mean" : "sum");
    const tensor_node& xn = tensor_access::node(x);
    const std::size_t a = normalize_axis(Mean ? "zg::mean" : "zg::sum", axis, xn.shape);
    tensor_shape shape;
    for (std::size_t d = 0; d < xn.shape.rank(); ++d)
        if (d != a) shape.push_back(xn.shape[d]);
    const auto i =
        tape.push(shape, xn.requires_grad, &sum_axis_backward<Mean>, Mean ? "mean" : "sum");
    tensor_node& out = tape.node(i);
    out.operands[0] = tensor_access::index(x);
    out.parameter = static_cast<int>(a);
    const axis_view v = view_around(xn.shape, a);
    const double* xv = xn.value.data();
    double* y = out.value.data();
    std::fill(out.value.begin(), out.value.end(), 0.0);
    for (std::size_t o = 0; o < v.outer; ++o)
        for (std::size_t j = 0; j < v.n; ++j)
            for (std::size_t in = 0; in < v.inner; ++in)
                y[o * v.inner + in] += xv[(o * v.n + j) * v.inner + in];
    if (Mean)
        for (double& value : out.value)
            value /= static_cast<double>(v.n);
    return tensor_access::make(tape, i);
}

// d log_softmax(x)_j / d x_i = [i == j] - softmax(x)_i, so the gradient of x is
// g - softmax * sum(g) along the axis; softmax is exp(y), read back from the result.
inline void log_softmax_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& x = tape.node(self.operands[0]);
    double* gx = tape.gradient_of(x);
    const axis_view v = view_around(x.shape, static_cast<std::size_t>(self.parameter));
    const double* y = self.value.data();
    const double* g = self.grad.data();
    for (std::size_t o = 0; o < v.outer; ++o)
        for (std::size_t in = 0; in < v.inner; ++in) {
            const std::size_t base = o * v.n * v.inner + in;
            double total = 0.0;
            for (std::size_t j = 0; j < v.n; ++j)
                total += g[base + j * v.inner];
            for (std::size_t j = 0; j < v.n; ++j) {
                const std::size_t k = base + j * v.inner;
                gx[k] += g[k] - std::exp(y[k]) * total;
            }
        }
}

inline void cross_entropy_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& x = tape.node(self.operands[0]);
    double* gx = tape.gradient_of(x);
    const std::size_t rows = x.shape[0], classes = x.shape[1];
    const double g = self.grad[0] / static_cast<double>(rows);
    const double* xv = x.value.data();
    std::vector<double> edge; // the softmax of a row where no shift helps
    for (std::size_t b = 0; b < rows; ++b) {
        const double top = self.saved[2 * b], log_sum = self.saved[2 * b + 1];
        const auto label = static_cast<std::size_t>(self.saved_indices[b]);
        if (std::isnan(log_sum)) [[unlikely]] {
            edge.resize(classes);
            reduction_rules::edge_softmax(xv + b * classes, classes, 1, edge.data());
            for (std::size_t c = 0; c < classes; ++c)
                gx[b * classes + c] += g * (edge[c] - (c == label ? 1.0 : 0.0));
            continue;
        }
        for (std::size_t c = 0; c < classes; ++c) {
            const std::size_t k = b * classes + c;
            gx[k] += g * (std::exp((xv[k] - top) - log_sum) - (c == label ? 1.0 : 0.0));
        }
    }
}

} // namespace detail

/// The sum of every element, a one-element tensor of shape [].
inline tensor sum(const tensor& x) { return detail::record_sum<false>(x); }
/// The sum along `axis` (negative counts from the end), which the result drops: [2, 3] summed
/// along axis 0 is [3].
inline tensor sum(const tensor& x, int axis) { return detail::record_sum<false>(x, axis); }
/// The mean of every element, shape [].
inline tensor mean(const tensor& x) { return detail::record_sum<true>(x); }
/// The mean along `axis`, which the result drops.
inline tensor mean(const tensor& x, int axis) { return detail::record_sum<true>(x, axis); }

/// x - log(sum(exp(x))) along `axis` (the last by default), computed with the maximum subtracted
/// so that large logits neither overflow nor lose the small ones. One fused operation rather
/// than exp, sum and log composed: stable, and a backward of one pass (g - softmax * sum(g)).
inline tensor log_softmax(const tensor& x, int axis = -1) {
    detail::tensor_tape& tape = detail::tensor_access::tape(x, "log_softmax");
    const detail::tensor_node& xn = detail::tensor_access::node(x);
    const std::size_t a = detail::normalize_axis("zg::log_softmax", axis, xn.shape);
    const auto i =
        tape.push(xn.shape, xn.requires_grad, &detail::log_softmax_backward, "log_softmax");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(x);
    out.parameter = static_cast<int>(a);
    const detail::axis_view v = detail::view_around(xn.shape, a);
    const double* xv = xn.value.data();
    double* y = out.value.data();
    for (std::size_t o = 0; o < v.outer; ++o)
        for (std::size_t in = 0; in < v.inner; ++in) {
            const std::size_t base = o * v.n * v.inner + in;
            const auto lse = reduction_rules::strided_log_sum_exp(xv + base, v.n, v.inner);
            if (std::isnan(lse.log_sum)) [[unlikely]] { // log of the softmax by the rule
                reduction_rules::edge_softmax(xv + base, v.n, v.inner, y + base);
                for (std::size_t j = 0; j < v.n; ++j)
                    y[base + j * v.inner] = std::log(y[base + j * v.inner]);
                continue;
            }
            for (std::size_t j = 0; j < v.n; ++j)
                y[base + j * v.inner] = (xv[base + j * v.inner] - lse.max) - lse.log_sum;
        }
    return detail::tensor_access::make(tape, i);
}

/// The mean over the batch of -log_softmax(logits)[row, label]: logits of shape [batch, classes]
/// and one label in [0, classes) per row. Fused and stable like log_softmax (logits of 1000 and
/// more give finite losses); the gradient is (softmax - onehot) / batch. shape_error for logits
/// that are not 2-D, a wrong number of labels or a label out of range for the classes (as
/// zg::nn::cross_entropy).
///
///     auto logits = zg::tensor::from({1000, 0, 0, 1000}, {2, 2}, true);
///     auto loss = cross_entropy(logits, {0, 0});   // (0 + 1000) / 2 = 500
inline tensor cross_entropy(const tensor& logits, std::span<const int> labels) {
    detail::tensor_tape& tape = detail::tensor_access::tape(logits, "cross_entropy");
    const detail::tensor_node& xn = detail::tensor_access::node(logits);
    if (xn.shape.rank() != 2)
        throw shape_error("zg::cross_entropy: logits of shape " + xn.shape.to_string() +
                          "; expected [batch, classes]");
    const std::size_t rows = xn.shape[0], classes = xn.shape[1];
    if (labels.size() != rows)
        throw shape_error("zg::cross_entropy: " + std::to_string(labels.size()) +
                          " labels for logits of shape " + xn.shape.to_string() +
                          "; expected one label per row");
    if (rows == 0)
        throw shape_error("zg::cross_entropy: logits of shape " + xn.shape.to_string() +
                          " have no rows to average over");
    for (std::size_t b = 0; b < rows; ++b)
        if (labels[b] < 0 || static_cast<std::size_t>(labels[b]) >= classes)
            throw shape_error("zg::cross_entropy: label " + std::to_string(labels[b]) + " of row " +
                        std::to_string(b) + " is out of range for " + std::to_string(classes) +
                        " classes");
    const auto i = tape.push(tensor_shape{}, xn.requires_grad, &detail::cross_entropy_backward,
                             "cross_entropy");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(logits);
    out.saved_indices.assign(labels.begin(), labels.end());
    out.saved.resize(2 * rows); // per row: the maximum and log(sum(exp(x - maximum)))
    double total = 0.0;
    std::vector<double> edge; // the softmax of a row where no shift helps
    for (std::size_t b = 0; b < rows; ++b) {
        const double* row = xn.value.data() + b * classes;
        const auto lse = reduction_rules::strided_log_sum_exp(row, classes, 1);
        out.saved[2 * b] = lse.max;
        out.saved[2 * b + 1] = lse.log_sum;
        if (std::isnan(lse.log_sum)) [[unlikely]] {
            edge.resize(classes);
            reduction_rules::edge_softmax(row, classes, 1, edge.data());
            total += -std::log(edge[static_cast<std::size_t>(labels[b])]);
            continue;
        }
        total += lse.log_sum - (row[labels[b]] - lse.max);
    }
    out.value[0] = total / static_cast<double>(rows);
    return detail::tensor_access::make(tape, i);
}
/// cross_entropy with the labels in a vector, so that `cross_entropy(logits, {0, 2})` works.
inline tensor cross_entropy(const tensor& logits, const std::vector<int>& labels) {
    return cross_entropy(logits, std::span<const int>(labels));
}

} // namespace zg
