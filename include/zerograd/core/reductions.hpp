// zerograd/core/reductions.hpp: zg::sum, prod, dot, log_sum_exp, mean and norm over a range of
// scalars of any mode (zg::var, zg::dual, double), composed from the elementary operations.
// Expression mode overloads them for its vector expressions (zerograd/expr/ops/vector.hpp).
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/range.hpp" // zg::range: the index ranges sums go over
#include "zerograd/core/scalar.hpp"
#include "zerograd/core/select.hpp" // zg::select, beside the reductions in every mode

#include <algorithm>
#include <cmath>
#include <concepts>
#include <functional>
#include <limits>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace zg {

namespace detail {

template <class R>
using element_t = std::remove_cvref_t<std::ranges::range_reference_t<const R&>>;

/// A sized range of scalars whose sum has the scalar's own type (not an expression tree).
template <class R>
concept scalar_range = std::ranges::sized_range<const R&> && requires(const element_t<R>& x) {
    { x + x } -> std::convertible_to<element_t<R>>;
    { x * x } -> std::convertible_to<element_t<R>>;
};

/// fn of an element, or of an element and its index k.
template <class Fn, class X>
decltype(auto) call_map(Fn& fn, const X& x, std::size_t k) {
    if constexpr (std::is_invocable_v<Fn&, const X&, std::size_t>)
        return std::invoke(fn, x, k);
    else
        return std::invoke(fn, x);
}

/// fn's value at a range element, when summing those values stays in one type (a tape formula
/// counted as the variable it becomes).
template <class Fn, class R>
concept closed_map = scalar_range<R> && requires(Fn& fn, const element_t<R>& x) {
    requires std::same_as<kept_t<decltype(call_map(fn, x, 0) + call_map(fn, x, 0))>,
                          kept_t<decltype(call_map(fn, x, 0))>>;
};

/// The plain number inside a scalar of any mode, for choosing a shift.
template <class T>
double plain_value(const T& x) {
    if constexpr (requires { x.data(); })
        return primal(x.data());
    else
        return primal(x);
}

/// How norm scales the elements it squares. By 1 where no square can overflow or underflow;
/// otherwise by a power of two near the largest magnitude (exact: the result is the unscaled one
/// without the overflow). At the zero vector, scale 0 and guard 1 give the value 0 and the
/// gradient 0 (the smallest subgradient) instead of 0 * inf; each mode computes
/// scale * sqrt(sum((x * inverse)^2) + guard).
struct norm_scaling {
    double scale = 1, inverse = 1, guard = 0;
};

inline norm_scaling norm_scaling_for(double largest_magnitude) {
    if (largest_magnitude == 0) return {0, 1, 1};
    if (!std::isfinite(largest_magnitude) ||
        (largest_magnitude >= 0x1p-500 && largest_magnitude <= 0x1p500))
        return {};
    const int exponent = std::clamp(std::ilogb(largest_magnitude), -1000, 1000);
    return {std::ldexp(1.0, exponent), std::ldexp(1.0, -exponent), 0};
}

} // namespace detail

namespace detail {
/// zg::slice past the end of a range (`what`: "range" or "vector"), in every mode: the elements
/// it asked for, counted as zg::slice counts them. (Cold and out of line: an error path in
/// code inlined everywhere.)
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_slice_past_the_end(std::size_t offset,
                                                                            std::size_t count,
                                                                            std::size_t size,
                                                                            const char* what) {
    const std::string asked = count == 0 ? "an empty slice at " + std::to_string(offset)
                                         : "elements " + std::to_string(offset) + " to " +
                                               std::to_string(offset + count - 1);
    throw shape_error("zg::slice: " + asked + " of a " + what + " of size " +
                      std::to_string(size));
}
} // namespace detail

/// Elements offset, ..., offset + count - 1 of a range of scalars, as a span: `zg::slice(x, 1,
/// n - 1)` is x shifted by one.
template <class R>
    requires std::ranges::contiguous_range<const R&> && std::ranges::sized_range<const R&>
auto slice(const R& range, std::size_t offset, std::size_t count) {
    const std::span<const detail::element_t<R>> all(std::ranges::data(range),
                                                    std::ranges::size(range));
    if (offset > all.size() || count > all.size() - offset)
        detail::throw_slice_past_the_end(offset, count, all.size(), "range");
    return all.subspan(offset, count);
}

