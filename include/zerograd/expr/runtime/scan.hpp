// zerograd/expr/runtime/scan.hpp: zg::scan, a recurrence over a vector in expression mode: the
// states s_0 = first(v_0), s_t = step(s_{t-1}, v_t) as a vector expression, swept backwards in one
// pass.
// The step's evaluation and sweep are ZG_INLINE into the loop over t, as map_reduce.hpp's are.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/operations.hpp"
#include "zerograd/expr/runtime/accumulate.hpp"
#include "zerograd/expr/runtime/frame.hpp"
#include "zerograd/expr/runtime/map_reduce.hpp"
#include "zerograd/expr/runtime/nodes.hpp"
#include "zerograd/expr/runtime/sinks.hpp"
#include "zerograd/expr/runtime/vector.hpp"
#include "zerograd/expr/sweep.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <string_view>
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
    static constexpr std::string_view name = "scan";
    state_block<T> block{this, nullptr, 0};
    std::size_t length = 0;
    T* states = nullptr;
    T* adjoints = nullptr; // gathered from the states' uses
    std::optional<First> first;
    values_of<First> first_values{};
    Step* steps = nullptr; // step t at steps[t - 1]
    values_of<Step>* step_values = nullptr;
    shared_base<T>** scope_ends = nullptr; // the scoped list after each step (its shared nodes)
    shared_base<T>* scope_stop = nullptr;

    /// Where a step's sweep puts adjoints: the previous state's in a register (`carry`), which
    /// the next step (t - 1) adds to what that state's uses gathered; the rest as the loop's.
    struct step_sink
        : loop_sink<T, leaves_of<First>.scalars | leaves_of<Step>.scalars, 0, 0, sweep_context<T>> {
        using loop_sink<T, leaves_of<First>.scalars | leaves_of<Step>.scalars, 0, 0,
                        sweep_context<T>>::loop_sink;
        const T* previous = nullptr;
        T carry{};
        ZG_INLINE void slot(const slot_expr<T>& s, const T& adjoint) {
            if (s.adjoint == previous)
                carry += adjoint;
            else
                *s.adjoint += adjoint; // a previous state a shared node holds
        }
    };

    static void sweep_node(shared_base<T>& base, sweep_context<T>& context) {
        const auto& r = static_cast<const recurrence&>(base);
        if (std::all_of(r.adjoints, r.adjoints + r.length, [](const T& a) { return a == T(0); }))
            return;
        step_sink sink(context);
        for (std::size_t t = r.length; t-- > 1;) {
            const T adjoint = std::exchange(r.adjoints[t], T(0)) + std::exchange(sink.carry, T(0));
            sink.previous = r.adjoints + t - 1;
            sweep_at(r.steps[t - 1], r.step_values[t - 1].data(), adjoint, sink);
            if (r.scope_ends[t] != r.scope_ends[t - 1]) [[unlikely]]
                sweep_list(r.scope_ends[t], r.scope_ends[t - 1], context);
        }
        const T adjoint = std::exchange(r.adjoints[0], T(0)) + sink.carry;
        sweep_at(*r.first, r.first_values.data(), adjoint, sink);
        if (r.scope_ends[0] != r.scope_stop) sweep_list(r.scope_ends[0], r.scope_stop, context);
        sink.finish();
    }
};

template <class Node>
struct row_end : std::false_type {}; // an argument_expr's partial needs a column of its own
template <std::size_t I, class T, class F>
struct row_end<leaf_expr<I, T, F>> : std::true_type {};
template <class T>
struct row_end<constant_expr<T>> : std::true_type {};
template <class T>
struct row_end<slot_expr<T>> : std::true_type {};
/// A step tree of numbers, inputs and operations only: its partials can be kept as a row.
template <class Node>
inline constexpr bool row_step = made_of<row_end, true, Node>;

/// The recurrence of steps of numbers and inputs (the common case, as a stochastic volatility
/// model's AR(1) step): each step is swept as it is built, with adjoint 1, into a row of its
/// partials by the previous state, by v_t and by each scalar argument it reads; the sweep then
/// walks the rows backwards, the adjoint of the previous state in a register, and sweeps v's
/// element t with its share, as a hand-written adjoint of the loop does.
template <class T, class V, std::uint64_t Leaves>
struct row_recurrence : shared_base<T> {
    static constexpr std::string_view name = "scan";
    static constexpr std::size_t leaves = std::size_t(std::popcount(Leaves));
    static constexpr std::size_t width = 2 + leaves; // by s_{t-1}, by v_t, by each leaf
    state_block<T> block{this, nullptr, 0};
    V v;
    T* adjoints = nullptr;
    T* rows = nullptr;

    explicit row_recurrence(const V& vector) : v(vector) {}

