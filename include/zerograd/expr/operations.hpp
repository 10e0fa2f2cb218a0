// zerograd/expr/operations.hpp: every elementary operation on expressions, from the shared
// rules, and zg::let.
#pragma once

#include "zerograd/core/let.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/expression.hpp"

#include <compare>
#include <concepts>
#include <type_traits>

namespace zg::expr {

/// A plain number that mixes with expressions: double, int, and the other arithmetic types.
template <class U>
concept Number = std::is_arithmetic_v<U>;

#define ZG_EXPR_UNARY_FUNCTION(fn)                                                                 \
    template <Expression E>                                                                        \
    ZG_INLINE constexpr auto fn(const E& e) {                                                                \
        return apply(fn##_op{}, e);                                                                \
    }
ZG_UNARY_FUNCTIONS(ZG_EXPR_UNARY_FUNCTION)
#undef ZG_EXPR_UNARY_FUNCTION

template <Expression E>
ZG_INLINE constexpr auto operator-(const E& e) {
    return apply(neg_op{}, e);
}
template <Expression E>
constexpr E operator+(const E& e) {
    return e;
}

/// x^n for an integer n of any integer type: exact, and usable in constant expressions.
template <Expression E, std::integral I>
ZG_INLINE constexpr auto pow(const E& e, I n) {
    return apply(pown_op::of(n), e);
}

namespace detail {
/// pow with an integer exponent on the right takes the overload above.
template <class Op, class U>
inline constexpr bool integer_exponent = std::is_same_v<Op, pow_op> && std::integral<U>;
} // namespace detail

// Binary operations take two expressions, or an expression and a plain number on either side.
#define ZG_EXPR_BINARY(name, fn)                                                                   \
    template <Expression L, Expression R>                                                          \
    ZG_INLINE constexpr auto name(const L& l, const R& r) {                                                  \
        return apply(fn##_op{}, l, r);                                                             \
    }                                                                                              \
    template <Expression L, Number U>                                                              \
        requires(!detail::integer_exponent<fn##_op, U>)                                            \
    ZG_INLINE constexpr auto name(const L& l, const U& r) {                                                  \
        return apply(fn##_op{}, l, detail::constant<typename L::value_type>(r));                   \
    }                                                                                              \
    template <Number U, Expression R>                                                              \
    ZG_INLINE constexpr auto name(const U& l, const R& r) {                                                  \
        return apply(fn##_op{}, detail::constant<typename R::value_type>(l), r);                   \
    }
#define ZG_EXPR_BINARY_OPERATOR(fn, symbol) ZG_EXPR_BINARY(operator symbol, fn)
#define ZG_EXPR_BINARY_FUNCTION(fn) ZG_EXPR_BINARY(fn, fn)
ZG_BINARY_OPERATORS(ZG_EXPR_BINARY_OPERATOR)
ZG_BINARY_FUNCTIONS(ZG_EXPR_BINARY_FUNCTION)
#undef ZG_EXPR_BINARY_FUNCTION
#undef ZG_EXPR_BINARY_OPERATOR
#undef ZG_EXPR_BINARY

// ---- Comparisons look at values -------------------------------------------------------------

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

// ---- let ----------------------------------------------------------------------------------------

/// Binds e so that all its uses share one forward value and one adjoint, and its local backward
/// runs once. Without it a subexpression used twice is copied, and copies of copies grow
/// exponentially: `w = let(w * w * 0.5 + x)` sixty times over stays sixty small bindings.
///
///     auto f = [](auto x) {
///         auto s = zg::let(sin(x) * x);
///         return s * s + s;           // sin(x) * x is evaluated and swept once
///     };
///
/// Each call site makes a distinct binding. A helper that calls let, used twice with different
/// numbers in one expression, throws zg::error rather than merge the two.
template <class Tree, class Bindings, class Site = decltype([] {})>
constexpr auto let(const expression<Tree, Bindings>& e) {
    // The call site's lambda type is distinct for every call site and every instantiation, so
    // it identifies the binding; naming the bound tree in the id instead would make each id of
    // a let chain contain the previous one twice, a type exponentially large to compare.
    static_assert(!vector_node<Tree>,
                  "zg::let: binds a scalar expression; a vector expression is evaluated per "
                  "element where it is used (bind a scalar, or reduce the vector first)");
    if constexpr (vector_node<Tree>) {
        return e; // after the message above, nothing more to say
    } else {
        using id = Site;
        using use = bound_expr<id, typename Tree::value_type>;
        std::uint64_t serial = 0; // not `const`: its initializer would be constant-evaluated
        if (!std::is_constant_evaluated()) serial = detail::next_let_serial();
        auto bindings = detail::append(e.bindings, binding<id, Tree>(e.tree, serial));
        return expression<use, decltype(bindings)>{use{e.tree.value}, bindings};
    }
}

} // namespace zg::expr

namespace zg {
using expr::let;
// zg::sin(x) works too, beside sin(x) found by argument-dependent lookup.
#define ZG_USING_EXPR_FUNCTION(fn) using expr::fn;
ZG_UNARY_FUNCTIONS(ZG_USING_EXPR_FUNCTION)
ZG_BINARY_FUNCTIONS(ZG_USING_EXPR_FUNCTION)
#undef ZG_USING_EXPR_FUNCTION
} // namespace zg