/// The number of elements of a range of scalars, as zg::size gives it for a vector expression:
/// one generic lambda counts its vector argument in every mode.
template <class R>
    requires std::ranges::sized_range<const R&>
constexpr std::size_t size(const R& range) {
    return std::ranges::size(range);
}

/// The sum of a range's elements (zero for an empty range).
template <class R>
    requires detail::scalar_range<R>
auto sum(const R& range) {
    using T = detail::element_t<R>;
    auto it = std::ranges::begin(range);
    if (it == std::ranges::end(range)) return T(0.0);
    T total = *it;
    for (++it; it != std::ranges::end(range); ++it) total = total + *it;
    return total;
}

/// sum_k fn(x_k) for a generic lambda fn of one element (or of the element and its index k).
template <class R, class Fn>
    requires detail::closed_map<Fn, R>
auto sum(const R& range, Fn fn) {
    using T = detail::kept_t<decltype(detail::call_map(fn, *std::ranges::begin(range), 0))>;
    auto it = std::ranges::begin(range);
    if (it == std::ranges::end(range)) return T(0.0);
    T total = detail::call_map(fn, *it, 0);
    std::size_t k = 1;
    for (++it; it != std::ranges::end(range); ++it, ++k)
        total = total + detail::call_map(fn, *it, k);
    return total;
}

/// The product of a range's elements (one for an empty range).
template <class R>
    requires detail::scalar_range<R>
auto prod(const R& range) {
    using T = detail::element_t<R>;
    auto it = std::ranges::begin(range);
    if (it == std::ranges::end(range)) return T(1.0);
    T total = *it;
    for (++it; it != std::ranges::end(range); ++it) total = total * *it;
    return total;
}

/// sum_k a_k b_k; the ranges must have one size.
template <class A, class B>
    requires detail::scalar_range<A> && detail::scalar_range<B>
auto dot(const A& a, const B& b) {
    if (std::ranges::size(a) != std::ranges::size(b))
        throw shape_error("zg::dot: ranges of sizes " + std::to_string(std::ranges::size(a)) +
                          " and " + std::to_string(std::ranges::size(b)));
    auto ia = std::ranges::begin(a);
    auto ib = std::ranges::begin(b);
    using T = decltype(*ia * *ib);
    if (ia == std::ranges::end(a)) return T(0.0);
    T total = *ia * *ib;
    for (++ia, ++ib; ia != std::ranges::end(a); ++ia, ++ib) total = total + *ia * *ib;
    return total;
}

// mean, norm and log_sum_exp call sum unqualified: argument-dependent lookup finds a mode's own
// sum for its scalars (tape mode's records one node), which is more constrained than these.

/// The mean of a range's elements.
template <class R>
    requires detail::scalar_range<R>
auto mean(const R& range) {
    return sum(range) / static_cast<double>(std::ranges::size(range));
}

/// The Euclidean norm, sqrt(sum of squares), without overflow or underflow for elements near
/// 1e200 or 1e-200, and with gradient 0 at the zero vector (see detail::norm_scaling).
template <class R>
    requires detail::scalar_range<R>
auto norm(const R& range) {
    using std::sqrt;
    double largest = 0;
    for (const auto& x : range) largest = std::max(largest, std::abs(detail::plain_value(x)));
    const auto [scale, inverse, guard] = detail::norm_scaling_for(largest);
    const auto scaled_square = [inverse = inverse](const auto& x) { // a copy: clang 14 captures no binding
        const auto y = x * inverse;
        return y * y;
    };
    // One type for both returns (two formulas' types differ on a tape).
    using result = detail::kept_t<decltype(scale * sqrt(sum(range, scaled_square) + guard))>;
    if (scale == 1) return result(sqrt(sum(range, [](const auto& x) { return x * x; })));
    return result(scale * sqrt(sum(range, scaled_square) + guard));
}

/// log(sum(exp(x))), shifted by the largest element so that nothing overflows; the shift is a
/// plain number, which the result (and so its derivative) does not depend on.
template <class R>
    requires detail::scalar_range<R>
