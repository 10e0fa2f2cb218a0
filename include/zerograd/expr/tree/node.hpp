// zerograd/expr/tree/node.hpp: the node protocol of expression mode's type tree: what kinds of
// node there are, the nodes of arguments, constants and operations, and what a node's operands
// and call are. Everything else over trees (evaluation, the sweep, description, hoisting)
// dispatches on the kind a node declares here.
#ifndef ZG_EXPR_TREE_NODE_HPP // an include guard: test/core/core_only.cpp checks it
#define ZG_EXPR_TREE_NODE_HPP

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace zg::expr {

// ---- Nodes --------------------------------------------------------------------------------------
// A tree holds its operands by value and computes nothing when built: its values are computed by
// `evaluate` into an array with one slot per operation, which the sweep then reads. So copying a
// tree copies its inputs only, and a function summed over data can be evaluated with the parts that
// do not depend on the element taken from the first one (zerograd/expr/reduce/map_reduce.hpp).
// Nothing in a tree refers to a temporary or to a local of the user's lambda: a subexpression used
// several times lives in the call's frame (zerograd/expr/memory/frame.hpp) and is held by pointer.

/// What a node is. Every node type states its kind once, as `static constexpr node_kind kind`,
/// and every algorithm over trees (evaluation, the sweep, description, weights, hoisting, slicing)
/// dispatches on it: a kind an algorithm does not handle stops the compiler there (see
/// unhandled_kind), instead of taking another kind's branch.
enum class node_kind {
    argument,    ///< a scalar argument of the call: leaf_expr, argument_expr (zg::jacobian's)
    constant,    ///< a plain number, no adjoint: constant_expr
    end,         ///< an end that says where its adjoint goes (visit_end): an element of a vector
                 ///< argument, a zg::scan's state, a reduction loop's accumulator
    shared,      ///< a use of a subexpression kept once in the call's frame: shared_expr
    unary,       ///< op(a): unary_expr
    known_unary, ///< op(a), its value and partial computed where it was built: known_unary_expr
    binary,      ///< op(l, r): binary_expr
    select,      ///< zg::select(c, a, b): select_expr
    reduction,   ///< no operands; its own backward sweeps its elements: summed_expr, mapped_expr
    vector,      ///< a vector expression, which builds element k's scalar tree on demand
    held,        ///< a large operation kept once in the call's frame, and used through a pointer
};

/// A node type: it has a scalar type and states its kind.
template <class N>
concept declared_node = requires {
    typename N::value_type;
    { N::kind } -> std::convertible_to<node_kind>;
};

/// The kind of a node type.
template <declared_node Node>
inline constexpr node_kind kind_of = Node::kind;

/// For the last branch of a dispatch on kind_of: a kind the algorithm does not handle.
template <class Node>
inline constexpr bool unhandled_kind = false;

/// Which call an expression belongs to is part of its type: the function F that zg::grad (or
/// zg::value_and_grad, zg::jacobian, zg::hessian) differentiates names the call, its leaves carry
/// it as `call`, and every node takes it from its operands (see call_of). So an expression that
/// mixes the leaves of two calls (a lambda differentiated inside another using the outer call's
/// leaves) is a compile-time error with the remedy, and a sweep never reaches another call's
/// leaves: no sweep checks anything at run time. A frame keeps its call's identity, the address
/// of a variable per F (id_of), for the reductions that find it at run time.
using call_id = const void*;
namespace detail {
template <class F>
inline constexpr char call_tag = 0;
} // namespace detail
template <class F>
inline constexpr call_id id_of = &detail::call_tag<std::remove_cvref_t<F>>;

/// The call of an expression of constants alone, and of two calls mixed.
struct no_call {};
struct mixed_calls {};

/// Scalar argument I of the function F being differentiated.
template <std::size_t I, class T, class F>
struct leaf_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::argument;
    T value;
};

/// Scalar argument `index`, for zg::jacobian: every argument has this one type, so that outputs
/// of one shape over different arguments (x / r and y / r) have one type too (and make a
/// std::array).
template <class T, class F>
struct argument_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::argument;
    T value;
    std::size_t index;
};

/// A plain number inside an expression (`2 * x`); no gradient flows into it.
template <class T>
struct constant_expr {
    using value_type = T;
    static constexpr node_kind kind = node_kind::constant;
    T value;
};

/// Element `index` of vector argument I: its adjoint goes to that element of I's gradient.
template <std::size_t I, class T, class F>
struct element_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::end;
    T value;
    std::size_t index;
};

/// op(a), with the rule of core/rules.hpp.
template <class Op, class A>
struct unary_expr {
    using value_type = typename A::value_type;
    static constexpr node_kind kind = node_kind::unary;
    [[no_unique_address]] Op op;
    A a;
};

