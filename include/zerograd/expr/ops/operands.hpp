// zerograd/expr/ops/operands.hpp: what an operation holds for each operand: a small tree by
// value, a large one held in the call's frame, a named intermediate through its shared node, a
// number as a constant; and the node an operation makes, with the frame it belongs to.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace zg::expr {

template <class Op, class V>
struct vector_unary_expr; // zerograd/expr/ops/vector.hpp
template <class Op, class L, class R>
struct vector_binary_expr;

/// A plain number that mixes with expressions: double, int, and the other arithmetic types.
template <class U>
concept Number = std::is_arithmetic_v<U>;

namespace detail {

/// Operations whose value and partials cost a few additions or multiplications (the rule says so).
template <class Op>
inline constexpr bool cheap = cheap_rule<Op>;

/// How much work evaluating and sweeping a tree again would repeat: its operations, the costly
/// ones counted twice.
template <class Node>
inline constexpr std::size_t weight = [] {
    constexpr node_kind kind = kind_of<Node>;
    if constexpr (kind == node_kind::binary)
        return (cheap<decltype(Node::op)> ? 1 : 2) + weight<decltype(Node::l)> +
               weight<decltype(Node::r)>;
    else if constexpr (kind == node_kind::unary || kind == node_kind::known_unary)
        return (cheap<decltype(Node::op)> ? 1 : 2) + weight<decltype(Node::a)>;
    else if constexpr (kind == node_kind::select)
        return 1 + weight<decltype(Node::a)> + weight<decltype(Node::b)>;
    else if constexpr (kind == node_kind::reduction)
        return std::size_t{2}; // a reduction, whose sweep walks its elements
    else if constexpr (kind == node_kind::held)
        return weight<std::remove_cvref_t<decltype(*Node::tree)>>;
    else if constexpr (!is_operation<Node>)
        return std::size_t{0};
    else
        static_assert(unhandled_kind<Node>, "zg::expr::weight: an unhandled operation");
}();

// Cold and out of line: an error path inside the operators, which are inlined everywhere.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_no_frame() {
    throw error("zg::expr: an expression of constants alone was used as a named intermediate; "
                "expressions are made inside zg::grad, zg::value_and_grad, zg::jacobian or "
                "zg::hessian from the leaves they give");
}

/// A reduction (zg::sum of a vector expression, say): a node without operands that sweeps its
/// elements itself.
template <class Node>
inline constexpr bool reduction_node = kind_of<Node> == node_kind::reduction;

/// A reduction that is a handle to what it keeps in the frame, copied into each use (it says so).
template <class Node>
inline constexpr bool handle_node = [] {
    if constexpr (reduction_node<Node>)
        return Node::handle;
    else
        return false;
}();

/// Whether a named expression used as an operand is kept once in the frame rather than copied
/// into each use: when it holds more work than one costly operation or two cheap ones, or is a
/// reduction (whose copies would each pass on the partials it kept). Less costs less to evaluate
/// and sweep again in each use than a node of the frame (a placement, a place in its list and
/// an indirect call in the sweep: some 90 instructions). The copies of what is shared are single
/// pointers, so a tree grows by the operations written, not by the number of uses.
template <class Tree>
inline constexpr bool worth_sharing =
    !vector_node<Tree> && (weight<Tree> >= 3 || reduction_node<Tree>);

/// e kept once in its frame: the record e stands for, where it is one (a map-reduce that kept
/// its elements), else a new shared node.
template <class Tree>
constexpr shared_base<typename Tree::value_type>* kept_node(const expression<Tree>& e) {
    if constexpr (handle_node<Tree>)
        if (e.tree.record != nullptr) return e.tree.record;
    if (e.owner == nullptr) [[unlikely]]
        throw_no_frame();
    return e.owner->share(e.tree, e.depth);
}

/// The shared node of a named expression, made on its first use as an operand. (In constant
/// evaluation, where g++ does not read a mutable member of a const local, each use makes its
/// own: the same gradient, by a sweep per use.)
template <class Tree>
constexpr shared_base<typename Tree::value_type>* shared_of(const expression<Tree>& e) {
    if (std::is_constant_evaluated()) return kept_node(e);
    if (e.shared == nullptr) e.shared = kept_node(e);
    return e.shared;
}

/// The size above which an operation built of a tree holds it (held_expr) instead of copying it:
/// what stays in registers. Building a formula of n operations then copies a bounded part at
/// each: O(n), where copying every operand whole made a left-nested sum O(n^2).
inline constexpr std::size_t hold_bytes = 256;

/// Whether a tree is held rather than copied into the operation built of it.
template <class Tree>
inline constexpr bool worth_holding =
    is_operation<Tree> && !vector_node<Tree> && sizeof(Tree) > hold_bytes;

