// zerograd/expr/tree/evaluate.hpp: a tree's values: the slots its operations take, and their
// evaluation, post-order into one array. Evaluation is ZG_INLINE, for the reason the sweep is
// (tree/sweep.hpp): one function per tree.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/tree/node.hpp"

#include <array>
#include <cstddef>

namespace zg::expr {

// ---- Values -------------------------------------------------------------------------------------
// A tree's values live in an array: each operation takes one slot after its operands' slots
// (post-order), so a node whose slots start at `values` finds its own value at
// values[slot_count - 1]. Ends
// (leaves, constants, shared uses, reductions) hold their value themselves.

/// The slots a node takes besides its operands': one for an operation's value, and one more, before
/// it, for the partial of a rule that computes both in one call (zg::detail::fused_rule).
template <class Node>
inline constexpr std::size_t own_slots = std::size_t{is_operation<Node>};
template <class Op, class A>
inline constexpr std::size_t own_slots<unary_expr<Op, A>> =
    zg::detail::fused_rule<Op, typename A::value_type> ? 2 : 1;

template <class Tree>
inline constexpr std::size_t own_slots<held_expr<Tree>> = 0; // its value is its tree's

/// Whether a tree holds a part of itself through a pointer (held_expr).
template <class Node>
inline constexpr bool holds_any = holds_any<operands_of<Node>>;
template <class Tree>
inline constexpr bool holds_any<held_expr<Tree>> = true; // (not looking further down)
template <class... Operands>
inline constexpr bool holds_any<operand_list<Operands...>> = (false || ... || holds_any<Operands>);

template <class Node>
inline constexpr std::size_t slot_count = own_slots<Node> + slot_count<operands_of<Node>>;
template <class... Operands>
inline constexpr std::size_t slot_count<operand_list<Operands...>> =
    (std::size_t{0} + ... + slot_count<Operands>);

/// The values of a tree: an array of its slots (at least one element, so it is never empty).
template <class Tree>
using values_of = std::array<typename Tree::value_type, slot_count<Tree> + (slot_count<Tree> == 0)>;

// The functions below take `values` pointing at the node's first slot, so that their
// instantiations follow the node types, not the positions of nodes in a tree.

/// The value of the node whose slots start at `values`: an operation's is in its slot, a shared
/// subexpression's in its frame node, and every other node holds its own.
template <class Node, class T>
ZG_INLINE constexpr const T& value_at(const Node& node, const T* values) {
    if constexpr (is_operation<Node>)
        return values[slot_count<Node> - 1];
    else if constexpr (kind_of<Node> == node_kind::shared)
        return node.node->value;
    else
        return node.value;
}

/// A node of an expression's tree: an operation (operands_of lists its operands: unary_expr,
/// binary_expr, select_expr), whose value is computed into the tree's slots, or an end, which
/// holds its value (or its shared node's). The sweep of an end is where its adjoint goes:
/// visit_end for the leaves, constants and elements of tree/node.hpp and for the ends a call
/// makes (tree/ends.hpp), or the end's own backward for a reduction, whose sweep walks its
/// elements.
template <class N>
concept Node = declared_node<N>;

template <class Tree, class T>
constexpr void evaluate_held(const Tree& tree, T* values);

/// Computes the values of the tree's operations into values[0], values[1], ...
template <Node N, class T>
ZG_INLINE constexpr void evaluate(const N& node, T* values) {
    constexpr node_kind kind = kind_of<N>;
    if constexpr (kind == node_kind::binary) {
        T* r_values = values + slot_count<decltype(node.l)>;
        evaluate(node.l, values);
        evaluate(node.r, r_values);
        r_values[slot_count<decltype(node.r)>] = zg::detail::checked_value(
            node.op, value_at(node.l, values), value_at(node.r, r_values));
    } else if constexpr (kind == node_kind::known_unary) {
        values[slot_count<decltype(node.a)>] = node.known_value;
    } else if constexpr (kind == node_kind::unary) {
        evaluate(node.a, values);
        constexpr std::size_t at = slot_count<decltype(node.a)>;
        if constexpr (own_slots<N> == 2) {
            const auto both = zg::detail::checked_value_and_dx(node.op, value_at(node.a, values));
            values[at] = both.dx;
            values[at + 1] = both.value;
        } else {
            values[at] = zg::detail::checked_value(node.op, value_at(node.a, values));
        }
    } else if constexpr (kind == node_kind::select) {
        T* b_values = values + slot_count<decltype(node.a)>;
        evaluate(node.a, values);
        evaluate(node.b, b_values);
        b_values[slot_count<decltype(node.b)>] =
            node.first ? value_at(node.a, values) : value_at(node.b, b_values);
    } else if constexpr (kind == node_kind::held) {
        evaluate_held(*node.tree, values);
    } else if constexpr (is_operation<N>) {
        static_assert(unhandled_kind<N>, "zg::expr::evaluate: an operation of an unhandled kind");
    } // an end holds its value
}

/// The local partial of op(a) whose slots start at `values`: kept in its slot by a rule that
/// computes it with the value, else the rule's dx at the operand's value and its own.
template <class Op, class A, class T>
ZG_INLINE constexpr T unary_partial(const unary_expr<Op, A>& node, const T* values) {
    constexpr std::size_t at = slot_count<A>;
    if constexpr (own_slots<unary_expr<Op, A>> == 2)
        return values[at];
    else
        return node.op.dx(value_at(node.a, values), values[at]);
}

/// Trees of up to this many operations are evaluated and swept where they are used; larger ones
/// in a function of their own (ZG_APART), where the call costs little beside the work.
inline constexpr std::size_t inline_slots = 128;

/// The evaluation of a held tree (held_expr): where it is used, or apart for a large one. Not
/// constexpr, so that the compiler makes each such function on its own rather than inside the
/// one that calls it: a long formula's walks never nest deeper than one held tree.
template <class Tree, class T>
ZG_APART void evaluate_apart(const Tree& tree, T* values) {
    evaluate(tree, values);
}
template <class Tree, class T>
ZG_INLINE constexpr void evaluate_held(const Tree& tree, T* values) {
    if constexpr (slot_count<Tree> > inline_slots)
        evaluate_apart(tree, values);
    else
        evaluate(tree, values);
}

template <class Tree>
ZG_APART constexpr values_of<Tree> evaluated_apart(const Tree& tree) {
    values_of<Tree> values; // not cleared: evaluate writes every slot
    if constexpr (slot_count<Tree> == 0) values[0] = {}; // (the one of a tree without any)
    evaluate(tree, values.data());
    return values;
}

/// The tree's values, evaluated.
template <class Tree>
ZG_INLINE constexpr values_of<Tree> evaluated(const Tree& tree) {
    if constexpr (slot_count<Tree> > inline_slots) {
        return evaluated_apart(tree);
    } else {
        values_of<Tree> values; // not cleared: evaluate writes every slot
        if constexpr (slot_count<Tree> == 0) values[0] = {};
        evaluate(tree, values.data());
        return values;
    }
}

} // namespace zg::expr
