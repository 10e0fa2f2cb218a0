// zerograd/expr/expression.hpp: the nodes of expression mode's type tree, the evaluation of a
// tree's values, and `expression`, the object a user's lambda computes with.
// Evaluation is ZG_INLINE, for the reason the sweep is (sweep.hpp): one function per tree.
#ifndef ZG_EXPR_EXPRESSION_HPP // an include guard: test/core/core_only.cpp checks it
#define ZG_EXPR_EXPRESSION_HPP

#include "zerograd/core/config.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"

#include <boost/hana/is_empty.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace zg::expr {

namespace hana = boost::hana;

template <class T>
class frame; // zerograd/expr/runtime/frame.hpp: what a call keeps beside its trees
template <class T>
struct shared_base; // zerograd/expr/runtime/frame.hpp: a subexpression kept once in it

// ---- Nodes --------------------------------------------------------------------------------------
// A tree holds its operands by value and computes nothing when built: its values are computed by
// `evaluate` into an array with one slot per operation, which the sweep then reads. So copying a
// tree copies its inputs only, and a function summed over data can be evaluated with the parts that
// do not depend on the element taken from the first one (zerograd/expr/runtime/map_reduce.hpp).
// Nothing in a tree refers to a temporary or to a local of the user's lambda: a subexpression used
// several times lives in the call's frame (zerograd/expr/runtime/frame.hpp) and is held by pointer.

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

/// Vector nodes (zerograd/expr/runtime/vector.hpp) hold spans of arguments and data, and build
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
inline constexpr bool holds_any =
    kind_of<Node> == node_kind::held || holds_any<operands_of<Node>>;
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
/// visit_end for the leaves, constants and elements here and for the runtime layer's ends
/// (runtime/nodes.hpp), or the end's own backward for a reduction, whose sweep walks its elements.
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
    values_of<Tree> values{};
    evaluate(tree, values.data());
    return values;
}

/// The tree's values, evaluated.
template <class Tree>
ZG_INLINE constexpr values_of<Tree> evaluated(const Tree& tree) {
    if constexpr (slot_count<Tree> > inline_slots) {
        return evaluated_apart(tree);
    } else {
        values_of<Tree> values{};
        evaluate(tree, values.data());
        return values;
    }
}

// ---- What a tree is made of --------------------------------------------------------------------

/// Whether a tree is operations over ends that End accepts (End<N>::value for each leaf,
/// constant or other end), and over picks (zg::select) where Picks.
template <template <class> class End, bool Picks, class Node>
inline constexpr bool made_of = [] {
    if constexpr (!is_operation<Node>)
        return End<Node>::value;
    else if constexpr (is_pick<Node> && !Picks)
        return false;
    else
        return made_of<End, Picks, operands_of<Node>>;
}();
template <template <class> class End, bool Picks, class... Operands>
inline constexpr bool made_of<End, Picks, operand_list<Operands...>> =
    (true && ... && made_of<End, Picks, Operands>);

namespace detail {
template <class Node>
struct static_end : std::false_type {};
template <std::size_t I, class T, class F>
struct static_end<leaf_expr<I, T, F>> : std::true_type {};
template <class T, class F>
struct static_end<argument_expr<T, F>> : std::true_type {};
template <class T>
struct static_end<constant_expr<T>> : std::true_type {};
} // namespace detail

/// A tree of arguments, constants, operations and picks only: everything its sweep needs is in
/// the tree, so its call keeps no frame.
template <class Node>
inline constexpr bool static_tree = made_of<detail::static_end, true, Node>;

// ---- Which arguments a tree reaches -------------------------------------------------------------

/// Bit I of `scalars` for scalar argument I, of `vectors` for vector argument I.
struct leaf_set {
    std::uint64_t scalars = 0, vectors = 0;
    constexpr leaf_set operator|(leaf_set other) const {
        return {scalars | other.scalars, vectors | other.vectors};
    }
};

namespace detail {
/// Argument I's bit; arguments past 64 have none (sums over them are kept in memory, and a
/// function of more than 64 vector arguments is refused where that matters).
template <std::size_t I>
constexpr std::uint64_t argument_bit() {
    if constexpr (I < 64)
        return std::uint64_t{1} << I;
    else
        return 0;
}
template <class Node>
struct leaves_of_node {
    static constexpr leaf_set value = [] {
        if constexpr (is_operation<Node>)
            return leaves_of_node<operands_of<Node>>::value;
        else if constexpr (kind_of<Node> == node_kind::vector ||
                           kind_of<Node> == node_kind::reduction)
            return Node::leaves; // vector nodes and reductions say themselves
        else
            return leaf_set{};
    }();
};
template <class... Operands>
struct leaves_of_node<operand_list<Operands...>> {
    static constexpr leaf_set value = (leaf_set{} | ... | leaves_of_node<Operands>::value);
};
} // namespace detail

/// The arguments whose adjoints a sweep of Node adds into directly: not by way of shared nodes
/// (each sweeps itself) or reductions (each notes what it writes when it is built).
template <class Node>
inline constexpr leaf_set leaves_of = detail::leaves_of_node<Node>::value;

