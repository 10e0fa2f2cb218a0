// zerograd/expr/reduce/recurrence.hpp: what a zg::scan keeps in the call's frame: the forms a
// state takes (a scalar, std::array, std::tuple, std::pair), each step's trees with their values,
// or, for steps of numbers and inputs, each step's partials as a row; and their sweeps back.
// The step's evaluation and sweep are ZG_INLINE into the loop over t, as map_reduce's are.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/expr/memory/accumulate.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/ops/vector.hpp"
#include "zerograd/expr/reduce/map_reduce.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zg::expr {

namespace detail {

/// A state as first and step return it: one scalar, or a std::array, std::tuple or std::pair of
/// scalars (an LSTM cell's (h, c), a filter's mean and variance). `shaped` builds the same form from
/// one expression per component, which is how step receives the previous state.
template <class R>
struct state_form {
    static constexpr std::size_t size = 1;
    static constexpr int kind = 0;
    template <std::size_t K>
    static const R& component(const R& r) {
        return r;
    }
    template <class E, std::size_t... K>
    static E shaped(const std::array<E, 1>& components, std::index_sequence<K...>) {
        return components[0];
    }
};
template <class E0, std::size_t S>
struct state_form<std::array<E0, S>> {
    static constexpr std::size_t size = S;
    static constexpr int kind = 1;
    template <std::size_t K>
    static const E0& component(const std::array<E0, S>& r) {
        return std::get<K>(r);
    }
    template <class E, std::size_t... K>
    static std::array<E, S> shaped(const std::array<E, S>& components, std::index_sequence<K...>) {
        return components;
    }
};
template <class... E0>
struct state_form<std::tuple<E0...>> {
    static constexpr std::size_t size = sizeof...(E0);
    static constexpr int kind = 2;
    template <std::size_t K>
    static const auto& component(const std::tuple<E0...>& r) {
        return std::get<K>(r);
    }
    template <class E, std::size_t... K>
    static auto shaped(const std::array<E, size>& components, std::index_sequence<K...>) {
        return std::tuple{components[K]...};
    }
};

/// A tree with its values, as a recurrence keeps each step.
template <class Tree>
struct evaluated_tree {
    Tree tree;
    values_of<Tree> values;
    explicit evaluated_tree(const Tree& t) : tree(t), values(evaluated(t)) {}
    typename Tree::value_type value() const { return value_at(tree, values.data()); }
};

template <class E0, class E1>
struct state_form<std::pair<E0, E1>> {
    static constexpr std::size_t size = 2;
    static constexpr int kind = 3;
    template <std::size_t K>
    static const auto& component(const std::pair<E0, E1>& r) {
        return std::get<K>(r);
    }
    template <class E, std::size_t... K>
    static auto shaped(const std::array<E, 2>& components, std::index_sequence<K...>) {
        return std::pair{components[0], components[1]};
    }
};

/// The trees of a state of form R in a frame of scalar T, each with its values: a std::tuple of
/// evaluated_tree, one per component.
template <class T, class R, class = std::make_index_sequence<state_form<R>::size>>
struct state_trees;
template <class T, class R, std::size_t... K>
struct state_trees<T, R, std::index_sequence<K...>> {
    template <std::size_t J>
    using tree = decltype(tree_from<T>(state_form<R>::template component<J>(std::declval<R>())));
    using type = std::tuple<evaluated_tree<tree<K>>...>;
    using call = typename join_calls<call_of<tree<K>>...>::type;
    static constexpr bool scalars = (!vector_node<tree<K>> && ...);
    static type make(const R& r) {
        return type{
            evaluated_tree<tree<K>>(tree_from<T>(state_form<R>::template component<K>(r)))...};
    }
};

/// The leaves a recurrence's kept trees read.
template <class Trees>
inline constexpr leaf_set state_trees_leaves{};
template <class... Tree>
inline constexpr leaf_set state_trees_leaves<std::tuple<evaluated_tree<Tree>...>> =
    (leaf_set{} | ... | leaves_of<Tree>);

/// Calls step on the previous state and an element x, and its index t if step takes one.
template <class Step, class P, class X>
ZG_INLINE auto call_step(Step& step, const P& previous, X&& x, std::size_t t) {
    if constexpr (std::is_invocable_v<Step&, const P&, X, std::size_t>)
        return f_returns_one_type_so_pick_with_zg_select(
            step, previous, std::forward<X>(x), t);
    else
        return f_returns_one_type_so_pick_with_zg_select(step, previous,
                                                                            std::forward<X>(x));
}

/// The recurrence a zg::scan evaluates as it is built: each step's trees (one per component of
/// the state) and values, whose inputs are the previous state (slots adding into `carry`) and
/// the element. first and step may capture the lambda's leaves by reference, which die when the
/// lambda returns, so the steps are kept rather than called again. The states' uses gather
/// their adjoints per state; the recurrence is a shared node of the frame, swept after all its
/// uses: backwards, each step's sweep adding into the previous state's adjoints, as a
/// hand-written adjoint of the loop does.
template <class T, class First, class Step>
struct recurrence : shared_base<T> {
    static constexpr std::string_view name = "scan";
    static constexpr std::size_t size = std::tuple_size_v<Step>;
    std::array<state_block<T>, size> blocks; // component k's states' adjoints
    std::size_t length = 0;
    T* states = nullptr;   // component k's at states + k * length
    T* adjoints = nullptr; // ... gathered from the states' uses, laid out as states
    std::array<T, size> carry{}; // the previous state's adjoints, from the step swept now
    std::optional<First> first;
    Step* steps = nullptr; // step t at steps[t - 1]
    shared_base<T>** scope_ends = nullptr; // the scoped list after each step (its shared nodes)
    shared_base<T>* scope_stop = nullptr;