    /// Where a step's local sweep puts its partials: row[0] and row[1] through the inputs'
    /// slots, leaf I at row[2 + the number of leaves before I].
    struct row_sink {
        T* row;
        template <std::size_t I>
        ZG_INLINE void leaf(const T& adjoint) {
            row[2 + std::popcount(Leaves & ((std::uint64_t{1} << I) - 1))] += adjoint;
        }
        ZG_INLINE void slot(const slot_expr<T>& s, const T& adjoint) { *s.adjoint += adjoint; }
        // A row step has no argument of a runtime index and no vector element (row_end).
        void add_scalar(std::size_t, const T&) {}
        template <std::size_t I>
        void element(std::size_t, const T&) {}
    };

    static void sweep_node(shared_base<T>& base, sweep_context<T>& context) {
        auto& r = static_cast<row_recurrence&>(base);
        const std::size_t n = r.block.length;
        if (std::all_of(r.adjoints, r.adjoints + n, [](const T& a) { return a == T(0); })) return;
        loop_sink<T, leaves_of<V>.scalars, V::broadcasts, 0, sweep_context<T>> loop(context);
        std::array<T, leaves> totals{};
        T carry(0);
        for (std::size_t t = n; t-- > 0;) {
            const T adjoint = std::exchange(r.adjoints[t], T(0)) + carry;
            carry = T(0);
            if (zg::detail::is_zero(adjoint)) continue; // nothing depends on this state
            const T* row = r.rows + t * width;
            const bool finite = zg::detail::is_finite(adjoint);
            const auto times = [&](const T& partial) {
                return finite ? adjoint * partial : zg::detail::chain(adjoint, partial);
            };
            carry = times(row[0]);
            for (std::size_t i = 0; i < leaves; ++i)
                totals[i] += times(row[2 + i]);
            const auto e = r.v.template element<true, 0>(t);
            const auto values = evaluated(e);
            sweep_at(e, values.data(), times(row[1]), loop);
        }
        loop.finish();
        r.v.template pass_broadcasts<0>(loop.broadcasts.data(), context);
        [&]<std::size_t... I>(std::index_sequence<I...>) { (pass_leaf<I>(totals, context), ...); }
        (std::make_index_sequence<64>{});
    }

    template <std::size_t I>
    static void pass_leaf(const std::array<T, leaves>& totals, sweep_context<T>& context) {
        if constexpr (Leaves >> I & 1)
            context.template leaf<I>(
                totals[std::size_t(std::popcount(Leaves & ((std::uint64_t{1} << I) - 1)))]);
    }
};

} // namespace detail

/// The states of a recurrence of the call F, as a vector expression: element k is state k, whose
/// adjoint is gathered for the recurrence's sweep.
template <class T, class F>
struct scan_expr {
    using value_type = T;
    using call = F;
    static constexpr std::size_t broadcasts = 0;
    const state_block<T>* block; // the recurrence's
    const T* states;
    std::size_t offset; // of the first state shown (a slice shows fewer)
    std::size_t count;

