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

/// The states of a recurrence of the call F, as a vector expression: element k is state k, whose
/// adjoint is gathered for the recurrence's sweep.
template <class T, class F>
struct scan_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::vector;
    static constexpr std::size_t broadcasts = 0;
    static constexpr leaf_set leaves{}; // its recurrence reaches the arguments
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

/// The states of a recurrence whose state has several components (a std::array or std::tuple
/// of scalars): `states[t]` is state t, in that form, and component K's states are a vector
/// expression, `states.get<K>()`, which structured bindings give (`auto [h, c] = zg::scan(...)`).
template <class T, class F, class Form>
struct scan_states {
    static constexpr std::size_t size_of_state = detail::state_form<Form>::size;
    const state_block<T>* blocks; // component k's at blocks[k]
    const T* states;              // component k's at states + k * length
    std::size_t length;
    frame<T>* owner;

    constexpr std::size_t size() const { return length; }
    /// State t: one scalar expression per component, as step receives the previous state.
    auto operator[](std::size_t t) const {
        if (t >= length) [[unlikely]]
            throw shape_error("zg::scan: state " + std::to_string(t) + " of " +
                              std::to_string(length) + " states");
        std::array<expression<state_expr<T, F>>, size_of_state> components;
        for (std::size_t k = 0; k < size_of_state; ++k)
            components[k] = detail::make(
                state_expr<T, F>{states[k * length + t], t, blocks + k}, owner);
        return detail::state_form<Form>::shaped(components,
                                                std::make_index_sequence<size_of_state>{});
    }
    /// Component K's states, as a vector expression.
    template <std::size_t K>
    auto get() const {
        static_assert(K < size_of_state, "zg::scan: the state has fewer components");
        return detail::make(scan_expr<T, F>{blocks + K, states + K * length, 0, length}, owner);
    }
};

/// Component K's states, found by argument-dependent lookup: `get<1>(states)` inside a generic
/// lambda, where the member needs `states.template get<1>()`.
template <std::size_t K, class T, class F, class Form>
auto get(const scan_states<T, F, Form>& states) {
    return states.template get<K>();
}

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

/// What first and step receive for the elements of Range: a vector expression's element, a
/// range's integer.
template <class Range>
using scan_element = typename element_argument<Range>::type;

/// The previous state as step receives it, for states of form R: one input per component.
template <class T, class R>
using previous_state =
    decltype(state_form<R>::shaped(std::declval<const std::array<expression<slot_expr<T>>,
                                                                 state_form<R>::size>&>(),
                                   std::make_index_sequence<state_form<R>::size>{}));
/// What step returns for states of form R over the elements of Range.
template <class T, class Range, class Step, class R>
using step_result_of =
    decltype(call_step(std::declval<Step&>(), std::declval<const previous_state<T, R>&>(),
                       std::declval<scan_element<Range>>(), std::size_t{}));

/// The types of a scan over Range: first's state and step's, of one form.
template <class T, class Range, class First, class Step>
struct scan_types {
    using element = scan_element<Range>;
    using first_result = decltype(call_element(std::declval<First&>(), std::declval<element>(),
                                               std::size_t{}));
    using form = state_form<first_result>;
    static constexpr std::size_t size = form::size;
    using input = expression<slot_expr<T>>; // a component of the previous state
    using step_result = step_result_of<T, Range, Step, first_result>;
    using first_trees = state_trees<T, first_result>;
    using step_trees = state_trees<T, step_result>; // of first's form: scan_lambdas_fit says so
    using call = typename join_calls<typename first_trees::call,
                                     typename step_trees::call>::type;
};

/// The call of a scan's input: a vector expression's, none for a range of integers.
template <class Range>
struct range_call {
    using type = no_call;
};
template <class Range>
requires vector_expression<Range>
struct range_call<Range> {
    using type = call_of<tree_of<Range>>;
};

/// A component of a state: a scalar expression or a number.
template <class E>
inline constexpr bool scalar_component = Number<std::remove_cvref_t<E>>;
template <class E>
requires Expression<E>
inline constexpr bool scalar_component<E> = !vector_node<tree_of<E>>;

/// Whether R is a state: a scalar, or a std::array or std::tuple of one or more scalars.
template <class R>
constexpr bool state_of_scalars() {
    using form = state_form<std::remove_cvref_t<R>>;
    if constexpr (form::kind == 0)
        return scalar_component<R>;
    else
        return form::size > 0 && [&]<std::size_t... K>(std::index_sequence<K...>) {
            return (scalar_component<decltype(form::template component<K>(
                        std::declval<const std::remove_cvref_t<R>&>()))> &&
                    ...);
        }(std::make_index_sequence<form::size>{});
}

