// zerograd/fwd/reductions.hpp: zg::prod and zg::log_sum_exp over ranges of duals, from the
// reduction rules of core/reductions.hpp: the value and the partials the tape records, chained
// with the elements' derivatives, so that forward mode follows the same policy at infinities,
// NaN and empty ranges as every other mode. (zg::sum and zg::dot compose the elementary rules,
// which gives the same partials.)
#pragma once

#include "zerograd/core/reductions.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/fwd/dual.hpp"

#include <cstddef>
#include <ranges>
#include <span>
#include <vector>

namespace zg::fwd {

namespace detail {

template <class X>
inline constexpr bool is_dual = false;
template <class T>
inline constexpr bool is_dual<dual_t<T>> = true;

} // namespace detail

/// A sized range of duals.
template <class R>
concept dual_range = zg::detail::scalar_range<R> && detail::is_dual<zg::detail::element_t<R>>;

namespace detail {

/// y = rule(values) with its partials, and y's derivative sum_k chain(x_k', partial_k). The
/// buffers are the thread's, kept: a rule calls nothing that reduces again.
template <class R, class Rule>
auto reduce(const R& range, Rule rule) {
    using D = zg::detail::element_t<R>;
    using T = decltype(D::value);
    thread_local std::vector<T> values, partials;
    values.clear();
    for (const D& x : range)
        values.push_back(x.value);
    partials.resize(values.size());
    D y(rule(std::span<const T>(values), partials.data()), T(0));
    std::size_t k = 0;
    for (const D& x : range)
        y.deriv = y.deriv + zg::detail::chain(x.deriv, partials[k++]);
    return y;
}

} // namespace detail

/// The product of a range of duals (one for an empty range).
template <class R>
requires dual_range<R>
auto prod(const R& range) {
    return detail::reduce(range, reduction_rules::prod<decltype(zg::detail::element_t<R>::value)>);
}

/// log(sum(exp(x))) of a range of duals, stable for large elements.
template <class R>
requires dual_range<R>
auto log_sum_exp(const R& range) {
    return detail::reduce(range,
                          reduction_rules::log_sum_exp<decltype(zg::detail::element_t<R>::value)>);
}

} // namespace zg::fwd

namespace zg {
using fwd::log_sum_exp;
using fwd::prod;
} // namespace zg
