// zerograd/expr/reduce/scan.hpp: zg::scan, a recurrence over a vector in expression mode: the
// states s_0 = first(v_0), s_t = step(s_{t-1}, v_t) as a vector expression, swept backwards in one
// pass.
// The step's evaluation and sweep are ZG_INLINE into the loop over t, as map_reduce.hpp's are.
#pragma once

#include "zerograd/expr/reduce/scan_build.hpp"
#include "zerograd/expr/reduce/scan_states.hpp"

#include <utility>

namespace zg::expr {

/// The states of the recurrence s_0 = first(x_0), s_t = step(s_{t-1}, x_t) over the elements x_t
/// of a vector expression, a range of doubles or an index range. first and step are generic
/// lambdas, which may capture the lambda's leaves by reference; step may take the index t as a
/// third argument. A state is a scalar, whose states are a vector expression, or a std::array or
/// std::tuple of scalars, whose states are a scan_states. The AR(1) part of a
/// stochastic-volatility model, h_t - mu = sigma z_t + phi (h_{t-1} - mu) with a stationary
/// start:
///
///     auto d = zg::scan(sigma * z, [&](auto d0) { return d0 / sqrt(1 - square(phi)); },
///                       [&](auto previous, auto dt) { return dt + phi * previous; });
///     auto h = d + mu;
///
/// A scan's states are computed inside zg::grad (they live in its frame): the lambda must be
/// called by zg::grad, zg::value_and_grad or zg::jacobian.
template <class V, class First, class Step>
requires detail::vector_expression<V>
auto scan(const V& v, First first, Step step) {
    using T = typename tree_of<V>::value_type;
    static_assert(std::is_same_v<T, double>, "zg::scan: supported for double scalars only");
    if constexpr (!detail::scan_lambdas_fit<T, V, First, Step>()) {
        return detail::after_static_assert<
            typename detail::unfit_scan<T, V, First>::type>();
    } else {
        frame<T>& f = detail::map_frame<T>(v.owner, "scan");
        if (v.tree.size() == 0) throw shape_error("zg::scan: the input vector is empty");
        using types = detail::scan_types<T, V, First, Step>;
        if constexpr (types::form::kind != 0)
            return detail::scan_trees(f, v, first, step);
        else if constexpr (detail::row_scan<T, First, Step>())
            return detail::scan_rows(f, v, first, step);
        else
            return detail::scan_trees(f, v, first, step);
    }
}

/// The recurrence s_0 = v_0, s_t = step(s_{t-1}, v_t); see the three-argument scan.
template <class V, class Step>
requires detail::vector_expression<V>
auto scan(const V& v, Step step) {
    return scan(
        v, [](const auto& v0) { return v0; }, step);
}

/// A range of doubles as the input of a scan.
template <class R, class First, class Step>
requires detail::double_range<R>
auto scan(R&& data, First first, Step step) {
    frame<double>& f = detail::map_frame<double>(nullptr, "scan");
    const auto v = detail::make(detail::constant_vector(std::forward<R>(data), &f), &f);
    return scan(v, std::move(first), std::move(step));
}
template <class R, class Step>
requires detail::double_range<R>
auto scan(R&& data, Step step) {
    return scan(
        std::forward<R>(data), [](const auto& v0) { return v0; }, step);
}

/// A recurrence over an index range (zg::range(n)): first(i_0), step(s_{t-1}, i_t).
template <class R, class First, class Step>
requires detail::integer_range<R>
auto scan(const R& indices, First first, Step step) {
    using T = double;
    if constexpr (!detail::scan_lambdas_fit<T, R, First, Step>()) {
        return detail::after_static_assert<
            typename detail::unfit_scan<T, R, First>::type>();
    } else {
        frame<T>& f = detail::map_frame<T>(nullptr, "scan");
        return detail::scan_trees(f, indices, first, step);
    }
}

/// Any other input (a span of zg::var under zg::tape::grad, a list of numbers that is not
/// contiguous): one static_assert that says where a scan works. What it returns lets a use of
/// the states compile, so that the static_assert is the only error.
template <class R, class... Lambdas>
requires(!detail::vector_expression<R> && !detail::double_range<R> && !detail::integer_range<R> &&
         (sizeof...(Lambdas) == 1 || sizeof...(Lambdas) == 2))
auto scan(const R&, const Lambdas&...) {
    static_assert(detail::always_false<R>,
                  "zg::scan(range, ...): the range must be a vector expression, a contiguous "
                  "range of doubles or an index range (zg::range(n)). zg::scan is expression "
                  "mode's: under zg::tape::grad (a range of zg::var), write the recurrence as a "
                  "loop");
    if constexpr (std::ranges::range<const R&>)
        return detail::after_static_assert<
            std::vector<std::remove_cvref_t<std::ranges::range_value_t<const R&>>>>();
}

} // namespace zg::expr


namespace zg {
using expr::scan;
} // namespace zg
