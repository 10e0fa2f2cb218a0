// zerograd/expr/memory/kept.hpp: what a call's frame keeps, each piece by itself: the shared
// subexpressions (kept once, swept once from a list), the states of its vector arguments'
// gradients, and the memory of the trees a long formula holds.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/thread_object.hpp"
#include "zerograd/expr/memory/arena.hpp"
#include "zerograd/expr/tree/describe.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/evaluate.hpp"

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

namespace zg::expr {

template <class T>
struct sweep_context;

// ---- Shared subexpressions ----------------------------------------------------------------------

/// A subexpression kept once in the frame: its value, the adjoint its uses gather, and how to
/// sweep it (its tree's type is known where it was made, so the sweep is a function pointer).
/// Each lives in a list in the order made, which the frame sweeps backwards: every use of a node
/// is made after it, so each node is swept after all of its uses.
template <class T>
struct shared_base {
    T value{};
    T adjoint{};
    void (*sweep)(shared_base&, sweep_context<T>&) = nullptr;
    void (*destroy)(shared_base*) = nullptr; // in constant evaluation, where it was new'd
    std::size_t (*describe)(const shared_base&, description&) = nullptr; // for printing
    shared_base* previous = nullptr; // made just before it, in its list
    std::uint32_t gathered_in = 0;   // the gathering (below) that last noted it
    bool persistent = false;         // made outside element functions: lives to the end
};

template <class Tree>
struct shared_node : shared_base<typename Tree::value_type> {
    Tree tree;
    values_of<Tree> values; // each slot written by evaluate
    constexpr explicit shared_node(const Tree& t) : tree(t) {
        if (std::is_constant_evaluated()) values = {}; // read only where written, but literal
    }
};

/// Sweeps the nodes from `last` back to (not including) `stop`.
template <class T>
constexpr void sweep_list(shared_base<T>* last, shared_base<T>* stop, sweep_context<T>& context) {
    for (shared_base<T>* node = last; node != stop; node = node->previous)
        node->sweep(*node, context);
}

/// The shared nodes made outside an element function that a reduction's elements reached while
/// it swept them as it was built (zerograd/expr/reduce/map_reduce.hpp): each with the adjoint it
/// gathered then, which the reduction's own sweep scales and passes on.
template <class T>
struct gathered_use {
    shared_base<T>* node;
    T partial;
    gathered_use* next;
};

/// The same for the states of a persistent zg::scan: the partials by each state, in a row.
template <class T>
struct gathered_states {
    const state_block<T>* block;
    T* partials;
    gathered_states* next;
};

// ---- Vector arguments ---------------------------------------------------------------------------

/// Vector argument I's gradient during a call, and who writes into it. A reduction built at the
/// top level of the lambda that is the first node to reach the argument may claim it: it adds
/// its partials by the argument's elements (for adjoint 1) into the gradient itself as it is
/// built, and its sweep only records the adjoint that reached it (`scale`), as a hand-written
/// adjoint writes its gradient in the forward loop. When the sweep ends, the gradient is scaled,
/// and what other nodes wrote meanwhile (into `deferred`) is added.
template <class T>
struct argument_state {
    std::size_t length = 0; // 0 for a number
    T* gradient = nullptr;  // a vector argument's
    T* deferred = nullptr;  // where others write when the gradient is claimed and shared
    bool touched = false;   // a node's sweep writes into it
    bool shared = false;    // ... and another's too
    bool claimed = false;   // the first holds its partials in `gradient`
    bool strong = false;    // the adjoint reaching the claimant may be infinite
    T scale{};              // the adjoints that reached the claimant
};

/// A reduction that sweeps its elements as it builds them (zerograd/expr/reduce/map_reduce.hpp):
/// nodes built meanwhile write into its record, which `reach` gives partials for the vector
/// arguments they reach before anything is written.
struct immediate_target {
    void (*reach)(immediate_target&, std::uint64_t vectors);
    std::uint64_t reached = 0; // the vector arguments it has partials for
};

// ---- Held trees' memory -------------------------------------------------------------------------

namespace detail {
/// A block of the thread's scratch memory (arena.hpp's pool) for held trees past the caller's
/// stack (frame::hold). It starts with the block the call spilled into before it, so that the
/// call gives them all back when it ends.
struct alignas(16) held_spill {
    block_pool::block self;
    held_spill* before;
};
/// A block with room for `bytes` after its header: out of line and cold, and given no pointer
/// into the caller's frame, so that the frame need not be in memory for it.
[[gnu::cold, gnu::noinline]] inline held_spill* more_held_memory(std::size_t bytes,
                                                                 held_spill* before) {
    const block_pool::block block =
        zg::detail::this_thread_object<block_pool>().take(sizeof(held_spill) + bytes);
    return ::new (block.data) held_spill{block, before};
}
[[gnu::cold, gnu::noinline]] inline void release_held_memory(held_spill* last) {
    block_pool& pool = zg::detail::this_thread_object<block_pool>();
    for (held_spill* before; last != nullptr; last = before) {
        before = last->before;
        pool.give_back(last->self);
    }
}
} // namespace detail

} // namespace zg::expr
