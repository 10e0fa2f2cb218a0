// zerograd/core/elementwise.hpp: elementwise operations on ranges of a mode's scalars (a
// std::span<const zg::var>, a std::vector<zg::dual>), as expression mode has them on its vector
// leaves, so one generic lambda such as `zg::sum(v * s + sin(v))` runs in every mode. Each
// element goes through the scalar operation, so the rules are the elementary ones. A mode turns
// them on for its scalar (`enabled`) and brings them into its namespace
// (ZG_ELEMENTWISE_ON_RANGES), where argument-dependent lookup finds them for ranges of it.
#pragma once

#include "zerograd/core/arguments.hpp" // eigen_object
#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp" // element_t
#include "zerograd/core/rules.hpp"      // the lists of operations

#include <concepts>
#include <cstddef>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

namespace zg::elementwise {

/// Whether ranges of E take elementwise operations; each mode sets it for its scalar type.
template <class E>
inline constexpr bool enabled = false;

namespace detail {

using zg::detail::element_t;

/// A range whose elements operations reach by index; Eigen's matrices are left to Eigen.
template <class R>
concept indexed_range = std::ranges::random_access_range<const R&> &&
                        std::ranges::sized_range<const R&> && !zg::detail::eigen_object<R>;

/// A range of a mode's scalars.
template <class R>
concept scalar_range = indexed_range<R> && enabled<element_t<R>>;

/// What may stand beside a range of E: another range of E, a range of plain numbers (constants),
/// one E, or one plain number (broadcast to every element).
template <class X, class E>
concept operand_of = (scalar_range<X> && std::same_as<element_t<X>, E>) ||
                     (indexed_range<X> && std::is_arithmetic_v<element_t<X>>) ||
                     std::same_as<zg::detail::kept_t<X>, E> || std::is_arithmetic_v<X>;

template <class A, class B>
concept operands = (scalar_range<A> && operand_of<B, element_t<A>>) ||
                   (scalar_range<B> && operand_of<A, element_t<B>>);

/// The number of elements of a range operand, or of both (which must agree).
template <class A, class B>
std::size_t common_size(std::string_view operation, const A& a, const B& b) {
    if constexpr (indexed_range<A> && indexed_range<B>) {
        if (std::ranges::size(a) != std::ranges::size(b))
            throw shape_error("zg: elementwise " + std::string(operation) + " of ranges of sizes " +
                              std::to_string(std::ranges::size(a)) + " and " +
                              std::to_string(std::ranges::size(b)));
        return std::ranges::size(a);
    } else if constexpr (indexed_range<A>) {
        return std::ranges::size(a);
    } else {
        return std::ranges::size(b);
    }
}

/// Element k of a range operand (a reference, or a value for a range that computes its
/// elements, such as a std::views::transform); a broadcast operand itself.
template <class X>
decltype(auto) at(const X& x, std::size_t k) {
    if constexpr (indexed_range<X>)
        return std::ranges::begin(x)[static_cast<std::ranges::range_difference_t<const X&>>(k)];
    else
        return (x);
}

template <class A, class B, class Op>
auto map(std::string_view operation, const A& a, const B& b, Op op) {
    const std::size_t n = common_size(operation, a, b);
    std::vector<zg::detail::kept_t<decltype(op(at(a, 0), at(b, 0)))>> out;
    out.reserve(n);
    for (std::size_t k = 0; k < n; ++k) out.push_back(op(at(a, k), at(b, k)));
    return out;
}

template <class R, class Op>
auto map(const R& r, Op op) {
    std::vector<element_t<R>> out;
    out.reserve(std::ranges::size(r));
    for (const auto& x : r) out.push_back(op(x));
    return out;
}

} // namespace detail

template <detail::scalar_range R>
auto operator+(const R& r) {
    return detail::map(r, [](const auto& x) { return +x; });
}
template <detail::scalar_range R>
auto operator-(const R& r) {
    return detail::map(r, [](const auto& x) { return -x; });
}

#define ZG_ELEMENTWISE_OPERATOR(fn, symbol)                                                        \
    template <class A, class B>                                                                    \
        requires detail::operands<A, B>                                                            \
    auto operator symbol(const A& a, const B& b) {                                                 \
        return detail::map(#symbol, a, b,                                                          \
                           [](const auto& x, const auto& y) { return x symbol y; });               \
    }
ZG_BINARY_OPERATORS(ZG_ELEMENTWISE_OPERATOR)
#undef ZG_ELEMENTWISE_OPERATOR

#define ZG_ELEMENTWISE_UNARY(fn)                                                                   \
    template <detail::scalar_range R>                                                              \
    auto fn(const R& r) {                                                                          \
        return detail::map(r, [](const auto& x) { return fn(x); });                                \
    }
ZG_UNARY_FUNCTIONS(ZG_ELEMENTWISE_UNARY)
#undef ZG_ELEMENTWISE_UNARY

// Argument-dependent lookup also finds std::min(const T&, const T&) and std::max for two ranges
// of one type (std::span and std::vector live in std): the second overload, of that same form
// but constrained, is the one overload resolution prefers.
#define ZG_ELEMENTWISE_BINARY(fn)                                                                  \
    template <class A, class B>                                                                    \
        requires detail::operands<A, B>                                                            \
    auto fn(const A& a, const B& b) {                                                              \
        return detail::map(#fn, a, b, [](const auto& x, const auto& y) { return fn(x, y); });      \
    }                                                                                              \
    template <detail::scalar_range R>                                                              \
    auto fn(const R& a, const R& b) {                                                              \
        return detail::map(#fn, a, b, [](const auto& x, const auto& y) { return fn(x, y); });      \
    }
ZG_BINARY_FUNCTIONS(ZG_ELEMENTWISE_BINARY)
#undef ZG_ELEMENTWISE_BINARY

} // namespace zg::elementwise

/// Brings the elementwise operations into a mode's namespace, where argument-dependent lookup
/// finds them for a std::span or std::vector of the mode's scalars.
#define ZG_ELEMENTWISE_USING_FUNCTION(fn) using zg::elementwise::fn;
#define ZG_ELEMENTWISE_USING_OPERATOR(fn, symbol) using zg::elementwise::operator symbol;
#define ZG_ELEMENTWISE_ON_RANGES                                                                   \
    ZG_BINARY_OPERATORS(ZG_ELEMENTWISE_USING_OPERATOR)                                             \
    ZG_UNARY_FUNCTIONS(ZG_ELEMENTWISE_USING_FUNCTION)                                              \
    ZG_BINARY_FUNCTIONS(ZG_ELEMENTWISE_USING_FUNCTION)
