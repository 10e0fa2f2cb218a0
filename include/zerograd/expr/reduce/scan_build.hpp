// zerograd/expr/reduce/scan_build.hpp: a zg::scan built: its lambdas checked against its input
// and state (each misuse a message), and its states computed into a recurrence of rows or of
// trees in the call's frame.
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
#include "zerograd/expr/reduce/scan_states.hpp"

namespace zg::expr {

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

} // namespace zg::expr
