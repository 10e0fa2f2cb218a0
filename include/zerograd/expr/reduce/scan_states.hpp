// zerograd/expr/reduce/scan_states.hpp: the states of a zg::scan, as the lambda sees them: a
// vector expression of one scalar state, or one per component (get<K>, structured bindings).
#pragma once

#include "zerograd/expr/reduce/recurrence.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zg::expr {

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

} // namespace zg::expr

template <class T, class F, class Form>
struct std::tuple_size<zg::expr::scan_states<T, F, Form>>
    : std::integral_constant<std::size_t, zg::expr::detail::state_form<Form>::size> {};
template <std::size_t K, class T, class F, class Form>
struct std::tuple_element<K, zg::expr::scan_states<T, F, Form>> {
    using type = decltype(std::declval<zg::expr::scan_states<T, F, Form>>().template get<K>());
};
