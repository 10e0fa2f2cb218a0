// zerograd/expr/operations.hpp: every elementary operation on expressions, from the shared
// rules; named intermediates kept once; comparisons, zg::select and zg::let.
// The operators are ZG_INLINE: each only builds a node of the caller's tree, and a call left
// behind would keep the tree in memory instead of registers.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/let.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/runtime/frame.hpp"
#include "zerograd/expr/runtime/nodes.hpp"
#include "zerograd/expr/sweep.hpp"

#include <compare>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace zg::expr {

template <class Op, class V>
struct vector_unary_expr; // zerograd/expr/runtime/vector.hpp
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
        (void)weight<Tree>, (void)may_absorb<Tree>, (void)id_of<call_of<Tree>>;
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

} // namespace detail

/// Builds op(e) (elementwise when e is a vector).
template <class Op, class E>
ZG_INLINE constexpr auto apply(const Op& op, E&& e) {
    using Tree = tree_of<E>;
    auto* owner = e.owner;
    if constexpr (vector_node<Tree>) {
        using node = vector_unary_expr<Op, Tree>;
        return detail::make(node(op, e.tree), owner);
    } else {
        auto a = detail::operand(std::forward<E>(e));
        using A = decltype(a);
        if constexpr (!detail::cheap<Op> && slot_count<A> == 0) {
            using T = typename A::value_type;
            const auto both =
                zg::detail::checked_value_and_dx(op, value_at(a, static_cast<const T*>(nullptr)));
            return detail::make(known_unary_expr<Op, A>{op, a, both.value, both.dx}, owner);
        } else {
            return detail::make(unary_expr<Op, A>{op, a}, owner);
        }
    }
}

/// Builds op(l, r) (elementwise, a scalar side broadcast, when either is a vector).
template <class Op, class L, class R>
ZG_INLINE constexpr auto apply(const Op& op, L&& l, R&& r) {
    auto* owner = detail::owner_of(l, r);
    constexpr bool vl = vector_node<tree_of<L>>, vr = vector_node<tree_of<R>>;
    if constexpr (vl || vr) {
        auto left = [&] {
            if constexpr (vl)
                return l.tree;
            else
                return detail::broadcast_operand(std::forward<L>(l));
        }();
        auto right = [&] {
            if constexpr (vr)
                return r.tree;
            else
                return detail::broadcast_operand(std::forward<R>(r));
        }();
        using node = vector_binary_expr<Op, decltype(left), decltype(right)>;
        return detail::make(node(op, left, right), owner);
    } else {
        auto left = detail::operand(std::forward<L>(l));
        auto right = detail::operand(std::forward<R>(r));
        return detail::make(binary_expr<Op, decltype(left), decltype(right)>{op, left, right},
                            owner);
    }
}

namespace detail {
/// pow with an integer exponent on the right takes the overload below.
template <class Op, class U>
inline constexpr bool integer_exponent = std::is_same_v<Op, pow_op>&& std::integral<U>;

template <class E>
using value_type_of = typename std::remove_cvref_t<E>::value_type;
} // namespace detail

/// A rule on expressions, or an expression and a plain number on either side: every operation
/// below, and a user's (zg::function, core/function.hpp).
template <class Rule, Expression E>
ZG_INLINE constexpr auto apply_rule(const Rule& rule, E&& e) {
    return apply(rule, std::forward<E>(e));
}
template <class Rule, Expression L, Expression R>
ZG_INLINE constexpr auto apply_rule(const Rule& rule, L&& l, R&& r) {
    return apply(rule, std::forward<L>(l), std::forward<R>(r));
}
template <class Rule, Expression L, Number U>
ZG_INLINE constexpr auto apply_rule(const Rule& rule, L&& l, const U& r) {
    return apply(rule, std::forward<L>(l), detail::constant<detail::value_type_of<L>>(r));
}
template <class Rule, Number U, Expression R>
ZG_INLINE constexpr auto apply_rule(const Rule& rule, const U& l, R&& r) {
    return apply(rule, detail::constant<detail::value_type_of<R>>(l), std::forward<R>(r));
}