namespace detail {
template <std::size_t I, class T, class F>
struct leaves_of_node<leaf_expr<I, T, F>> {
    static constexpr leaf_set value{argument_bit<I>(), 0};
};
template <std::size_t I, class T, class F>
struct leaves_of_node<element_expr<I, T, F>> {
    static_assert(I < 64, "zg::grad: supports at most 64 vector arguments");
    static constexpr leaf_set value{0, argument_bit<I>()};
};
} // namespace detail

/// The scalar arguments that every sweep of a tree of operations reaches: all of its leaves but
/// those that only one side of a zg::select holds.
template <class Node>
inline constexpr std::uint64_t sure_leaves = [] {
    if constexpr (is_pick<Node>)
        return sure_leaves<decltype(Node::a)> & sure_leaves<decltype(Node::b)>;
    else if constexpr (is_operation<Node>)
        return sure_leaves<operands_of<Node>>;
    else
        return leaves_of<Node>.scalars;
}();
template <class... Operands>
inline constexpr std::uint64_t sure_leaves<operand_list<Operands...>> =
    (std::uint64_t{0} | ... | sure_leaves<Operands>);

// ---- Calling the user's function ---------------------------------------------------------------

/// Calls the user's function on expressions. Compilers name it in the trace of an error in the
/// function's body, and the error of returns of two types (two computations picked by an `if`
/// on values) has no other place for its remedy; the static_asserts of other misuse give their
/// own.
template <class F, class... Args>
ZG_INLINE constexpr decltype(auto)
f_returns_one_type_so_pick_with_zg_select(F& f, Args&&... args) {
    return f(std::forward<Args>(args)...);
}

// ---- The expression -----------------------------------------------------------------------------

/// What the user's lambda receives and returns in expression mode: a tree of nodes (its type is
/// the expression's structure, its data the inputs), the call it belongs to, and the depth of
/// element functions it was built at (0 outside zg::sum(range, fn) and friends). A named
/// expression used as an operand is kept once in the call's frame; `shared` remembers where.
///
///     auto f = [](auto x, auto y) { return x * y + sin(x); };
///     // f on expression leaves returns
///     // expression<binary_expr<add_op, binary_expr<mul_op, leaf 0, leaf 1>, sin_expr<leaf 0>>>
template <class Tree>
struct expression;
namespace detail {
template <class Tree>
constexpr auto element_at(const expression<Tree>& v, std::size_t i); // runtime/vector.hpp
} // namespace detail

template <class Tree>
struct expression {
    using tree_type = Tree;
    using value_type = typename Tree::value_type;
    Tree tree;
    frame<value_type>* owner = nullptr; // null for a tree of constants
    std::uint32_t depth = 0;
    mutable shared_base<value_type>* shared = nullptr;

    /// The forward value (evaluated on each call: trees are evaluated lazily).
    ZG_INLINE constexpr value_type value() const requires(!vector_node<Tree>) {
        if constexpr (slot_count<Tree> == 0) {
            return value_at(tree, static_cast<const value_type*>(nullptr));
        } else {
            const auto values = evaluated(tree);
            return values[slot_count<Tree> - 1];
        }
    }

    /// Element i of a vector expression, a scalar expression (i is checked).
    constexpr auto operator[](std::size_t i) const requires vector_node<Tree> {
        return detail::element_at(*this, i);
    }
    /// An expression is not a double. The conversion is declared, never compiled, so that code
    /// that treats it as one, `std::exp(x)` or `double d = x * y;`, stops at this message rather
    /// than at a list of <cmath>'s overloads.
    operator double() const {
        static_assert(!sizeof(Tree),
                      "zg::grad: an expression is used as a double here. Call functions unqualified, "
                      "exp(x) rather than std::exp(x): argument-dependent lookup finds zerograd's, "
                      "and std:: functions take doubles. Declare intermediates auto, auto t = x * "
                      "y, not double. x.value() is the number, with no derivative");
        return 0.0;
    }

    /// Assigning another computation (`acc = acc + x` in a loop) would change the type.
    template <class R>
    requires(!std::is_same_v<std::remove_cvref_t<R>, expression>) constexpr expression&
    operator=(const R&) {
        static_assert(!sizeof(R),
                      "zg::grad: an expression cannot be assigned another computation (its type "
                      "is its computation, which a loop cannot grow); sum over an index range "
                      "with zg::sum(zg::range(n), [&](int i) { ... }), pick with "
                      "zg::select, or use tape mode (zg::var) for loops on values");
        return *this;
    }
};

template <class E>
inline constexpr bool is_expression = false;
template <class Tree>
inline constexpr bool is_expression<expression<Tree>> = true;

/// Any expression-mode value a lambda can return or operate on.
template <class E>
concept Expression = is_expression<std::remove_cvref_t<E>>;

template <class E>
using tree_of = typename std::remove_cvref_t<E>::tree_type;

namespace detail {
/// Wraps a plain number as a constant of the expression's scalar type.
template <class T, class U>
ZG_INLINE constexpr expression<constant_expr<T>> constant(const U& number) {
    return {constant_expr<T>{T(number)}};
}
} // namespace detail

} // namespace zg::expr

#endif // ZG_EXPR_EXPRESSION_HPP