/// Made where a tree is held, while it is the newest part of the formula: what its type gives
/// (slots, leaves, call, weight, ...), and, for a large tree, its walks apart, each of which
/// then stands alone when a larger formula's is made. So nothing the compiler makes of a long
/// formula nests deeper than one held tree. (A variable, computed where it is named: a function
/// called there would be made later, after the formula's.)
template <class Tree>
inline constexpr bool held_walks_made = [] {
    using T = typename Tree::value_type;
    (void)slot_count<Tree>, (void)static_tree<Tree>, (void)leaves_of<Tree>, (void)sure_leaves<Tree>,
        (void)weight<Tree>, (void)may_absorb<Tree>, (void)holds_any<Tree>, (void)id_of<call_of<Tree>>;
    if constexpr (slot_count<Tree> > inline_slots) {
        (void)&evaluate_apart<Tree, T>;
        (void)&absorbs_nothing_apart<Tree, T>;
        (void)&backward_apart<false, Tree, T, sweep_context<T>>;
        (void)&backward_apart<true, Tree, T, sweep_context<T>>;
    }
    return true;
}();

/// What an operation holds for its operand e: for a named expression worth sharing (an lvalue,
/// so it may be used again), a pointer to its shared node; for a large one made for this
/// operation, a pointer to it held in the frame; else e's tree, copied. A map-reduce is
/// a handle to what it keeps, copied into each use; but a named one used inside an element
/// function deeper than where it was made (a sum that every element of another sum uses) is
/// swept through a shared node, once, not once per element of the other sum.
template <class E>
ZG_INLINE constexpr auto operand(E&& e) {
    using Tree = tree_of<E>;
    if constexpr (handle_node<Tree>) {
        if constexpr (std::is_lvalue_reference_v<E>) {
            if (e.owner != nullptr && e.owner->depth() > e.depth) {
                Tree promoted = e.tree;
                promoted.swept = nullptr;
                promoted.kept = nullptr;
                promoted.record = shared_of(e);
                return promoted;
            }
        }
        return e.tree;
    } else if constexpr (std::is_lvalue_reference_v<E> && worth_sharing<Tree>) {
        return shared_expr<typename Tree::value_type, call_of<Tree>>{shared_of(e)};
    } else if constexpr (worth_holding<Tree>) {
        static_assert(held_walks_made<Tree>);
        if (e.owner == nullptr) [[unlikely]]
            throw_no_frame();
        return held_expr<Tree>{e.owner->hold(e.tree)};
    } else {
        return e.tree;
    }
}

/// The frame an operation's result belongs to: its operands', the first that has one.
template <class L, class R>
ZG_INLINE constexpr auto owner_of(const L& l, const R& r) {
    return l.owner != nullptr ? l.owner : r.owner;
}

template <class T>
ZG_INLINE constexpr std::uint32_t depth_in(const frame<T>* owner) {
    return owner != nullptr ? owner->depth() : 0;
}

template <class Node, class T>
ZG_INLINE constexpr expression<Node> make(const Node& node, frame<T>* owner) {
    static_assert(!std::is_same_v<call_of<Node>, mixed_calls>,
                  "zg::grad: an expression mixes the leaves of two calls: a lambda "
                  "differentiated inside another uses the outer call's leaves (or a named "
                  "intermediate of them). Inside the inner call they are constants: use their "
                  "values, x.value()");
    return {node, owner, depth_in(owner)};
}

/// What an elementwise operation holds for a scalar operand it broadcasts: a leaf or a constant
/// as it is, anything else shared (each element uses it).
template <class E>
ZG_INLINE constexpr auto broadcast_operand(E&& e) {
    using Tree = tree_of<E>;
    if constexpr (weight<Tree> == 0)
        return e.tree;
    else if constexpr (std::is_lvalue_reference_v<E>)
        return shared_expr<typename Tree::value_type, call_of<Tree>>{shared_of(e)};
    else
        return shared_expr<typename Tree::value_type, call_of<Tree>>{kept_node(e)};
}

/// pow with an integer exponent on the right takes the overload below.
template <class Op, class U>
inline constexpr bool integer_exponent = std::is_same_v<Op, pow_op>&& std::integral<U>;

template <class E>
using value_type_of = typename std::remove_cvref_t<E>::value_type;

template <class>
inline constexpr bool always_false = false;

/// What select holds for an operand: as an operation holds an expression, a number as a
/// constant of type T.
template <class T, class A>
ZG_INLINE constexpr auto select_operand(A&& a) {
    if constexpr (Expression<A>)
        return operand(std::forward<A>(a));
    else
        return constant_expr<T>{T(a)};
}
template <class T, class A>
ZG_INLINE constexpr frame<T>* owner_if_expression(const A& a) {
    if constexpr (Expression<A>)
        return a.owner;
    else
        return nullptr;
}
} // namespace detail

} // namespace zg::expr
