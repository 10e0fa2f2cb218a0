// zerograd/core/arguments.hpp: which arguments the gradient functions of every mode take, and
// the shape of the gradient they return.
#pragma once

#include "zerograd/core/config.hpp"

#include <array>
#include <cstddef>
#include <functional> // std::invoke
#include <ranges>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg {

/// What zg::value_and_grad (and its tape and forward twins) return; structured bindings work:
/// `auto [v, g] = zg::value_and_grad(f, 2.0, 3.0);`.
template <class Gradient>
struct value_and_grad_result {
    double value;
    Gradient grad;
};

namespace detail {

template <class A>
struct is_std_array : std::false_type {};
template <std::size_t N>
struct is_std_array<std::array<double, N>> : std::true_type {};

/// A number that becomes one scalar leaf.
template <class A>
concept scalar_argument = std::is_arithmetic_v<std::remove_cvref_t<A>>;

/// An Eigen matrix, array or expression, told by the members all of them have (core/ includes
/// no Eigen). Eigen's own operators take these; zerograd's never capture them.
template <class A>
concept eigen_object = requires {
    std::remove_cvref_t<A>::RowsAtCompileTime;
    std::remove_cvref_t<A>::ColsAtCompileTime;
    typename std::remove_cvref_t<A>::Scalar;
};

/// An Eigen vector of doubles stored contiguously: Eigen::VectorXd, Eigen::RowVector3d, a Map or
/// a segment of one (not a row of a column-major matrix, whose elements are apart).
template <class A>
concept eigen_contiguous_vector =
    eigen_object<A> && requires(const std::remove_cvref_t<A>& a) {
        requires std::remove_cvref_t<A>::IsVectorAtCompileTime == 1;
        requires std::remove_cvref_t<A>::InnerStrideAtCompileTime == 1;
        { a.data() } -> std::same_as<const double*>;
    };

/// A contiguous vector of doubles that becomes one vector leaf: a std::vector, std::array or
/// std::span of doubles, or an Eigen vector of them.
template <class A>
concept vector_argument = (std::ranges::contiguous_range<A> && std::ranges::sized_range<A> &&
                           std::is_same_v<std::remove_cvref_t<std::ranges::range_value_t<A>>,
                                          double>) ||
                          eigen_contiguous_vector<A>;

/// What the Jacobians of a vector take besides a std::span: a std::vector<double> (or a braced
/// list) or an Eigen vector. (A std::array goes to expression mode's zg::jacobian, spread.)
template <class X>
concept jacobian_vector = std::same_as<X, std::vector<double>> || eigen_contiguous_vector<X>;

/// A vector argument's doubles, read in place.
template <vector_argument A>
std::span<const double> vector_span(const A& a) {
    if constexpr (eigen_object<A>)
        return {a.data(), static_cast<std::size_t>(a.size())};
    else
        return {std::ranges::data(a), std::ranges::size(a)};
}

template <class A>
concept gradient_argument = scalar_argument<A> || vector_argument<A>;

/// A sized range of T (what zg::jacobian's f returns); false, not an error, for anything else.
template <class R, class T>
concept range_of = std::ranges::sized_range<R> &&
                   std::is_same_v<std::remove_cvref_t<std::ranges::range_value_t<R>>, T>;

/// Arguments a gradient function takes: at least one, each a number or a range of doubles. The
/// functions static_assert each part under their own name and instantiate nothing further
/// otherwise, so that a misuse gives one message naming the call.
template <class... Args>
inline constexpr bool gradient_arguments = sizeof...(Args) > 0 && (gradient_argument<Args> && ...);

/// A single std::array<double, N> is spread into N scalar leaves.
template <class... Args>
inline constexpr bool spread_array = false;
template <class A>
inline constexpr bool spread_array<A> = is_std_array<std::remove_cvref_t<A>>::value;

/// The gradient's type for these arguments: std::array<double, N> when every argument is a
/// number (or a single std::array is spread), else a std::tuple with a double per number and a
/// std::vector<double> per range.
template <class... Args>
struct gradient_of {
    using type =
        std::tuple<std::conditional_t<scalar_argument<Args>, double, std::vector<double>>...>;
};
template <class... Args>
requires(scalar_argument<Args>&&...) struct gradient_of<Args...> {
    using type = std::array<double, sizeof...(Args)>;
};
template <class A>
requires spread_array<A>
struct gradient_of<A> {
    using type = std::remove_cvref_t<A>;
};

} // namespace detail

template <class... Args>
using gradient_t = typename detail::gradient_of<Args...>::type;

namespace detail {

/// Every argument a number, or a single std::array of them: the gradient is a std::array.
template <class... Args>
inline constexpr bool scalar_arguments = spread_array<Args...> || (scalar_argument<Args> && ...);

/// The numbers of scalar arguments in the gradient's shape: a single std::array as it is,
/// numbers converted to double.
template <class... Args>
requires scalar_arguments<Args...>
constexpr gradient_t<Args...> scalar_values(const Args&... args) {
    if constexpr (spread_array<Args...>)
        return gradient_t<Args...>(args...);
    else
        return {static_cast<double>(args)...};
}

/// Calls body with one argument per leaf: the arguments themselves, or the N numbers of a single
/// std::array, spread. Every mode makes its leaves through this, so all spread alike.
template <class Body, class... Args>
constexpr decltype(auto) spread_arguments(Body&& body, const Args&... args) {
    if constexpr (spread_array<Args...>) {
        const auto& values = std::get<0>(std::tie(args...));
        return [&]<std::size_t... I>(std::index_sequence<I...>)->decltype(auto) {
            return body(values[I]...);
        }
        (std::make_index_sequence<std::tuple_size_v<gradient_t<Args...>>>{});
    } else {
        return body(args...);
    }
}

/// Calls f with view(leaf) for each leaf of a tuple (what f receives for it: the leaf, or a span
/// over a range's leaves).
template <class F, class Leaves, class View>
decltype(auto) call_with_views(F& f, Leaves& leaves, View view) {
    return std::apply(
        [&](auto&... each) -> decltype(auto) { return std::invoke(f, view(each)...); }, leaves);
}

/// The gradient for Args packed from one part per leaf of a tuple, in order: part(leaf) is a
/// double for a number's leaf and a std::vector<double> for a range's.
template <class... Args, class Leaves, class Part>
gradient_t<Args...> pack_gradient(Leaves& leaves, Part part) {
    return std::apply([&](auto&... each) { return gradient_t<Args...>{part(each)...}; }, leaves);
}

} // namespace detail

} // namespace zg
