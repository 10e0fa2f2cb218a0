// zerograd/fwd/dual.hpp: dual_t, a number carrying its derivative along (forward mode), and every
// elementary operation on it, each from its rule in core/rules.hpp.
// The include guard (not #pragma once) lets test/core/core_only.cpp prove core/ never includes it.
#ifndef ZG_FWD_DUAL_HPP
#define ZG_FWD_DUAL_HPP

#include "zerograd/core/elementwise.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"

#include <compare>
#include <concepts> // std::integral
#include <ostream>
#include <type_traits>

namespace zg::fwd {

namespace detail {
/// A plain number (double, int...): converts to a dual of any depth as a constant.
template <class U>
concept plain_number = std::is_arithmetic_v<U>;
} // namespace detail

/// A dual number value + deriv·ε with ε² = 0: every operation computes its value and carries the
/// derivative along by the chain rule, so `f(dual(x, 1)).deriv` is f'(x) after one evaluation.
/// T is double or, for higher derivatives, a dual itself: with `dual_t<dual_t<double>>`
/// seeded as {{x, 1}, {1, 0}}, `.deriv.deriv` is f''(x).
///
/// Comparisons look at `value` only, so `if (x > 0)` and loops in generic code work; two duals
/// with equal values and different derivatives compare equal.
///
///     zg::dual x(2.0, 1.0);                 // x = 2, dx/dx = 1
///     zg::dual y = x * x + sin(x);          // y.value = 4.909, y.deriv = 2x + cos x = 3.584
template <class T>
struct dual_t {
    using value_type = T;

    T value{};
    T deriv{};

    /// Zero, with derivative zero.
    constexpr dual_t() = default;
    /// A constant: derivative zero. Implicit, so `x * 2.0` and `T(1)` in the rules work.
    constexpr dual_t(const T& v) : value(v), deriv(0) {}
    /// A plain number reaches nested duals too: `dual_t<dual_t<double>> x = 2;`.
    template <detail::plain_number U>
    constexpr dual_t(U v) : value(T(v)), deriv(0) {}
    /// A value and its derivative (the seed: `dual(x, 1)` differentiates by x).
    constexpr dual_t(const T& v, const T& d) : value(v), deriv(d) {}

