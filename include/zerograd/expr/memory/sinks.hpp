// zerograd/expr/memory/sinks.hpp: where the sweeps of a call that keeps a frame put their
// adjoints: sweep_context, the call's (scalar arguments, vector arguments' gradients, shared
// nodes, the states of scans, and what a reduction swept as it is built gathers), and loop_sink,
// a reduction loop's, which keeps loop-carried sums in registers. Their members are ZG_INLINE:
// they are the ends of the sweep's recursion (see tree/sweep.hpp).
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace zg::expr {

// ---- Where the adjoints go: sinks ---------------------------------------------------------------

/// Where a sweep puts the adjoints it reaches: scalar argument I into scalars[I], element k of
/// vector argument I into vectors[I][k], a shared node into its own adjoint. `gathering` is set
/// while a reduction sweeps its elements as it is built (zerograd/expr/reduce/map_reduce.hpp): it
/// notes the persistent shared nodes reached, whose adjoints the reduction takes over.
///
/// A sweep's destination is any type with these members (a "sink"); reductions wrap it in one
/// of their own that keeps loop-carried sums in registers (zerograd/expr/reduce/reductions.hpp).
template <class T>
struct sweep_context {
    T* scalars = nullptr;
    T* const* vectors = nullptr;
    struct gathering_type {
        frame<T>* owner;
        std::uint32_t number;
        gathered_use<T>* first = nullptr;
        gathered_states<T>* states = nullptr; // the latest first
    }* gathering = nullptr;

    template <std::size_t I>
    ZG_INLINE constexpr void leaf(const T& adjoint) {
        scalars[I] += adjoint;
    }
    template <std::size_t I>
    ZG_INLINE constexpr void element(std::size_t k, const T& adjoint) {
        vectors[I][k] += adjoint;
    }
    ZG_INLINE constexpr void shared(shared_base<T>& node, const T& adjoint) {
        node.adjoint += adjoint;
        if (gathering != nullptr && node.persistent && node.gathered_in != gathering->number)
            [[unlikely]]
            note(node);
    }
    ZG_INLINE constexpr void slot(const slot_expr<T>& s, const T& adjoint) {
        *s.adjoint += adjoint;
    }
    ZG_INLINE constexpr void state(std::size_t index, const state_block<T>& block,
                                   const T& adjoint) {
        if (gathering == nullptr || !block.node->persistent)
            block.adjoints[index] += adjoint;
        else if (gathering->states != nullptr && gathering->states->block == &block) [[likely]]
            gathering->states->partials[index] += adjoint;
        else
            gather(index, block, adjoint);
    }
    ZG_INLINE constexpr void add_scalar(std::size_t i, const T& adjoint) { scalars[i] += adjoint; }
    ZG_INLINE constexpr void add_element(std::size_t i, std::size_t k, const T& adjoint) {
        vectors[i][k] += adjoint;
    }
    // Broadcast operands and hoisted parts are ends of a reduction's loop only (loop_sink).
    template <std::size_t J>
    constexpr void broadcast(const T&) {
        static_assert(J != J, "zg::expr: a broadcast operand outside a reduction's loop");
    }
    template <std::size_t J>
    constexpr void hoisted(const T&) {
        static_assert(J != J, "zg::expr: a hoisted part outside a reduction's loop");
    }
    constexpr sweep_context& context() { return *this; }

private:
    /// The partials of this gathering by the states of a block, made first, latest first. Out
    /// of line: once per scan state reached, off the inlined sweep.
    [[gnu::noinline]] void gather(std::size_t index, const state_block<T>& block,
                                  const T& adjoint) {
        gathered_states<T>** found = &gathering->states;
        while (*found != nullptr && (*found)->block != &block)
            found = &(*found)->next;
        gathered_states<T>* use = *found;
        if (use == nullptr) {
            use = gathering->owner->template lasting<gathered_states<T>>(1);
            T* partials = gathering->owner->template lasting<T>(block.length);
            std::fill_n(partials, block.length, T(0));
            *use = {&block, partials, nullptr};
        } else {
            *found = use->next;
        }
        use->next = gathering->states;
        gathering->states = use;
        use->partials[index] += adjoint;
    }
    // Out of line: once per shared node (its first adjoint), off the inlined sweep.
    [[gnu::noinline]] void note(shared_base<T>& node) {
        node.gathered_in = gathering->number;
        auto* use = gathering->owner->template lasting<gathered_use<T>>(1);
        *use = {&node, T(0), gathering->first};
        gathering->first = use;
    }
};

namespace detail {

/// The sink of a loop over a reduction's elements: the adjoints of the scalar arguments in
/// `Leaves`, of broadcast operands and of hoisted parts are summed in registers across the loop
/// (a sum in memory would put a store and a load on every iteration's chain of additions);
/// everything else goes to `outer`. After the loop, finish() passes the sums on.
template <class T, std::uint64_t Leaves, std::size_t Broadcasts, std::size_t Hoisted, class Outer>
struct loop_sink {
    Outer& outer;
    std::array<T, std::bit_width(Leaves)> totals{};
    std::array<T, Broadcasts> broadcasts{};
    std::array<T, Hoisted> hoisted_totals{};

    explicit constexpr loop_sink(Outer& o) : outer(o) {}

    template <std::size_t I>
    ZG_INLINE constexpr void leaf(const T& adjoint) {
        if constexpr (I < 64 && (Leaves >> I & 1))
            totals[I] += adjoint;
        else
            outer.template leaf<I>(adjoint);
    }
    template <std::size_t I>
    ZG_INLINE constexpr void element(std::size_t k, const T& adjoint) {
        outer.template element<I>(k, adjoint);
    }
    ZG_INLINE constexpr void shared(shared_base<T>& node, const T& adjoint) {
        outer.shared(node, adjoint);
    }
    ZG_INLINE constexpr void state(std::size_t index, const state_block<T>& block,
                                   const T& adjoint) {
        outer.state(index, block, adjoint);
    }
    ZG_INLINE constexpr void slot(const slot_expr<T>& s, const T& adjoint) {
        outer.slot(s, adjoint);
    }
    template <std::size_t J>
    ZG_INLINE constexpr void broadcast(const T& adjoint) {
        broadcasts[J] += adjoint;
    }
    template <std::size_t J>
    ZG_INLINE constexpr void hoisted(const T& adjoint) {
        hoisted_totals[J] += adjoint;
    }
    ZG_INLINE constexpr void add_scalar(std::size_t i, const T& adjoint) {
        outer.add_scalar(i, adjoint);
    }
    ZG_INLINE constexpr void add_element(std::size_t i, std::size_t k, const T& adjoint) {
        outer.add_element(i, k, adjoint);
    }
    constexpr auto& context() { return outer.context(); }

    /// Passes the scalar arguments' sums on (the broadcasts' and hoisted parts' are the
    /// reduction's to pass).
    constexpr void finish() {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((Leaves >> I & 1 ? outer.template leaf<I>(totals[I]) : void()), ...);
        }
        (std::make_index_sequence<std::bit_width(Leaves)>{});
    }
};

} // namespace detail

/// A shared node's sweep, with the adjoint its uses gathered, which it takes: a second sweep
/// (the next row of a Jacobian) passes only what arrived since.
template <class T>
template <class Tree>
constexpr void frame<T>::sweep_shared(shared_base<T>& base, sweep_context<T>& context) {
    auto& node = static_cast<shared_node<Tree>&>(base);
    const T adjoint = node.adjoint;
    node.adjoint = T(0);
    sweep_at(node.tree, node.values.data(), adjoint, context);
}

} // namespace zg::expr
