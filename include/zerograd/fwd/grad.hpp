// zerograd/fwd/grad.hpp: zg::derivative, zg::fwd::grad and zg::fwd::value_and_grad, the
// forward-mode twins of zg::grad: one evaluation of f on duals per scalar input.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/core/config.hpp" // ZG_NO_IPA
#include "zerograd/fwd/dual.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg {

namespace detail {

/// f'(x) by one evaluation of f on a `dual_t<X>` seeded with derivative 1: X is double, or a
/// dual for a nested call. f returns a `dual_t<X>`, or a constant (derivative 0).
template <class X, class F>
X derivative_at(F& f, const X& x) {
    using seeded = dual_t<X>;
    const auto y = std::invoke(f, seeded(x, X(1.0)));
    using result = std::remove_cvref_t<decltype(y)>;
    static_assert(std::is_same_v<result, seeded> || std::is_arithmetic_v<result> ||
                      (!std::is_arithmetic_v<X> && std::is_convertible_v<result, X>),
                  "zg::derivative: f must return one scalar (a zg::dual); use zg::jacobian for "
                  "functions with several outputs");
    if constexpr (std::is_same_v<result, seeded>)
        return y.deriv;
    else
        return X(0.0);
}

} // namespace detail

/// f'(x) for f: R -> R, by one evaluation of f on a dual seeded with derivative 1.
/// f is called with a zg::dual and returns a zg::dual (or a plain number: derivative 0).
///
///     double d = zg::derivative([](auto x) { return x * sin(x); }, 2.0);   // sin 2 + 2 cos 2
template <class F>
double derivative(F&& f, double x) {
    return detail::derivative_at(f, x);
}

/// The same at a dual x, for higher derivatives: f runs on `dual_t<dual_t<T>>`, whose outer
/// derivative is this call's and whose inner one is x's own, so nested calls give f'':
///
///     zg::derivative([](auto x) { return zg::derivative([](auto y) { return y * y * y; }, x); },
///                    2.0);                                                 // 6 * 2 = 12
///
/// Differentiate the inner function at the innermost enclosing variable, as there, or at a
/// constant lifted to its type (`decltype(x)(1.0)`): an inner call at a plain number, or at a
/// variable two levels out, on a closure that captures the enclosing dual, gives both
/// perturbations one type and adds them up (perturbation confusion).
template <class F, class T>
dual_t<T> derivative(F&& f, const dual_t<T>& x) {
    static_assert(std::is_invocable_v<F&, dual_t<dual_t<T>>>,
                  "zg::derivative: at a dual x, f is called with zg::dual_t<decltype(x)>, one "
                  "level up: write f generic ([](auto y) { ... })");
    if constexpr (std::is_invocable_v<F&, dual_t<dual_t<T>>>) // else nothing more to say
        return detail::derivative_at(f, x);
    else
        return x;
}

} // namespace zg

