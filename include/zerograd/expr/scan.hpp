// zerograd/expr/scan.hpp: zg::scan, a recurrence over a vector in expression mode: the states
// s_0 = first(v_0), s_t = step(s_{t-1}, v_t) as a vector expression, swept backwards in one pass.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/expr/accumulate.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/frame.hpp"
#include "zerograd/expr/map_reduce.hpp"
#include "zerograd/expr/operations.hpp"
#include "zerograd/expr/sweep.hpp"
#include "zerograd/expr/vector.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

namespace zg::expr {

namespace detail {

/// The recurrence a zg::scan evaluates as it is built: each step's tree and values, whose
/// inputs are the previous state (a slot adding into that state's adjoint) and v's element.
/// first and step may capture the lambda's leaves by reference, which die when the lambda
/// returns, so the steps are kept rather than called again. The states' uses gather their
/// adjoints per state; the recurrence is a shared node of the frame, swept after all its uses:
/// backwards, each step's sweep adding into the previous state's adjoint, as a hand-written
/// adjoint of the loop does.
template <class T, class First, class Step>
struct recurrence : shared_base<T> {
    std::size_t length = 0;
    T* states = nullptr;
    T* adjoints = nullptr; // gathered from the states' uses
    std::optional<First> first;
    values_of<First> first_values{};
    Step* steps = nullptr; // step t at steps[t - 1]
    values_of<Step>* step_values = nullptr;
    shared_base<T>** scope_ends = nullptr; // the scoped list after each step (its shared nodes)
    shared_base<T>* scope_stop = nullptr;

    static void sweep_recurrence(shared_base<T>& base, sweep_context<T>& context) {
        const auto& r = static_cast<const recurrence&>(base);
        if (std::all_of(r.adjoints, r.adjoints + r.length, [](const T& a) { return a == T(0); }))
            return;
        loop_sink<T, leaves_of<First>.scalars | leaves_of<Step>.scalars, 0, 0, sweep_context<T>>
            loop(context);
        for (std::size_t t = r.length; t-- > 1;) {
            const T adjoint = std::exchange(r.adjoints[t], T(0)); // adds into adjoints[t - 1]
            sweep_at<0>(r.steps[t - 1], r.step_values[t - 1].data(), adjoint, loop);
            if (r.scope_ends[t] != r.scope_ends[t - 1])
                sweep_list(r.scope_ends[t], r.scope_ends[t - 1], context);
        }
        sweep_at<0>(*r.first, r.first_values.data(), std::exchange(r.adjoints[0], T(0)), loop);
        if (r.scope_ends[0] != r.scope_stop) sweep_list(r.scope_ends[0], r.scope_stop, context);
        loop.finish();
    }
};

} // namespace detail

/// The states of a recurrence, as a vector expression: element k is state k, whose adjoint is
/// gathered for the recurrence's sweep.
template <class T>
struct scan_expr {
    using value_type = T;
    static constexpr std::size_t broadcasts = 0;
    const shared_base<T>* recurrence; // the node whose sweep passes the gathered adjoints on
    const T* states;
    T* adjoints;
    std::size_t count;