auto log_sum_exp(const R& range) {
    using std::exp;
    using std::log;
    double shift = -std::numeric_limits<double>::infinity();
    for (const auto& x : range) shift = std::max(shift, detail::plain_value(x));
    if (!std::isfinite(shift)) shift = 0;
    return log(sum(range, [&](const auto& x) { return exp(x - shift); })) + shift;
}

/// log sum_k exp(fn(x_k)) for a generic lambda fn of an element (or of the element and its
/// index k): over the components of a mixture, `zg::log_sum_exp(zg::range(K), fn)`.
template <class R, class Fn>
    requires detail::closed_map<Fn, R>
auto log_sum_exp(const R& range, Fn fn) {
    using T = detail::kept_t<decltype(detail::call_map(fn, *std::ranges::begin(range), 0))>;
    std::vector<T> terms;
    terms.reserve(std::ranges::size(range));
    std::size_t k = 0;
    for (const auto& x : range) terms.push_back(detail::call_map(fn, x, k++));
    return log_sum_exp(terms);
}

/// log(exp(a) + exp(b) + ...) of a few scalars, shifted by the largest.
template <class A, class B, class... Rest>
    requires(!std::ranges::range<A> && !std::is_invocable_v<const B&, int> &&
             !requires { typename A::tree_type; } && !requires { typename B::tree_type; } &&
             (!requires { typename Rest::tree_type; } && ...) &&
             requires {
                 typename std::common_type_t<detail::kept_t<A>, detail::kept_t<B>,
                                             detail::kept_t<Rest>...>;
             })
auto log_sum_exp(const A& a, const B& b, const Rest&... rest) {
    using T = std::common_type_t<detail::kept_t<A>, detail::kept_t<B>, detail::kept_t<Rest>...>;
    const std::vector<T> terms{T(a), T(b), T(rest)...};
    return log_sum_exp(terms);
}

namespace reduction_rules {

// The rules of the reductions a tape records as one node, as core/rules.hpp states those of the
// elementary operations: the value, and dy/dx_k written to partials[k]. Each sums or multiplies
// from the first element to the last, as the loops above do, so either way gives the same
// value to the bit.

/// y = sum_k x_k; dy/dx_k = 1.
template <class T>
T sum(std::span<const T> x, T* partials) {
    T total(0);
    for (std::size_t k = 0; k < x.size(); ++k) {
        total = k == 0 ? x[0] : total + x[k];
        partials[k] = T(1);
    }
    return total;
}

/// y = sum_k a_k b_k; dy/da_k = b_k and dy/db_k = a_k.
template <class T>
T dot(std::span<const T> a, std::span<const T> b, T* partials_a, T* partials_b) {
    T total(0);
    for (std::size_t k = 0; k < a.size(); ++k) {
        total = k == 0 ? a[0] * b[0] : total + a[k] * b[k];
        partials_a[k] = b[k];
        partials_b[k] = a[k];
    }
    return total;
}

/// y = prod_k x_k; dy/dx_k is the product of the others, as the product of the elements before
/// k times those after it: exact when elements are zero, and no division.
template <class T>
T prod(std::span<const T> x, T* partials) {
    T product(1);
    for (std::size_t k = 0; k < x.size(); ++k) {
        partials[k] = product;
        product = k == 0 ? x[0] : product * x[k];
    }
    T suffix(1);
    for (std::size_t k = x.size(); k-- > 0;) {
        partials[k] = partials[k] * suffix;
        suffix = suffix * x[k];
    }
    return product;
}

// log_sum_exp, in every mode and in the tensors' log_softmax and cross_entropy: the value is
// shift + log(total), with total = sum_k exp(x_k - shift) around the largest element, and the
// partial by x_k is exp(x_k - shift) / total. Where no shift helps, one policy:
//
//   no elements                          value -inf
//   every element -inf (a masked row)    value -inf, every partial 0
//   some element +inf (and none NaN)     value +inf, partial 1/m for each of the m infinite
//                                        elements (the limit of the softmax), 0 for the others
//   some element NaN                     value NaN, every partial NaN
//
// Each mode computes the terms and their total its own way (kept, fused, in lanes), then lets
// log_sum_exp_settle give the value and put the edge cases into the terms and the total, so
// that term / total is the partial in every case.

/// The shift: the largest element (NaN ignored) when finite, else 0.
inline double log_sum_exp_shift(double largest) { return std::isfinite(largest) ? largest : 0.0; }

/// The value from the terms exp(x_k - shift) (n of them, `stride` apart) and their total, which
/// it leaves such that terms[k] / total is dy/dx_k, the edge cases included.
template <class T>
T log_sum_exp_settle(T* terms, std::size_t n, std::size_t stride, T& total, double shift) {
    using std::log;
    constexpr double infinity = std::numeric_limits<double>::infinity();
    if (total > T(0) && total < T(infinity)) [[likely]]
        return log(total) + shift;
    if (total == T(0)) { // no elements, or every one -inf: the terms are all 0
        total = T(1);
        return T(-infinity);
    }
    if (total == T(infinity)) { // shift 0 and some element +inf: its term is +inf
        std::size_t infinite = 0;
        for (std::size_t k = 0; k < n; ++k) {
            T& term = terms[k * stride];
            term = term == T(infinity) ? T(1) : T(0);
            infinite += term == T(1);
        }
        total = T(static_cast<double>(infinite));
        return T(infinity);
    }
    return total; // NaN: so is the value, and every term / total
}

/// The value of log sum_k exp(x_k) for the n elements value_of(0), ..., value_of(n - 1): puts
/// their terms exp(x_k - shift) into terms[k * stride] and their total (summed first to last)
/// into `total`, settled so that terms[k] / total is dy/dx_k. Every mode's log_sum_exp computes
/// through this, with the elements wherever that mode keeps them.
template <class T, class ValueOf>
T log_sum_exp_terms(std::size_t n, ValueOf value_of, T* terms, std::size_t stride, T& total) {
    using std::exp;
    double largest = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < n; ++k)
        largest = std::max(largest, detail::primal(value_of(k)));
    const double shift = log_sum_exp_shift(largest);
    total = T(0);
    for (std::size_t k = 0; k < n; ++k) {
        T& term = terms[k * stride];
        term = exp(value_of(k) - shift);
        total = k == 0 ? term : total + term;
    }
    return log_sum_exp_settle(terms, n, stride, total, shift);
}

