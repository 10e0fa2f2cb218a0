// zerograd/nn/loss.hpp: losses over a batch of outputs, zg::var or zg::tensor: mean squared
// error, micrograd's max-margin (hinge) loss, and cross-entropy on logits.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp"
#include "zerograd/tape/var.hpp"
#include "zerograd/tensor.hpp"

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace zg::nn {

namespace detail {

/// A sized range of plain numbers (targets and labels: double, int, ...). The losses default it
/// to std::initializer_list<double>, so that a braced list works too: mse(p, {0.0, 1.0}).
template <class R>
concept number_range = std::ranges::random_access_range<const R&> &&
    std::ranges::sized_range<const R&> && std::is_arithmetic_v<std::ranges::range_value_t<R>>;

/// Element i of a range of numbers (std::initializer_list has no operator[]).
template <class R>
double number_at(const R& numbers, std::size_t i) {
    return static_cast<double>(std::ranges::begin(numbers)[static_cast<std::ptrdiff_t>(i)]);
}

inline void check_batch(const char* loss, std::size_t outputs, std::size_t targets) {
    if (outputs != targets)
        throw shape_error(std::string("zg::nn::") + loss + ": " + std::to_string(outputs) +
                          " outputs and " + std::to_string(targets) + " targets");
    if (outputs == 0) throw shape_error(std::string("zg::nn::") + loss + ": an empty batch");
}

/// Label i of a hinge loss, which must be -1 or +1.
template <class R>
double sign(const R& labels, std::size_t i) {
    const double y = number_at(labels, i);
    if (y != 1.0 && y != -1.0) {
        char label[32]; // the shortest text that reads back as y: 0, 0.5, 1.0000001
        const auto written = std::to_chars(label, label + sizeof label, y);
        throw error("zg::nn::hinge: label " + std::string(label, written.ptr) + " of sample " +
                    std::to_string(i) + " is not -1 or +1 (use a dataset's signs)");
    }
    return y;
}

/// Plain numbers as a constant tensor of the given shape (as many elements, checked by the
/// caller).
template <class R>
tensor constant_tensor(const R& numbers, const tensor_shape& shape) {
    std::vector<double> values(std::ranges::begin(numbers), std::ranges::end(numbers));
    return tensor::from(std::move(values), shape);
}

} // namespace detail

/// Mean squared error, (1/n) sum_i (prediction_i - target_i)^2, one output per sample.
/// Throws zg::shape_error if the sizes differ or the batch is empty.
///
///     zg::var loss = zg::nn::mse(predictions, std::vector<double>{0, 1, 1, 0});
template <detail::number_range R = std::initializer_list<double>>
var mse(std::span<const var> predictions, const R& targets) {
    detail::check_batch("mse", predictions.size(), std::ranges::size(targets));
    var total = square(predictions[0] - detail::number_at(targets, 0));
    for (std::size_t i = 1; i < predictions.size(); ++i)
        total = total + square(predictions[i] - detail::number_at(targets, i));
    return total / static_cast<double>(predictions.size());
}

/// micrograd's max-margin loss for labels -1 and +1: (1/n) sum_i relu(1 - y_i score_i). A sample
/// costs nothing once its score has the label's sign with margin 1. Throws zg::shape_error if the
/// sizes differ or the batch is empty, and zg::error for a label other than -1 or +1 (labels 0
/// and 1 would silently train nothing for class 0).
///
///     zg::var loss = zg::nn::hinge(scores, data.signs); // data from zg::nn::make_moons
template <detail::number_range R = std::initializer_list<double>>
var hinge(std::span<const var> scores, const R& labels) {
    detail::check_batch("hinge", scores.size(), std::ranges::size(labels));
    const auto margin = [&](std::size_t i) {
        return relu(1.0 - detail::sign(labels, i) * scores[i]);
    };
    var total = margin(0);
    for (std::size_t i = 1; i < scores.size(); ++i)
        total = total + margin(i);
    return total / static_cast<double>(scores.size());
}

/// Cross-entropy of one sample: -log softmax(logits)[label] = log_sum_exp(logits) -
/// logits[label], with the largest logit subtracted inside the exponentials so that large logits
/// neither overflow nor lose the small ones. Throws zg::shape_error if label is not in [0, k).
///
///     zg::var loss = zg::nn::cross_entropy(model(x), 2); // model with 3 outputs
inline var cross_entropy(std::span<const var> logits, int label) {
    if (label < 0 || static_cast<std::size_t>(label) >= logits.size())
        throw shape_error("zg::nn::cross_entropy: label " + std::to_string(label) + " for " +
                          std::to_string(logits.size()) + " logits");
    // Both terms shifted by the label's logit, a constant: log_sum_exp(logits) - logit rounded
    // the large sum before the subtraction (logits near 1e17 gave 0 instead of log 2).
    const var& chosen = logits[static_cast<std::size_t>(label)];
    const double shift = chosen.data();
    if (!std::isfinite(shift)) return zg::log_sum_exp(logits) - chosen; // inf - inf is no shift
    return zg::log_sum_exp(logits - shift) - (chosen - shift);
}

/// Cross-entropy of a batch, the mean over samples: `logits[i]` holds sample i's k logits,
/// `labels[i]` its class in [0, k).
///
///     std::vector<std::vector<zg::var>> logits; // one model(x) per sample
///     zg::var loss = zg::nn::cross_entropy(logits, labels);
inline var cross_entropy(std::span<const std::vector<var>> logits, std::span<const int> labels) {
    detail::check_batch("cross_entropy", logits.size(), labels.size());
    var total = cross_entropy(logits[0], labels[0]);
    for (std::size_t i = 1; i < logits.size(); ++i)
        total = total + cross_entropy(logits[i], labels[i]);
    return total / static_cast<double>(logits.size());
}

// ---- The same losses on tensors: one tensor holds the whole batch's outputs ------------------

/// Mean squared error over every element: mean((predictions - targets)^2). The shapes must be
/// equal (zg::shape_error otherwise): broadcasting [n, 1] against [n] would silently compare
/// every prediction with every target.
///
///     zg::tensor loss = zg::nn::mse(model(x), y); // both [n, 1]
inline tensor mse(const tensor& predictions, const tensor& targets) {
    if (predictions.shape() != targets.shape())
        throw shape_error("zg::nn::mse: predictions of shape " + predictions.shape().to_string() +
                          " and targets of shape " + targets.shape().to_string());
    return mean(square(predictions - targets));
}

/// The same with plain-number targets, one per element of predictions (in row-major order).
template <detail::number_range R = std::initializer_list<double>>
tensor mse(const tensor& predictions, const R& targets) {
    detail::check_batch("mse", predictions.numel(), std::ranges::size(targets));
    return mse(predictions, detail::constant_tensor(targets, predictions.shape()));
}

/// micrograd's max-margin loss on a tensor of scores, one per sample (shape [n] or [n, 1]),
/// labels -1 and +1: mean(relu(1 - y * score)). Throws as the zg::var version does.
///
///     zg::tensor loss = zg::nn::hinge(model(x), data.signs);
template <detail::number_range R = std::initializer_list<double>>
tensor hinge(const tensor& scores, const R& labels) {
    const std::size_t n = std::ranges::size(labels);
    detail::check_batch("hinge", scores.numel(), n);
    std::vector<double> signs(n);
    for (std::size_t i = 0; i < n; ++i)
        signs[i] = detail::sign(labels, i);
    return mean(relu(1.0 - detail::constant_tensor(signs, scores.shape()) * scores));
}

/// Cross-entropy of a batch of logits of shape [n, k] with labels in [0, k): the mean over the
/// batch of log_sum_exp(row) - row[label], stable for large logits. It is zg::cross_entropy
/// itself, so that a call after `using namespace zg::nn;` finds one function, not two.
///
///     zg::tensor loss = zg::nn::cross_entropy(model(x), data.labels);
using zg::cross_entropy;

} // namespace zg::nn