    // The plain-number overloads take U exactly, so that `y += 1` on a nested dual is not
    // ambiguous between converting 1 to dual_t and converting it to T. (For dual_t<double> and
    // U = double, the non-template overloads win the tie.)
    constexpr dual_t& operator+=(const dual_t& r) { return *this = *this + r; }
    constexpr dual_t& operator-=(const dual_t& r) { return *this = *this - r; }
    constexpr dual_t& operator*=(const dual_t& r) { return *this = *this * r; }
    constexpr dual_t& operator/=(const dual_t& r) { return *this = *this / r; }
    constexpr dual_t& operator+=(const T& r) { return *this = *this + r; }
    constexpr dual_t& operator-=(const T& r) { return *this = *this - r; }
    constexpr dual_t& operator*=(const T& r) { return *this = *this * r; }
    constexpr dual_t& operator/=(const T& r) { return *this = *this / r; }
    template <detail::plain_number U>
    constexpr dual_t& operator+=(U r) {
        return *this += T(r);
    }
    template <detail::plain_number U>
    constexpr dual_t& operator-=(U r) {
        return *this -= T(r);
    }
    template <detail::plain_number U>
    constexpr dual_t& operator*=(U r) {
        return *this *= T(r);
    }
    template <detail::plain_number U>
    constexpr dual_t& operator/=(U r) {
        return *this /= T(r);
    }
};

namespace detail {

// Applying a rule: the value from `value`, the derivative by the chain rule from the local
// partials, multiplied by zg::detail::chain, whose zeros are strong. An operand whose derivative
// is entirely zero contributes nothing and its partial is not computed: an infinite partial where
// nothing varies (log at 0 behind a constant) cannot turn a zero derivative into NaN, nor an
// infinite derivative through a zero partial (sqrt at 0 under relu's dead side), and constants
// cost less.

template <class Op, class T>
constexpr dual_t<T> apply(const Op& op, const dual_t<T>& x) {
    if constexpr (zg::detail::fused_rule<Op, T>) { // value and partial from one call
        if (zg::detail::is_zero(x.deriv)) return dual_t<T>(zg::detail::checked_value(op, x.value));
        const auto both = zg::detail::checked_value_and_dx(op, x.value);
        return dual_t<T>(both.value, zg::detail::chain(x.deriv, both.dx));
    } else {
        const T y = zg::detail::checked_value(op, x.value);
        if (zg::detail::is_zero(x.deriv)) return dual_t<T>(y);
        return dual_t<T>(y, zg::detail::chain(x.deriv, op.dx(x.value, y)));
    }
}

template <class Op, class T>
constexpr dual_t<T> apply(const Op& op, const dual_t<T>& l, const dual_t<T>& r) {
    const T y = zg::detail::checked_value(op, l.value, r.value);
    const bool l_varies = !zg::detail::is_zero(l.deriv), r_varies = !zg::detail::is_zero(r.deriv);
    if (l_varies && r_varies)
        return dual_t<T>(y, zg::detail::chain(l.deriv, op.dl(l.value, r.value, y)) +
                                zg::detail::chain(r.deriv, op.dr(l.value, r.value, y)));
    if (l_varies) return dual_t<T>(y, zg::detail::chain(l.deriv, op.dl(l.value, r.value, y)));
    if (r_varies) return dual_t<T>(y, zg::detail::chain(r.deriv, op.dr(l.value, r.value, y)));
    return dual_t<T>(y);
}

/// op(l, r) with r a constant: only dy/dl is computed.
template <class Op, class T>
constexpr dual_t<T> apply_constant_right(const Op& op, const dual_t<T>& l, const T& r) {
    const T y = zg::detail::checked_value(op, l.value, r);
    if (zg::detail::is_zero(l.deriv)) return dual_t<T>(y);
    return dual_t<T>(y, zg::detail::chain(l.deriv, op.dl(l.value, r, y)));
}

/// op(l, r) with l a constant: only dy/dr is computed.
template <class Op, class T>
constexpr dual_t<T> apply_constant_left(const Op& op, const T& l, const dual_t<T>& r) {
    const T y = zg::detail::checked_value(op, l, r.value);
    if (zg::detail::is_zero(r.deriv)) return dual_t<T>(y);
    return dual_t<T>(y, zg::detail::chain(r.deriv, op.dr(l, r.value, y)));
}

} // namespace detail

// ---- Operations, each from its rule in core/rules.hpp -----------------------------------------
// The plain-number side is std::type_identity_t<T> so that it takes part in no deduction and
// converts: `2 * x + 1` works with int literals, and on nested duals a double or an int converts
// to the inner dual.

/// A rule on duals: every operation below, and a user's (zg::function, core/function.hpp).
template <class Rule, class T>
constexpr dual_t<T> apply_rule(const Rule& rule, const dual_t<T>& x) {
    return detail::apply(rule, x);
}
template <class Rule, class T>
constexpr dual_t<T> apply_rule(const Rule& rule, const dual_t<T>& l, const dual_t<T>& r) {
    return detail::apply(rule, l, r);
}
template <class Rule, class T>
constexpr dual_t<T> apply_rule(const Rule& rule, const dual_t<T>& l,
                               const std::type_identity_t<T>& r) {
    return detail::apply_constant_right(rule, l, r);
}
template <class Rule, class T>
constexpr dual_t<T> apply_rule(const Rule& rule, const std::type_identity_t<T>& l,
                               const dual_t<T>& r) {
    return detail::apply_constant_left(rule, l, r);
}

template <class T>
constexpr dual_t<T> operator+(const dual_t<T>& x) {
    return x;
}
template <class T>
constexpr dual_t<T> operator-(const dual_t<T>& x) {
    return apply_rule(neg_op{}, x);
}

#define ZG_FWD_BINARY_OPERATOR(fn, symbol)                                                         \
    template <class T>                                                                             \
    constexpr dual_t<T> operator symbol(const dual_t<T>& l, const dual_t<T>& r) {                  \
        return apply_rule(fn##_op{}, l, r);                                                     \
    }                                                                                              \
    template <class T>                                                                             \
    constexpr dual_t<T> operator symbol(const dual_t<T>& l, const std::type_identity_t<T>& r) {    \
        return apply_rule(fn##_op{}, l, r);                                      \
    }                                                                                              \
    template <class T>                                                                             \
    constexpr dual_t<T> operator symbol(const std::type_identity_t<T>& l, const dual_t<T>& r) {    \
        return apply_rule(fn##_op{}, l, r);                                       \
    }
ZG_BINARY_OPERATORS(ZG_FWD_BINARY_OPERATOR)
#undef ZG_FWD_BINARY_OPERATOR

#define ZG_FWD_UNARY_FUNCTION(fn)                                                                  \
    template <class T>                                                                             \
    constexpr dual_t<T> fn(const dual_t<T>& x) {                                                   \
        return apply_rule(fn##_op{}, x);                                                        \
    }
ZG_UNARY_FUNCTIONS(ZG_FWD_UNARY_FUNCTION)
#undef ZG_FWD_UNARY_FUNCTION

#define ZG_FWD_BINARY_FUNCTION(fn)                                                                 \
    template <class T>                                                                             \
    constexpr dual_t<T> fn(const dual_t<T>& l, const dual_t<T>& r) {                               \
        return apply_rule(fn##_op{}, l, r);                                                     \
    }                                                                                              \
    template <class T>                                                                             \
    constexpr dual_t<T> fn(const dual_t<T>& l, const std::type_identity_t<T>& r) {                 \
        return apply_rule(fn##_op{}, l, r);                                      \
    }                                                                                              \
    template <class T>                                                                             \
    constexpr dual_t<T> fn(const std::type_identity_t<T>& l, const dual_t<T>& r) {                 \
        return apply_rule(fn##_op{}, l, r);                                       \
    }
ZG_BINARY_FUNCTIONS(ZG_FWD_BINARY_FUNCTION)
#undef ZG_FWD_BINARY_FUNCTION

/// x^n for an integer n: exact, and the exponent carries no derivative. A template on the
/// integer type, so that `pow(x, 0.5)` on a nested dual takes the overload above (converting 0.5
/// to the inner dual) instead of this one (converting 0.5 to int, a standard conversion).
template <class T, std::integral I>
constexpr dual_t<T> pow(const dual_t<T>& x, I n) {
    return apply_rule(pown_op::of(n), x);
}

// ---- Comparisons look at the value, so branches and loops work --------------------------------

template <class T>
constexpr bool operator==(const dual_t<T>& l, const dual_t<T>& r) {
    return l.value == r.value;
}
template <class T>
constexpr auto operator<=>(const dual_t<T>& l, const dual_t<T>& r) {
    return l.value <=> r.value;
}
template <class T>
constexpr bool operator==(const dual_t<T>& l, const std::type_identity_t<T>& r) {
    return l.value == r;
}
template <class T>
constexpr auto operator<=>(const dual_t<T>& l, const std::type_identity_t<T>& r) {
    return l.value <=> r;
}

/// Prints `dual(value=2, deriv=1)`; nested duals print nested.
template <class T>
std::ostream& operator<<(std::ostream& out, const dual_t<T>& x) {
    return out << "dual(value=" << x.value << ", deriv=" << x.deriv << ')';
}

// Elementwise operations on a std::span or std::vector of duals (core/elementwise.hpp).
ZG_ELEMENTWISE_ON_RANGES

} // namespace zg::fwd

namespace zg::elementwise {
template <class T>
inline constexpr bool enabled<fwd::dual_t<T>> = true;
} // namespace zg::elementwise

namespace zg {
using fwd::dual_t;
/// The dual number of doubles: first derivatives.
using dual = dual_t<double>;
// zg::sin(x) works too, beside sin(x) found by argument-dependent lookup.
#define ZG_USING_FWD_FUNCTION(fn) using ::zg::fwd::fn;
ZG_UNARY_FUNCTIONS(ZG_USING_FWD_FUNCTION)
ZG_BINARY_FUNCTIONS(ZG_USING_FWD_FUNCTION)
} // namespace zg

// std::exp(x) works too, as on zg::var (tape/expression.hpp says why).
namespace std {
ZG_STD_FUNCTIONS(ZG_USING_FWD_FUNCTION)
} // namespace std
#undef ZG_USING_FWD_FUNCTION

#endif // ZG_FWD_DUAL_HPP
