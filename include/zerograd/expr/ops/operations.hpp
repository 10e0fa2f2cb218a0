// zerograd/expr/ops/operations.hpp: every elementary operation on expressions, from the shared
// rules; named intermediates kept once; comparisons, zg::select and zg::let.
// The operators are ZG_INLINE: each only builds a node of the caller's tree, and a call left
// behind would keep the tree in memory instead of registers.
#pragma once

#include "zerograd/core/let.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/ops/operands.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <compare>
#include <concepts>
#include <type_traits>
#include <utility>

namespace zg::expr {

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