/// A component's scalar: its expression's, or none for a number.
template <class E>
struct component_scalar {
    using type = void;
};
template <class E>
requires Expression<E>
struct component_scalar<E> {
    using type = typename tree_of<E>::value_type;
};

/// The scalar a state's expressions compute on: its first expression's, T where it holds numbers
/// alone (a dual inside zg::hessian, where a scan must say it computes on doubles only).
template <class T, class... Scalars>
struct first_scalar {
    using type = T;
};
template <class T, class S0, class... Scalars>
struct first_scalar<T, S0, Scalars...> {
    using type =
        std::conditional_t<std::is_void_v<S0>, typename first_scalar<T, Scalars...>::type, S0>;
};
template <class T, class R, class = std::make_index_sequence<state_form<R>::size>>
struct state_scalar;
template <class T, class R, std::size_t... K>
struct state_scalar<T, R, std::index_sequence<K...>> {
    using type = typename first_scalar<
        T, typename component_scalar<std::remove_cvref_t<decltype(
               state_form<R>::template component<K>(std::declval<const R&>()))>>::type...>::type;
};

/// first's and step's results checked before anything is built from them: false (after a
/// static_assert that says why) where they are not states of one form.
template <class T, class Range, class First, class Step>
constexpr bool scan_lambdas_fit() {
    using element = scan_element<Range>;
    constexpr bool first_takes = std::is_invocable_v<First&, element> ||
                                 std::is_invocable_v<First&, element, std::size_t>;
    static_assert(first_takes,
                  "zg::scan(range, first, step): first must take an element of the range (an "
                  "expression over a vector or data, an integer over an index range: write it "
                  "as a generic lambda's auto parameter) and, optionally, its index t; if it "
                  "does, the error above in its body is the cause");
    if constexpr (!first_takes) {
        return false;
    } else {
        using first_result = decltype(call_element(std::declval<First&>(),
                                                   std::declval<element>(), std::size_t{}));
        constexpr bool first_state = state_of_scalars<first_result>();
        static_assert(first_state,
                      "zg::scan(range, first, step): first must return a scalar expression or a "
                      "number, or a std::tuple, std::pair or std::array of them (a state of "
                      "several scalars); for a vector of states, scan each component. zg::scan "
                      "is expression mode's: under zg::tape::grad, write the loop");
        if constexpr (!first_state) {
            return false;
        } else if constexpr (constexpr bool doubles =
                                 std::is_same_v<typename state_scalar<T, first_result>::type, T>;
                             !doubles) {
            static_assert(doubles, "zg::scan: supported for double scalars only (inside "
                                   "zg::hessian, write the recurrence with zg::var and use "
                                   "zg::tape::hessian)");
            return false;
        } else {
            using form = state_form<first_result>;
            using previous = previous_state<T, first_result>;
            constexpr bool step_takes =
                std::is_invocable_v<Step&, const previous&, element> ||
                std::is_invocable_v<Step&, const previous&, element, std::size_t>;
            static_assert(step_takes,
                          "zg::scan(range, first, step): step must take the previous state, in "
                          "the form first returns it, and an element of the range (and, "
                          "optionally, its index t)");
            if constexpr (!step_takes) {
                return false;
            } else {
                using step_result = step_result_of<T, Range, Step, first_result>;
                constexpr bool step_state = state_of_scalars<step_result>() &&
                                            state_form<step_result>::kind == form::kind &&
                                            state_form<step_result>::size == form::size;
                static_assert(step_state,
                              "zg::scan(range, first, step): step must return the state in the "
                              "form first returns it (a scalar, or a std::tuple, std::pair or "
                              "std::array of as many scalars)");
                return step_state;
            }
        }
    }
}

/// What a scan whose lambdas do not fit gives, so that the static_assert is the only error: the
/// states of first's form where first can be called.
template <class T, class Range, class First>
struct unfit_scan {
    using type = expression<scan_expr<T, no_call>>;
};
template <class T, class Range, class First>
requires std::is_invocable_v<First&, scan_element<Range>> ||
    std::is_invocable_v<First&, scan_element<Range>, std::size_t>
struct unfit_scan<T, Range, First> {
    using result = std::remove_cvref_t<decltype(call_element(
        std::declval<First&>(), std::declval<scan_element<Range>>(), std::size_t{}))>;
    using scalar = typename state_scalar<T, result>::type; // a use of the states compiles
    using type = std::conditional_t<state_form<result>::kind == 0,
                                    expression<scan_expr<scalar, no_call>>,
                                    scan_states<scalar, no_call, result>>;
};
/// Declared only: called where a static_assert has already failed.
template <class Result>
Result after_static_assert();