// The named functions take their operands by type, a named expression or one made for the call:
// partial ordering then prefers them to a user's unconstrained function template of the same
// name (`template <class T> T sigmoid(T x)` in generic code), which a forwarding reference would
// tie with.
#define ZG_EXPR_OPERAND_named(Tree) const expression<Tree>&
#define ZG_EXPR_OPERAND_made(Tree) expression<Tree>&&
#define ZG_EXPR_FORMS(X, ...) X(named, __VA_ARGS__) X(made, __VA_ARGS__)
// (a second name for nesting: a macro does not expand inside its own expansion)
#define ZG_EXPR_RIGHT_FORMS(X, ...) X(named, __VA_ARGS__) X(made, __VA_ARGS__)

#define ZG_EXPR_UNARY_FORM(form, fn)                                                               \
    template <class Tree>                                                                          \
    ZG_INLINE constexpr auto fn(ZG_EXPR_OPERAND_##form(Tree) e) {                                  \
        return apply(fn##_op{}, std::forward<ZG_EXPR_OPERAND_##form(Tree)>(e));                    \
    }
#define ZG_EXPR_UNARY_FUNCTION(fn) ZG_EXPR_FORMS(ZG_EXPR_UNARY_FORM, fn)
ZG_UNARY_FUNCTIONS(ZG_EXPR_UNARY_FUNCTION)
#undef ZG_EXPR_UNARY_FUNCTION
#undef ZG_EXPR_UNARY_FORM

template <Expression E>
ZG_INLINE constexpr auto operator-(E&& e) {
    return apply(neg_op{}, std::forward<E>(e));
}
template <Expression E>
constexpr std::remove_cvref_t<E> operator+(E&& e) {
    return e;
}

/// x^n for an integer n of any integer type: exact, and usable in constant expressions.
#define ZG_EXPR_INTEGER_POWER(form, ...)                                                           \
    template <class Tree, std::integral I>                                                         \
    ZG_INLINE constexpr auto pow(ZG_EXPR_OPERAND_##form(Tree) e, I n) {                            \
        return apply(pown_op::of(n), std::forward<ZG_EXPR_OPERAND_##form(Tree)>(e));               \
    }
ZG_EXPR_FORMS(ZG_EXPR_INTEGER_POWER, )
#undef ZG_EXPR_INTEGER_POWER

// Binary operations take two expressions, or an expression and a plain number on either side.
#define ZG_EXPR_BINARY_OPERATOR(fn, symbol)                                                        \
    template <Expression L, Expression R>                                                          \
    ZG_INLINE constexpr auto operator symbol(L&& l, R&& r) {                                       \
        return apply(fn##_op{}, std::forward<L>(l), std::forward<R>(r));                           \
    }                                                                                              \
    template <Expression L, Number U>                                                              \
    ZG_INLINE constexpr auto operator symbol(L&& l, const U& r) {                                  \
        return apply_rule(fn##_op{}, std::forward<L>(l), r);                                       \
    }                                                                                              \
    template <Number U, Expression R>                                                              \
    ZG_INLINE constexpr auto operator symbol(const U& l, R&& r) {                                  \
        return apply_rule(fn##_op{}, l, std::forward<R>(r));                                       \
    }
ZG_BINARY_OPERATORS(ZG_EXPR_BINARY_OPERATOR)
#undef ZG_EXPR_BINARY_OPERATOR

#define ZG_EXPR_BINARY_FORMS(right, left, fn)                                                      \
    template <class L, class R>                                                                    \
    ZG_INLINE constexpr auto fn(ZG_EXPR_OPERAND_##left(L) l, ZG_EXPR_OPERAND_##right(R) r) {       \
        return apply(fn##_op{}, std::forward<ZG_EXPR_OPERAND_##left(L)>(l),                        \
                     std::forward<ZG_EXPR_OPERAND_##right(R)>(r));                                 \
    }
#define ZG_EXPR_BINARY_WITH_NUMBER(form, fn)                                                       \
    template <class Tree, Number U>                                                                \
    requires(!detail::integer_exponent<fn##_op, U>) ZG_INLINE constexpr auto fn(                   \
        ZG_EXPR_OPERAND_##form(Tree) l, const U& r) {                                              \
        return apply_rule(fn##_op{}, std::forward<ZG_EXPR_OPERAND_##form(Tree)>(l), r);            \
    }                                                                                              \
    template <Number U, class Tree>                                                                \
    ZG_INLINE constexpr auto fn(const U& l, ZG_EXPR_OPERAND_##form(Tree) r) {                      \
        return apply_rule(fn##_op{}, l, std::forward<ZG_EXPR_OPERAND_##form(Tree)>(r));            \
    }
// Two expressions of one tree: more specialized than a user's `template <class T> T max(T, T)`,
// which ties with the forms above, each of which is more specialized in another operand.
#define ZG_EXPR_SAME_TREE(right, left, fn)                                                         \
    template <class Tree>                                                                          \
    ZG_INLINE constexpr auto fn(ZG_EXPR_OPERAND_##left(Tree) l, ZG_EXPR_OPERAND_##right(Tree) r) { \
        return apply(fn##_op{}, std::forward<ZG_EXPR_OPERAND_##left(Tree)>(l),                     \
                     std::forward<ZG_EXPR_OPERAND_##right(Tree)>(r));                              \
    }
#define ZG_EXPR_SAME_TREE_LEFT(left, fn) ZG_EXPR_RIGHT_FORMS(ZG_EXPR_SAME_TREE, left, fn)
#define ZG_EXPR_BINARY_LEFT(left, fn) ZG_EXPR_RIGHT_FORMS(ZG_EXPR_BINARY_FORMS, left, fn)
#define ZG_EXPR_BINARY_FUNCTION(fn)                                                                \
    ZG_EXPR_FORMS(ZG_EXPR_BINARY_LEFT, fn) ZG_EXPR_FORMS(ZG_EXPR_BINARY_WITH_NUMBER, fn)            \
    ZG_EXPR_FORMS(ZG_EXPR_SAME_TREE_LEFT, fn)
ZG_BINARY_FUNCTIONS(ZG_EXPR_BINARY_FUNCTION)
#undef ZG_EXPR_BINARY_FUNCTION
#undef ZG_EXPR_BINARY_LEFT
#undef ZG_EXPR_SAME_TREE_LEFT
#undef ZG_EXPR_SAME_TREE
#undef ZG_EXPR_BINARY_WITH_NUMBER
#undef ZG_EXPR_BINARY_FORMS
#undef ZG_EXPR_RIGHT_FORMS
#undef ZG_EXPR_FORMS
#undef ZG_EXPR_OPERAND_made
#undef ZG_EXPR_OPERAND_named

// ---- Comparisons look at values -----------------------------------------------------------------

template <Expression L, Expression R>
constexpr bool operator==(const L& l, const R& r) {
    return l.value() == r.value();
}
template <Expression L, Expression R>
constexpr auto operator<=>(const L& l, const R& r) {
    return l.value() <=> r.value();
}
template <Expression L, Number U>
constexpr bool operator==(const L& l, const U& r) {
    return l.value() == r;
}
template <Expression L, Number U>
constexpr auto operator<=>(const L& l, const U& r) {
    return l.value() <=> r;
}

// ---- Misuse with a message ----------------------------------------------------------------------

namespace detail {
template <class>
inline constexpr bool always_false = false;
}

// An expression's type is its computation, so a loop cannot grow one: += and -= (and the
// assignment of another expression) would change it. The messages name the remedies.
#define ZG_EXPR_NO_ACCUMULATION_MESSAGE(symbol)                                                    \
    "zg::grad: an expression cannot be accumulated with " #symbol " (its type is its "             \
    "computation, which a loop cannot grow); sum over an index range with "                        \
    "zg::sum(zg::range(n), [&](int i) { ... }), or use tape mode (zg::var) for loops "            \
    "on values"
#define ZG_EXPR_NO_ACCUMULATION(symbol)                                                            \
    template <Expression L, class R>                                                               \
    constexpr L& operator symbol(L& l, const R&) {                                                 \
        static_assert(detail::always_false<R>, ZG_EXPR_NO_ACCUMULATION_MESSAGE(symbol));           \
        return l;                                                                                  \
    }                                                                                              \
    template <class L, Expression R>                                                               \
    requires std::is_arithmetic_v<L>                                                               \
    constexpr L& operator symbol(L& l, const R&) {                                                 \
        static_assert(detail::always_false<R>, ZG_EXPR_NO_ACCUMULATION_MESSAGE(symbol));           \
        return l;                                                                                  \
    }
ZG_EXPR_NO_ACCUMULATION(+=)
ZG_EXPR_NO_ACCUMULATION(-=)
ZG_EXPR_NO_ACCUMULATION(*=)
ZG_EXPR_NO_ACCUMULATION(/=)
#undef ZG_EXPR_NO_ACCUMULATION
#undef ZG_EXPR_NO_ACCUMULATION_MESSAGE

// ---- select and let -----------------------------------------------------------------------------

namespace detail {
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

/// zg::select(c, a, b): a where c is true, else b. Both are evaluated (so both must be defined
/// at the point); the gradient flows through the picked one only. Branches on values in
/// expression mode are written with it: `zg::select(x > 0, x, 0.1 * x)`.
template <class A, class B>
requires((Expression<A> || Expression<B>)&&(Expression<A> || Number<std::remove_cvref_t<A>>)&&(
    Expression<B> || Number<std::remove_cvref_t<B>>)) ZG_INLINE
    constexpr auto select(bool c, A&& a, B&& b) {
    using T = detail::value_type_of<std::conditional_t<Expression<A>, A, B>>;
    frame<T>* owner = detail::owner_if_expression<T>(a);
    if (owner == nullptr) owner = detail::owner_if_expression<T>(b);
    auto left = detail::select_operand<T>(std::forward<A>(a));
    auto right = detail::select_operand<T>(std::forward<B>(b));
    return detail::make(select_expr<decltype(left), decltype(right)>{c, left, right}, owner);
}

/// Binds e so that all its uses share one forward value and one adjoint, and its local backward
/// runs once. A named expression is shared without it (see operand above); let shares a
/// subexpression that has no name, or one that weighs too little to be shared by itself.
///
///     auto f = [](auto x) {
///         auto s = zg::let(sin(x) * x);
///         return s * s + s;           // sin(x) * x is evaluated and swept once
///     };
template <Expression E>
constexpr auto let(E&& e) {
    using Tree = tree_of<E>;
    static_assert(!vector_node<Tree>,
                  "zg::let: binds a scalar expression; a vector expression is evaluated per "
                  "element where it is used (bind a scalar, or reduce the vector first)");
    if constexpr (vector_node<Tree>) {
        return e; // after the message above, nothing more to say
    } else {
        using T = typename Tree::value_type;
        shared_base<T>* node =
            std::is_lvalue_reference_v<E> ? detail::shared_of(e) : detail::kept_node(e);
        return detail::make(shared_expr<T, call_of<Tree>>{node}, e.owner);
    }
}

} // namespace zg::expr

namespace zg {
using expr::let;
using expr::select;
// zg::sin(x) works too, beside sin(x) found by argument-dependent lookup.
#define ZG_USING_EXPR_FUNCTION(fn) using expr::fn;
ZG_UNARY_FUNCTIONS(ZG_USING_EXPR_FUNCTION)
ZG_BINARY_FUNCTIONS(ZG_USING_EXPR_FUNCTION)
#undef ZG_USING_EXPR_FUNCTION
} // namespace zg