namespace zg::fwd {

namespace detail {

/// One argument's leaves: a dual for a number, a vector of duals for a range of doubles. All
/// derivatives start at zero; each sweep seeds one.
template <class A>
auto make_leaves(const A& argument) {
    if constexpr (zg::detail::scalar_argument<A>) {
        return dual(static_cast<double>(argument));
    } else {
        const std::span<const double> values = zg::detail::vector_span(argument);
        return std::vector<dual>(values.begin(), values.end());
    }
}

/// What f receives for those leaves: the dual itself, or a span over the vector.
inline const dual& as_argument(const dual& leaf) { return leaf; }
inline std::span<const dual> as_argument(const std::vector<dual>& leaves) { return leaves; }

template <class F, class Leaves>
auto call(F& f, Leaves& leaves) {
    return zg::detail::call_with_views(
        f, leaves, [](const auto& each) -> decltype(auto) { return as_argument(each); });
}

/// Seeds (or unseeds) a leaf through a call g++ cannot see into, so that no store to the leaves
/// is taken for dead (see ZG_NO_IPA): the leaves escape into it, and every store before it stays.
ZG_NO_IPA inline void set_derivative(dual& leaf, double derivative) { leaf.deriv = derivative; }

/// The derivative part of f's result (0 for a plain number), and its value.
template <class R>
double deriv_of(const R& y) {
    if constexpr (std::is_same_v<R, dual>)
        return y.deriv;
    else
        return 0.0;
}
template <class R>
double value_of(const R& y) {
    if constexpr (std::is_same_v<R, dual>)
        return y.value;
    else
        return static_cast<double>(y);
}

template <class R>
inline constexpr bool scalar_result = std::is_same_v<R, dual> || std::is_arithmetic_v<R>;

/// value_and_grad, once its arguments are known to be good: one forward sweep per scalar leaf
/// (seed it with 1, evaluate f, read the derivative, unseed), f's value from any sweep (all
/// agree).
template <class F, class... Args>
auto value_and_grad_at(F& f, const Args&... args) {
    auto leaves = zg::detail::spread_arguments(
        [](const auto&... each) { return std::tuple{detail::make_leaves(each)...}; }, args...);
    using result = std::remove_cvref_t<decltype(detail::call(f, leaves))>;
    static_assert(detail::scalar_result<result>,
                  "zg::fwd::grad / zg::fwd::value_and_grad: f must return one scalar (a zg::dual); "
                  "use zg::jacobian for functions with several outputs");
    if constexpr (!detail::scalar_result<result>) {
        return value_and_grad_result<gradient_t<Args...>>{}; // after the message, nothing more
    } else {
        double value = 0;
        bool evaluated = false;
        const auto sweep = [&](dual& leaf) {
            set_derivative(leaf, 1);
            const auto y = call(f, leaves);
            set_derivative(leaf, 0);
            value = value_of(y);
            evaluated = true;
            return deriv_of(y);
        };
        auto gradient = zg::detail::pack_gradient<Args...>(leaves, [&](auto& leaf) {
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(leaf)>, dual>) {
                return sweep(leaf);
            } else {
                std::vector<double> derivatives(leaf.size());
                for (std::size_t k = 0; k < leaf.size(); ++k)
                    derivatives[k] = sweep(leaf[k]);
                return derivatives;
            }
        });
        if (!evaluated) value = value_of(call(f, leaves)); // only empty vectors: no sweep ran
        return value_and_grad_result<gradient_t<Args...>>{value, std::move(gradient)};
    }
}

} // namespace detail

/// The value of f at the arguments and its gradient, by one evaluation of f on duals per scalar
/// input (a vector of n doubles costs n evaluations): cheap for few inputs, where reverse mode
/// (zg::tape::value_and_grad) wins for many. Arguments and results as zg::value_and_grad:
/// numbers give std::array<double, N> (a single std::array<double, N> is spread into N leaves);
/// any range of doubles, passed to f as std::span<const zg::dual>, makes the gradient a
/// std::tuple. Nothing is allocated for numbers and arrays.
///
///     auto [v, g] = zg::fwd::value_and_grad([](auto x, auto y) { return x * y; }, 2.0, 3.0);
///     // v == 6, g == {3, 2}
template <class F, class... Args>
auto value_and_grad(F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::fwd::value_and_grad: give f at least one argument");
    static_assert((zg::detail::gradient_argument<Args> && ...),
                  "zg::fwd::value_and_grad: every argument must be a number, or a std::array, "
                  "std::vector or std::span of doubles");
    if constexpr (zg::detail::gradient_arguments<Args...>) // else nothing more to say
        return detail::value_and_grad_at(f, args...);
}

/// The gradient of f at the arguments; see value_and_grad.
template <class F, class... Args>
auto grad(F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::fwd::grad: give f at least one argument");
    static_assert((zg::detail::gradient_argument<Args> && ...),
                  "zg::fwd::grad: every argument must be a number, or a std::array, "
                  "std::vector or std::span of doubles");
    if constexpr (zg::detail::gradient_arguments<Args...>)
        return fwd::value_and_grad(std::forward<F>(f), args...).grad;
}

} // namespace zg::fwd
