// zerograd/core/scalar.hpp: what the modes need to know about a scalar type beyond its
// arithmetic: whether it is entirely zero, whether it is finite, and checked-build reporting.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/error.hpp"

#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace zg::detail {

/// A scalar that carries derivative parts (a dual number) exposes them as `value` and `deriv`.
template <class T>
concept carries_derivative = requires(const T& x) {
    x.value;
    x.deriv;
};

/// True when x and every derivative part it carries is zero. A sweep may skip such an adjoint;
/// comparing with `== 0` would not do for duals, whose comparisons look at the value only.
template <class T>
constexpr bool is_zero(const T& x) {
    if constexpr (carries_derivative<T>)
        return is_zero(x.value) && is_zero(x.deriv);
    else
        return x == T(0);
}

/// The chain rule's product of an adjoint (or a tangent) and a local partial derivative, with an
/// exact zero on either side a strong zero: 0 times an infinite or NaN factor is 0, not NaN. A
/// zero partial means the result does not depend on the operand (relu's dead side), a zero
/// adjoint that nothing depends on the result, so an infinite partial next to either (sqrt at 0,
/// log at 0) cannot turn a zero derivative into NaN, and every mode gives the same answer.
/// Forced inline: it is every product of expression mode's strong sweeps (see ZG_INLINE).
template <class T>
ZG_INLINE constexpr T chain(const T& outer, const T& partial) {
    return is_zero(outer) || is_zero(partial) ? T(0) : outer * partial;
}

/// Whether x and y have the same bits in every part (a dual's derivative too). By bits, not by
/// `==`, which the compiler cannot fold for a number compared with itself (NaN != NaN).
template <class T>
constexpr bool identical(const T& x, const T& y) {
    if constexpr (carries_derivative<T>)
        return identical(x.value, y.value) && identical(x.deriv, y.deriv);
    else if constexpr (std::is_same_v<T, double>)
        return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
    else
        return x == y;
}

/// Whether x is finite in every part.
template <class T>
constexpr bool is_finite(const T& x) {
    if constexpr (carries_derivative<T>)
        return is_finite(x.value) && is_finite(x.deriv);
    else // the magnitude's bits below infinity's
        return (std::bit_cast<std::uint64_t>(static_cast<double>(x)) << 1) <
               (std::uint64_t(0x7ff) << 53);
}

/// Whether any part of x is NaN.
template <class T>
constexpr bool has_nan(const T& x) {
    if constexpr (carries_derivative<T>)
        return has_nan(x.value) || has_nan(x.deriv);
    else
        return x != x;
}

/// The plain double inside any scalar: a dual's innermost value.
template <class T>
constexpr double primal(const T& x) {
    if constexpr (carries_derivative<T>)
        return primal(x.value);
    else
        return static_cast<double>(x);
}

template <class... In> // cold: checked builds' error path, kept off the operations' code
[[noreturn, gnu::cold]] void throw_domain_error(std::string_view operation, double result,
                                                const In&... inputs) {
    std::string message = "zg::domain_error: " + std::string(operation) + '(';
    std::string_view separator;
    ((message += separator, message += number_text(primal(inputs)), separator = ", "), ...);
    message += ") gave " + number_text(result) + " from finite input";
    throw domain_error(message);
}

/// In checked builds, finite inputs that gave op a non-finite result throw zg::domain_error
/// naming the operation and the inputs. Free in unchecked builds.
template <class Op, class Result, class... In>
constexpr void check_value(const Op& op, const Result& result, const In&... inputs) {
    if constexpr (config::checked) {
        if (!std::isfinite(primal(result)) && (std::isfinite(primal(inputs)) && ...)) {
            if constexpr (requires { op.n; }) // a rule's integer parameter (pow's exponent)
                throw_domain_error(Op::name, primal(result), inputs..., static_cast<double>(op.n));
            else
                throw_domain_error(Op::name, primal(result), inputs...);
        }
    }
}

/// op's value at the inputs; every mode computes values through it (see check_value).
template <class Op, class... In>
constexpr auto checked_value(const Op& op, const In&... inputs) {
    auto result = op.value(inputs...);
    check_value(op, result, inputs...);
    return result;
}

} // namespace zg::detail

namespace zg {
/// A value and the partial by its one operand, computed together (a rule's value_and_dx).
template <class T>
struct value_and_partial {
    T value;
    T dx;
};
} // namespace zg

namespace zg::detail {

/// A rule of one operand that computes its value and partial together, where they share work
/// (softplus: log1p(e) and e / (1 + e) from one e = exp(x)): `value_and_dx(x)`, returning
/// `{value, dx}`, beside `value` and `dx`.
template <class Op, class T>
concept fused_rule = requires(const Op& op, const T& x) {
    { op.value_and_dx(x) } -> std::convertible_to<value_and_partial<T>>;
};

/// op's value and partial at x (checked as checked_value): in one call where the rule has one.
template <class Op, class T>
constexpr value_and_partial<T> checked_value_and_dx(const Op& op, const T& x) {
    if constexpr (fused_rule<Op, T>) {
        const value_and_partial<T> result = op.value_and_dx(x);
        check_value(op, result.value, x);
        return result;
    } else {
        const T y = checked_value(op, x);
        return {y, op.dx(x, y)};
    }
}

/// What an operation's result is kept as: a mode's scalar, or what its formula becomes when kept
/// (a tape formula's zg::var).
template <class E>
struct kept {
    using type = E;
};
template <class E>
    requires requires { typename E::recorded_type; }
struct kept<E> {
    using type = typename E::recorded_type;
};
template <class E>
using kept_t = typename kept<std::remove_cvref_t<E>>::type;

} // namespace zg::detail