    template <class Trees, class Sink>
    static void sweep_step(const Trees& trees, const std::array<T, size>& adjoint, Sink& sink) {
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((zg::detail::is_zero(adjoint[K])
                  ? void()
                  : sweep_at(std::get<K>(trees).tree, std::get<K>(trees).values.data(),
                             adjoint[K], sink)),
             ...);
        }
        (std::make_index_sequence<size>{});
    }

    /// State t's adjoints: what its uses gathered and what step t + 1 passed back.
    std::array<T, size> adjoint_at(std::size_t t) {
        std::array<T, size> a;
        for (std::size_t k = 0; k < size; ++k)
            a[k] = std::exchange(adjoints[k * length + t], T(0)) + std::exchange(carry[k], T(0));
        return a;
    }

    static void sweep_node(shared_base<T>& base, sweep_context<T>& context) {
        auto& r = static_cast<recurrence&>(base);
        if (std::all_of(r.adjoints, r.adjoints + size * r.length,
                        [](const T& a) { return a == T(0); }))
            return;
        constexpr std::uint64_t leaves =
            (state_trees_leaves<First> | state_trees_leaves<Step>).scalars;
        loop_sink<T, leaves, 0, 0, sweep_context<T>> sink(context);
        for (std::size_t t = r.length; t-- > 1;) {
            sweep_step(r.steps[t - 1], r.adjoint_at(t), sink);
            if (r.scope_ends[t] != r.scope_ends[t - 1]) [[unlikely]]
                sweep_list(r.scope_ends[t], r.scope_ends[t - 1], context);
        }
        sweep_step(*r.first, r.adjoint_at(0), sink);
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
        // A row step's ends are leaves, constants and slots alone (row_end): the other members
        // of a sink are never called.
        template <class U = T>
        void add_scalar(std::size_t, const U&) {
            static_assert(!sizeof(U), "a zg::scan row step with an argument of a runtime index");
        }
        template <std::size_t I, class U = T>
        void element(std::size_t, const U&) {
            static_assert(!sizeof(U), "a zg::scan row step with a vector element");
        }
        template <class U = T>
        void add_element(std::size_t, std::size_t, const U&) {
            static_assert(!sizeof(U), "a zg::scan row step with a vector element");
        }
        template <class U = T>
        void shared(shared_base<U>&, const U&) {
            static_assert(!sizeof(U), "a zg::scan row step with a shared node");
        }
        template <class U = T>
        void state(std::size_t, const state_block<U>&, const U&) {
            static_assert(!sizeof(U), "a zg::scan row step with a scan's state");
        }
        template <std::size_t J, class U = T>
        void broadcast(const U&) {
            static_assert(!sizeof(U), "a zg::scan row step with a broadcast operand");
        }
        template <std::size_t J, class U = T>
        void hoisted(const U&) {
            static_assert(!sizeof(U), "a zg::scan row step with a hoisted part");
        }
        row_sink& context() { return *this; }
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

} // namespace zg::expr