    constexpr std::size_t size() const { return count; }
    template <bool Loop, std::size_t J>
    ZG_INLINE constexpr state_expr<T> element(std::size_t k) const {
        return {states[k], adjoints + k, recurrence};
    }
    template <std::size_t J, class Sink>
    constexpr void pass_broadcasts(const T*, Sink&) const {}
    constexpr scan_expr sliced(std::size_t offset, std::size_t n) const {
        return {recurrence, states + offset, adjoints + offset, n};
    }
};

/// The states of the recurrence s_0 = first(v_0), s_t = step(s_{t-1}, v_t), as a vector
/// expression. first and step are generic lambdas; they may capture the lambda's leaves by
/// reference. A range of doubles is a constant vector. The AR(1) part of a stochastic-volatility
/// model, h_t - mu = sigma z_t + phi (h_{t-1} - mu) with a stationary start:
///
///     auto d = zg::scan(sigma * z, [&](auto d0) { return d0 / sqrt(1 - square(phi)); },
///                       [&](auto previous, auto dt) { return dt + phi * previous; });
///     auto h = d + mu;
///
/// A scan's states are computed inside zg::grad (they live in its frame): the lambda must be
/// called by zg::grad or zg::value_and_grad.
template <class V, class First, class Step>
    requires detail::vector_expression<V>
auto scan(const V& v, First first, Step step) {
    using vector_tree = tree_of<V>;
    using T = typename vector_tree::value_type;
    static_assert(std::is_same_v<T, double>, "zg::scan: supported for double scalars only");
    using input = expression<slot_expr<T>>;
    using element = expression<decltype(v.tree.template element<false, 0>(std::size_t{}))>;
    using first_result = std::invoke_result_t<First&, const element&>;
    using step_result = std::invoke_result_t<Step&, const input&, const element&>;
    static_assert(!Expression<first_result> || !vector_node<tree_of<first_result>>,
                  "zg::scan(v, first, step): first must return a scalar expression");
    static_assert(!Expression<step_result> || !vector_node<tree_of<step_result>>,
                  "zg::scan(v, first, step): step must return a scalar expression");
    using first_tree = decltype(detail::tree_from<T>(std::declval<first_result>()));
    using step_tree = decltype(detail::tree_from<T>(std::declval<step_result>()));
    using record = detail::recurrence<T, first_tree, step_tree>;

    frame<T>& f = detail::map_frame<T>(v.owner, "scan");
    const std::size_t n = v.tree.size();
    if (n == 0) throw shape_error("zg::scan: the input vector is empty");
    auto* r = ::new (f.template scratch<record>(1)) record{};
    r->length = n;
    r->states = f.template scratch<T>(n);
    r->adjoints = f.template zeroed<T>(n);
    r->steps = f.template scratch<step_tree>(n - 1);
    r->step_values = f.template scratch<values_of<step_tree>>(n - 1);
    r->scope_ends = f.template scratch<shared_base<T>*>(n);
    r->scope_stop = f.scoped_last();
    {
        typename frame<T>::element_scope scope(f, nullptr);
        const auto element_at = [&](std::size_t t) {
            return detail::make(v.tree.template element<false, 0>(t), &f);
        };
        r->first.emplace(detail::tree_from<T>(first(element_at(0))));
        r->first_values = evaluated(*r->first);
        r->states[0] = value_at<0>(*r->first, r->first_values.data());
        r->scope_ends[0] = f.scoped_last();
        for (std::size_t t = 1; t < n; ++t) {
            const input previous = detail::make(slot_expr<T>{r->states[t - 1], r->adjoints + t - 1}, &f);
            step_tree* s = ::new (r->steps + t - 1) step_tree(
                detail::tree_from<T>(step(previous, element_at(t))));
            r->step_values[t - 1] = evaluated(*s);
            r->states[t] = value_at<0>(*s, r->step_values[t - 1].data());
            r->scope_ends[t] = f.scoped_last();
        }
    }
    f.touch((leaves_of<first_tree> | leaves_of<step_tree>).vectors);
    f.adopt(r, &record::sweep_recurrence);
    return detail::make(scan_expr<T>{r, r->states, r->adjoints, n}, &f);
}

/// The recurrence s_0 = v_0, s_t = step(s_{t-1}, v_t); see the three-argument scan.
template <class V, class Step>
    requires detail::vector_expression<V>
auto scan(const V& v, Step step) {
    return scan(v, [](const auto& v0) { return v0; }, step);
}

/// A range of doubles as the input of a scan.
template <class R, class First, class Step>
    requires detail::double_range<R>
auto scan(R&& data, First first, Step step) {
    frame<double>& f = detail::map_frame<double>(nullptr, "scan");
    const auto v = detail::make(detail::constant_vector(std::forward<R>(data)), &f);
    return scan(v, std::move(first), std::move(step));
}
template <class R, class Step>
    requires detail::double_range<R>
auto scan(R&& data, Step step) {
    return scan(std::forward<R>(data), [](const auto& v0) { return v0; }, step);
}

} // namespace zg::expr

namespace zg {
using expr::scan;
} // namespace zg