/// y = log sum_k exp(x_k) and dy/dx_k, by the policy above.
template <class T>
T log_sum_exp(std::span<const T> x, T* partials) {
    T total;
    const T y = log_sum_exp_terms(x.size(), [&](std::size_t k) -> const T& { return x[k]; },
                                  partials, 1, total);
    for (std::size_t k = 0; k < x.size(); ++k)
        partials[k] = partials[k] / total;
    return y;
}

// The strided form, for the rows (along any axis) of a tensor's log_softmax and cross_entropy:
// their softmax is log_sum_exp's partials.

/// log sum exp over n elements `stride` apart as max + log(sum(exp(x - max))): subtracting the
/// maximum first keeps every exponential finite (logits of 1000 give 1000 + log(...), not
/// infinity). The two parts are returned apart because x - max is exact for nearby values, so
/// (x - max) - log_sum keeps the digits that x - (max + log_sum) would round away at large x.
/// A row where no shift helps (empty, all -inf, some +inf or NaN) has log_sum NaN: its softmax
/// comes from edge_softmax, by the policy above.
struct log_sum_exp_parts {
    double max;
    double log_sum;
};

inline log_sum_exp_parts strided_log_sum_exp(const double* x, std::size_t n, std::size_t stride) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j)
        top = std::max(top, x[j * stride]);
    const double shift = log_sum_exp_shift(top);
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j)
        total += std::exp(x[j * stride] - shift);
    if (total > 0 && total < std::numeric_limits<double>::infinity()) [[likely]]
        return {shift, std::log(total)};
    return {shift, std::numeric_limits<double>::quiet_NaN()};
}

/// The softmax of a row where no shift helps, into p (`stride` apart, as the row): 0 for a
/// masked row, 1/m on its m infinite elements, NaN from NaN.
inline void edge_softmax(const double* x, std::size_t n, std::size_t stride, double* p) {
    double total;
    log_sum_exp_terms(n, [&](std::size_t j) { return x[j * stride]; }, p, stride, total);
    for (std::size_t j = 0; j < n; ++j)
        p[j * stride] /= total;
}

} // namespace reduction_rules

} // namespace zg