/// op(a) of a costly operation whose operand is an end (`sigma = exp(log_sigma[g])`): its value
/// and local partial, computed once where it is built and carried into every copy, whose
/// evaluation and sweep read them instead of calling the rule again (a named intermediate used
/// twice, a tree swept once per row of a Jacobian or evaluated again by its reduction).
template <class Op, class A>
struct known_unary_expr {
    using value_type = typename A::value_type;
    static constexpr node_kind kind = node_kind::known_unary;
    [[no_unique_address]] Op op;
    A a;
    value_type known_value;
    value_type known_partial;
};

/// op(l, r), with the rule of core/rules.hpp.
template <class Op, class L, class R>
struct binary_expr {
    using value_type = typename L::value_type;
    static_assert(std::is_same_v<value_type, typename R::value_type>);
    static constexpr node_kind kind = node_kind::binary;
    [[no_unique_address]] Op op;
    L l;
    R r;
};

/// zg::select(c, a, b): a where c holds, else b. Both are evaluated; the adjoint flows into the
/// picked one.
template <class A, class B>
struct select_expr {
    using value_type = typename A::value_type;
    static_assert(std::is_same_v<value_type, typename B::value_type>);
    static constexpr node_kind kind = node_kind::select;
    bool first;
    A a;
    B b;
};

/// An operation too large to copy into every operation built on it, kept once in the call's
/// frame (see detail::operand): its one operand is the tree it points to, which it is in every
/// walk. So building a long formula copies a bounded part of it at each operation (its size
/// grows, not the work of building it), and the tree the compiler sees stays small enough for
/// registers.
template <class Tree>
struct held_expr {
    using value_type = typename Tree::value_type;
    static constexpr node_kind kind = node_kind::held;
    const Tree* tree;
};

/// Vector nodes (zerograd/expr/ops/vector.hpp) hold spans of arguments and data, and build
/// element k's scalar tree on demand; they say how many scalar operands they broadcast.
template <class Node>
concept vector_node = kind_of<Node> == node_kind::vector;

template <class Node>
inline constexpr bool is_constant = kind_of<Node> == node_kind::constant;


/// A list of operand types. Each compile-time walk of a tree below (slots, what it is made of,
/// the arguments it reaches) is a variable or class template over nodes with a specialization for
/// operand_list that folds over its operands: two instantiations a node, so a formula's length
/// costs the compiler no deeper recursion than its depth.
template <class... Operands>
struct operand_list {
    static constexpr std::size_t size = sizeof...(Operands);
};

namespace detail {
template <class Node, node_kind = kind_of<Node>>
struct operands_of_node {
    using type = operand_list<>; // ends: leaves, constants, shared uses, reductions, vectors
};
template <class Node>
struct operands_of_node<Node, node_kind::unary> {
    using type = operand_list<decltype(Node::a)>;
};
template <class Node>
struct operands_of_node<Node, node_kind::known_unary> {
    using type = operand_list<decltype(Node::a)>;
};
template <class Node>
struct operands_of_node<Node, node_kind::binary> {
    using type = operand_list<decltype(Node::l), decltype(Node::r)>;
};
template <class Node>
struct operands_of_node<Node, node_kind::select> {
    using type = operand_list<decltype(Node::a), decltype(Node::b)>;
};
template <class Node>
struct operands_of_node<Node, node_kind::held> {
    using type = operand_list<std::remove_cvref_t<decltype(*Node::tree)>>;
};
} // namespace detail

/// A node's operands: the one place that says which nodes have operands.
template <class Node>
using operands_of = typename detail::operands_of_node<Node>::type;

template <class Node>
inline constexpr bool is_operation = operands_of<Node>::size != 0;

namespace detail {
/// The call of two operands: either's where one has none, else one call or mixed_calls.
template <class A, class B>
using joined_call =
    std::conditional_t<std::is_same_v<A, no_call>, B,
                       std::conditional_t<std::is_same_v<B, no_call> || std::is_same_v<A, B>, A,
                                          mixed_calls>>;
template <class... Calls>
struct join_calls {
    using type = no_call;
};
template <class A, class... Rest>
struct join_calls<A, Rest...> {
    using type = joined_call<A, typename join_calls<Rest...>::type>;
};
template <class Node>
struct call_of_node {
    using type = no_call;
};
template <class Node>
requires requires { typename Node::call; }
struct call_of_node<Node> {
    using type = typename Node::call;
};
template <class List>
struct call_of_operands;
template <class Node>
requires(is_operation<Node>) struct call_of_node<Node> {
    using type = typename call_of_operands<operands_of<Node>>::type;
};
template <class... Operands>
struct call_of_operands<operand_list<Operands...>> {
    using type = typename join_calls<typename call_of_node<Operands>::type...>::type;
};
} // namespace detail

/// The call a node belongs to (see call_id): its leaves', no_call for constants alone.
template <class Node>
using call_of = typename detail::call_of_node<Node>::type;
template <class Node>
inline constexpr bool is_pick = kind_of<Node> == node_kind::select; // zg::select's node

} // namespace zg::expr

#endif // ZG_EXPR_TREE_NODE_HPP
