// zerograd/expr/tree/ends.hpp: the ends of a tree that a call makes at run time, beside the
// leaves, constants and elements of tree/node.hpp: a use of a subexpression kept once in the
// frame, the states and inputs of a zg::scan, and the accumulators of a reduction's loop. Each
// says where its adjoint goes (visit_end), found by the sweep of tree/sweep.hpp.
// visit_end is ZG_INLINE: part of the sweep's recursion (see tree/sweep.hpp).
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/expr/tree/describe.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <cstddef>

namespace zg::expr {

template <class T>
struct shared_base; // zerograd/expr/memory/frame.hpp: a subexpression kept once in the frame

/// A number whose adjoint is added at `adjoint`: a state of a zg::scan, a step's input.
template <class T>
struct slot_expr {
    using value_type = T;
    static constexpr node_kind kind = node_kind::end;
    T value;
    T* adjoint;
};

/// The states of a zg::scan: the adjoints their uses gather, which the recurrence's sweep (the
/// frame node `node`) passes on.
template <class T>
struct state_block {
    const shared_base<T>* node;
    T* adjoints;
    std::size_t length;
};

/// State `index` of a zg::scan of the call F.
template <class T, class F>
struct state_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::end;
    T value;
    std::size_t index;
    const state_block<T>* block;
};

/// A scalar operand of an elementwise vector operation, inside a reduction's loop over the
/// elements: the loop gathers its adjoint in accumulator J, and the scalar is swept once after.
template <std::size_t J, class T>
struct broadcast_expr {
    using value_type = T;
    static constexpr node_kind kind = node_kind::end;
    T value;
};

/// A part of a map-reduce's function that does not depend on the element (`log(sigma)` in a sum
/// over data): evaluated for the first element only, its adjoint gathered in accumulator J over
/// all of them and swept once.
template <std::size_t J, class T>
struct hoisted_expr {
    using value_type = T;
    static constexpr node_kind kind = node_kind::end;
    T value;
};

/// A use of a subexpression kept once in the call's frame (a named intermediate used several
/// times, or zg::let): its value and adjoint live there, and it is swept once, after its uses.
/// The node's tree is not part of the type, so a chain of intermediates each used twice stays
/// a type of the size written.
template <class T, class F>
struct shared_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::shared;
    shared_base<T>* node;
};

template <class Node>
inline constexpr bool is_shared = kind_of<Node> == node_kind::shared;

// ---- Where their adjoints go -------------------------------------------------------------------

template <class T, class Sink>
ZG_INLINE constexpr void visit_end(const slot_expr<T>& s, const T& adjoint, Sink& sink) {
    sink.slot(s, adjoint);
}
template <class T, class F, class Sink>
ZG_INLINE constexpr void visit_end(const state_expr<T, F>& s, const T& adjoint, Sink& sink) {
    sink.state(s.index, *s.block, adjoint);
}
template <std::size_t J, class T, class Sink>
ZG_INLINE constexpr void visit_end(const broadcast_expr<J, T>&, const T& adjoint, Sink& sink) {
    sink.template broadcast<J>(adjoint);
}
template <std::size_t J, class T, class Sink>
ZG_INLINE constexpr void visit_end(const hoisted_expr<J, T>&, const T& adjoint, Sink& sink) {
    sink.template hoisted<J>(adjoint);
}
template <class T, class F, class Sink>
ZG_INLINE constexpr void visit_end(const shared_expr<T, F>& s, const T& adjoint, Sink& sink) {
    sink.shared(*s.node, adjoint);
}

// ---- How they print (expr/describe.hpp) ---------------------------------------------------------

template <class T, class F>
void describe_end(const shared_expr<T, F>& s, described_node& d) {
    d.shared = s.node;
}
template <class T, class F>
void describe_end(const state_expr<T, F>&, described_node& d) {
    d.label = "state";
}
template <class T>
void describe_end(const slot_expr<T>&, described_node& d) {
    d.label = "state"; // a zg::scan step's previous state or input
}
template <std::size_t J, class T>
void describe_end(const broadcast_expr<J, T>&, described_node& d) {
    d.label = "broadcast";
}
template <std::size_t J, class T>
void describe_end(const hoisted_expr<J, T>&, described_node& d) {
    d.label = "hoisted";
}

} // namespace zg::expr