/// Whether a scan of a vector expression with a scalar state fits row_recurrence: step takes
/// no index and its trees, and first's, are of numbers, inputs and operations only.
template <class T, class First, class Step>
constexpr bool row_scan() {
    using input = expression<slot_expr<T>>;
    if constexpr (!std::is_invocable_v<First&, const input&> ||
                  !std::is_invocable_v<Step&, const input&, const input&> ||
                  std::is_invocable_v<Step&, const input&, const input&, std::size_t>) {
        return false;
    } else {
        using first_result = std::invoke_result_t<First&, const input&>;
        using step_result = std::invoke_result_t<Step&, const input&, const input&>;
        if constexpr (!scalar_component<first_result> || !scalar_component<step_result>)
            return false;
        else
            return row_step<decltype(tree_from<T>(std::declval<first_result>()))> &&
                   row_step<decltype(tree_from<T>(std::declval<step_result>()))>;
    }
}

/// A sized range of integers (zg::range(n), std::views::iota(0, n)) as the input of a scan.
template <class R>
concept integer_range = !vector_expression<R> && std::ranges::sized_range<const R&> &&
                      std::is_integral_v<std::remove_cvref_t<std::ranges::range_value_t<R>>>;

/// zg::scan's recurrence as kept step trees (see recurrence): steps over a range's integers, of
/// a state of several scalars, or that use shared nodes.
template <class T, class Range, class First, class Step>
auto scan_trees(frame<T>& f, const Range& range, First& first, Step& step) {
    using types = scan_types<T, Range, First, Step>;
    constexpr std::size_t size = types::size;
    using first_state = typename types::first_trees::type;
    using step_state = typename types::step_trees::type;
    using record = recurrence<T, first_state, step_state>;
    const elements_of<Range> elements{range};
    const std::size_t n = elements.size();
    if (n == 0)
        throw shape_error("zg::scan: the input is empty (a recurrence needs a first element)");
    auto* r = ::new (f.template place<record>()) record{};
    r->length = n;
    r->states = f.template scratch<T>(size * n);
    r->adjoints = f.template zeroed<T>(size * n);
    r->steps = f.template scratch<step_state>(n - 1);
    r->scope_ends = f.template scratch<shared_base<T>*>(n);
    r->scope_stop = f.scoped_last();
    const std::uint32_t depth = f.depth();
    f.guarded([&] {
        typename frame<T>::element_scope scope(f, nullptr);
        std::array<typename types::input, size> previous;
        for (std::size_t k = 0; k < size; ++k)
            previous[k] = {slot_expr<T>{T(0), r->carry.data() + k}, &f, depth + 1};
        const auto keep_state = [&](const auto& trees, std::size_t t) {
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                ((r->states[K * n + t] = previous[K].tree.value = std::get<K>(trees).value()),
                 ...);
            }
            (std::make_index_sequence<size>{});
            r->scope_ends[t] = f.scoped_last();
        };
        elements.for_each(f, [&](auto&& x, std::size_t t) {
            if (t == 0) {
                r->first.emplace(types::first_trees::make(call_element(first, x, 0)));
                keep_state(*r->first, 0);
            } else {
                const auto state = types::form::shaped(previous, std::make_index_sequence<size>{});
                ::new (r->steps + t - 1)
                    step_state(types::step_trees::make(call_step(step, state, x, t)));
                keep_state(r->steps[t - 1], t);
            }
        });
    });
    f.touch((state_trees_leaves<first_state> | state_trees_leaves<step_state>).vectors);
    for (std::size_t k = 0; k < size; ++k)
        r->blocks[k] = {r, r->adjoints + k * n, n};
    f.keep(r);
    using call = typename join_calls<typename range_call<Range>::type, typename types::call>::type;
    if constexpr (types::form::kind == 0)
        return make(scan_expr<T, call>{r->blocks.data(), r->states, 0, n}, &f);
    else
        return scan_states<T, call, typename types::first_result>{r->blocks.data(), r->states, n,
                                                                   &f};
}

} // namespace detail

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

template <class T, class F, class Form>
struct std::tuple_size<zg::expr::scan_states<T, F, Form>>
    : std::integral_constant<std::size_t, zg::expr::detail::state_form<Form>::size> {};
template <std::size_t K, class T, class F, class Form>
struct std::tuple_element<K, zg::expr::scan_states<T, F, Form>> {
    using type = decltype(std::declval<zg::expr::scan_states<T, F, Form>>().template get<K>());
};
