// zerograd/expr/tree/expression.hpp: `expression`, the object a user's lambda computes with: a
// tree, the frame of the call it belongs to, and its depth in element functions.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/expr/tree/evaluate.hpp"
#include "zerograd/expr/tree/node.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace zg::expr {

template <class T>
class frame; // zerograd/expr/memory/frame.hpp: what a call keeps beside its trees
template <class T>
struct shared_base; // zerograd/expr/memory/shared.hpp: a subexpression kept once in it

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
constexpr auto element_at(const expression<Tree>& v, std::size_t i); // ops/vector.hpp
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
