// zerograd/core/scalar.hpp: what the modes need to know about a scalar type beyond its
// arithmetic: whether it is entirely zero, whether it is finite, and checked-build reporting.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/error.hpp"

#include <cmath>
#include <sstream> // messages of domain errors
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

/// The plain double inside any scalar: a dual's innermost value.
template <class T>
constexpr double primal(const T& x) {
    if constexpr (carries_derivative<T>)
        return primal(x.value);
    else
        return static_cast<double>(x);
}

template <class... In>
[[noreturn, gnu::cold]] void throw_domain_error(std::string_view operation, double result,
                                                const In&... inputs) {
    std::ostringstream message;
    message << "zg::domain_error: " << operation << '(';
    std::string_view separator;
    ((message << separator << primal(inputs), separator = ", "), ...);
    message << ") gave " << result << " from finite input";
    throw domain_error(message.str());
}

/// op's value at the inputs; every mode computes values through it. In checked builds, finite
/// inputs that give a non-finite result throw zg::domain_error naming the operation and the
/// inputs. Free in unchecked builds.
template <class Op, class... In>
constexpr auto checked_value(const Op& op, const In&... inputs) {
    auto result = op.value(inputs...);
    if constexpr (config::checked) {
        if (!std::isfinite(primal(result)) && (std::isfinite(primal(inputs)) && ...))
            throw_domain_error(Op::name, primal(result), inputs...);
    }
    return result;
}

} // namespace zg::detail