    constexpr std::size_t size() const { return count; }
    template <bool Loop, std::size_t J>
    ZG_INLINE constexpr state_expr<T, F> element(std::size_t k) const {
        return {states[offset + k], offset + k, block};
    }
    template <std::size_t J, class Sink>
    constexpr void pass_broadcasts(const T*, Sink&) const {}
    constexpr scan_expr sliced(std::size_t from, std::size_t n) const {
        return {block, states, offset + from, n};
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
namespace detail {

/// The call of a scan's states: its input's, first's and step's.
template <class V, class First, class Step>
using scan_call =
    typename join_calls<call_of<tree_of<V>>, call_of<First>, call_of<Step>>::type;

/// zg::scan's recurrence as rows of partials (see row_recurrence).
template <class T, class V, class First, class Step>
auto scan_rows(frame<T>& f, const V& v, First& first, Step& step) {
    using input = expression<slot_expr<T>>;
    using first_tree =
        decltype(tree_from<T>(std::declval<std::invoke_result_t<First&, const input&>>()));
    using step_tree = decltype(tree_from<T>(
        std::declval<std::invoke_result_t<Step&, const input&, const input&>>()));
    constexpr std::uint64_t leaves = (leaves_of<first_tree> | leaves_of<step_tree>).scalars;
    using record = row_recurrence<T, tree_of<V>, leaves>;
    constexpr std::size_t width = record::width;
    const std::size_t n = v.tree.size();
    auto* r = ::new (f.template place<record>()) record(v.tree);
    T* const states = f.template scratch<T>(n);
    r->adjoints = f.template zeroed<T>(n);
    r->rows = f.template scratch<T>(n * width);
    const std::uint32_t depth = f.depth();
    f.guarded([&] {
        typename frame<T>::element_scope scope(f, nullptr);
        // The state is carried in a local: read back from `states` after the stores of a step
        // (which may alias it), it would put a store and a load on the recurrence's chain.
        T state(0);
        for (std::size_t t = 0; t < n; ++t) {
            T* row = r->rows + t * width;
            std::fill_n(row, width, T(0)); // while its cache line is written anyway
            const input vt{slot_expr<T>{element_value(r->v, t), row + 1}, &f, depth};
            const auto swept = [&](const auto& tree) {
                const auto values = evaluated(tree);
                typename record::row_sink sink{row};
                sweep_tree(tree, values.data(), T(1), sink);
                return value_at(tree, values.data());
            };
            if (t == 0)
                state = swept(tree_from<T>(first(vt)));
            else
                state = swept(tree_from<T>(step(input{slot_expr<T>{state, row}, &f, depth}, vt)));
            states[t] = state;
        }
    });
    f.touch(leaves_of<tree_of<V>>.vectors);
    r->block.adjoints = r->adjoints;
    r->block.length = n;
    f.keep(r);
    return make(scan_expr<T, scan_call<V, first_tree, step_tree>>{&r->block, states, 0, n}, &f);
}

/// zg::scan's recurrence as kept step trees (see recurrence), for steps that use shared nodes.
template <class T, class V, class First, class Step>
auto scan_trees(frame<T>& f, const V& v, First& first, Step& step) {
    using input = expression<slot_expr<T>>;
    using element = expression<decltype(v.tree.template element<false, 0>(std::size_t{}))>;
    using first_tree =
        decltype(tree_from<T>(std::declval<std::invoke_result_t<First&, const element&>>()));
    using step_tree = decltype(tree_from<T>(
        std::declval<std::invoke_result_t<Step&, const input&, const element&>>()));
    using record = recurrence<T, first_tree, step_tree>;
    const std::size_t n = v.tree.size();
    auto* r = ::new (f.template place<record>()) record{};
    r->length = n;
    r->states = f.template scratch<T>(n);
    r->adjoints = f.template zeroed<T>(n);
    r->steps = f.template scratch<step_tree>(n - 1);
    r->step_values = f.template scratch<values_of<step_tree>>(n - 1);
    r->scope_ends = f.template scratch<shared_base<T>*>(n);
    r->scope_stop = f.scoped_last();
    const std::uint32_t depth = f.depth();
    f.guarded([&] {
        typename frame<T>::element_scope scope(f, nullptr);
        const auto element_at = [&](std::size_t t) {
            return element{v.tree.template element<false, 0>(t), &f, depth + 1};
        };
        r->first.emplace(tree_from<T>(first(element_at(0))));
        r->first_values = evaluated(*r->first);
        r->states[0] = value_at(*r->first, r->first_values.data());
        r->scope_ends[0] = f.scoped_last();
        T state = r->states[0];
        for (std::size_t t = 1; t < n; ++t) {
            const input previous{slot_expr<T>{state, r->adjoints + t - 1}, &f, depth + 1};
            const step_tree s = tree_from<T>(step(previous, element_at(t)));
            const values_of<step_tree> values = evaluated(s);
            state = value_at(s, values.data());
            ::new (r->steps + t - 1) step_tree(s);
            r->step_values[t - 1] = values;
            r->states[t] = state;
            r->scope_ends[t] = f.scoped_last();
        }
    });
    f.touch((leaves_of<first_tree> | leaves_of<step_tree>).vectors);
    r->block.adjoints = r->adjoints;
    r->block.length = n;
    f.keep(r);
    return make(scan_expr<T, scan_call<V, first_tree, step_tree>>{&r->block, r->states, 0, n},
                &f);
}

} // namespace detail

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
    using T = typename tree_of<V>::value_type;
    static_assert(std::is_same_v<T, double>, "zg::scan: supported for double scalars only");
    using input = expression<slot_expr<T>>;
    using first_result = std::invoke_result_t<First&, const input&>;
    using step_result = std::invoke_result_t<Step&, const input&, const input&>;
    static_assert(!Expression<first_result> || !vector_node<tree_of<first_result>>,
                  "zg::scan(v, first, step): first must return a scalar expression");
    static_assert(!Expression<step_result> || !vector_node<tree_of<step_result>>,
                  "zg::scan(v, first, step): step must return a scalar expression");
    frame<T>& f = detail::map_frame<T>(v.owner, "scan");
    if (v.tree.size() == 0) throw shape_error("zg::scan: the input vector is empty");
    using first_tree = decltype(detail::tree_from<T>(std::declval<first_result>()));
    using step_tree = decltype(detail::tree_from<T>(std::declval<step_result>()));
    if constexpr (detail::row_step<first_tree> && detail::row_step<step_tree>)
        return detail::scan_rows(f, v, first, step);
    else
        return detail::scan_trees(f, v, first, step);
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

} // namespace zg::expr

namespace zg {
using expr::scan;
} // namespace zg
