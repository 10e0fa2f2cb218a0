// zerograd/expr/entry/grad.hpp: zg::grad and zg::value_and_grad, which call the user's lambda on
// expression leaves in a frame of their own and sweep the tree it returns.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/expr/entry/mixed_sweep.hpp"
#include "zerograd/expr/entry/scalar_sweep.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

// zg::grad's and zg::value_and_grad's checks of their arguments, each message naming its call.
#define ZG_EXPR_CHECK_ARGUMENTS(name)                                                              \
    static_assert(sizeof...(Args) > 0, "zg::" #name ": give f at least one argument");             \
    static_assert(!(detail::of_tape_mode<Args> || ...),                                            \
                  "zg::" #name ": an argument is a zg::var (or holds them), tape mode's "          \
                  "variable. zg::" #name " takes numbers, or a std::array, std::vector or "        \
                  "std::span of doubles, and makes its own leaves: pass the values, x.data(), or " \
                  "differentiate in tape mode, zg::tape::" #name "(f, values...), or call "        \
                  "y.backward() on a zg::var result");                                             \
    static_assert(!(detail::of_forward_mode<Args> || ...),                                         \
                  "zg::" #name ": an argument is a zg::dual (or holds them), forward mode's "      \
                  "number. Pass the values, x.value, or differentiate in forward mode: zg::fwd::"  \
                  #name "(f, values...) or zg::derivative(f, x)");                                 \
    static_assert((zg::detail::gradient_argument<Args> && ...) ||                                  \
                      (detail::of_tape_mode<Args> || ...) ||                                       \
                      (detail::of_forward_mode<Args> || ...),                                      \
                  "zg::" #name ": every argument must be a number, or a std::array, std::vector "  \
                  "or std::span of doubles")

namespace zg::expr {

/// The value of f at the arguments and its gradient, by one forward evaluation and one reverse
/// sweep that the compiler generates from the expression's type: no tape, no heap for numbers
/// and std::array, and usable in constant expressions when every operation is (+ - * /,
/// integer pow, square, abs, relu, min, max). A single std::array<double, N> is spread into N
/// leaves; the gradient is then std::array<double, N>. A range of doubles (std::vector, std::span)
/// becomes one vector leaf, and the gradient a std::tuple with a double per number and a
/// std::vector<double> per range.
///
///     auto [v, g] = zg::value_and_grad([](auto x, auto y) { return x * y + sin(x); }, 2.0, 3.0);
///     // v == 6 + sin(2), g == {3 + cos(2), 2}
template <class F, class... Args>
ZG_INLINE constexpr auto value_and_grad(F&& f, const Args&... args) {
    ZG_EXPR_CHECK_ARGUMENTS(value_and_grad);
    if constexpr (!zg::detail::gradient_arguments<Args...>) {
        // After the message above, a result the caller's code can use, so that nothing more is
        // said (auto [v, g] = ...).
        return value_and_grad_result<std::array<double, sizeof...(Args)>>{};
    } else if constexpr (zg::detail::scalar_arguments<Args...>) {
        const auto [value, gradient] =
            detail::sweep_scalars<detail::scalar_call::value_and_grad>(
                f, zg::detail::scalar_values(args...));
        return value_and_grad_result<gradient_t<Args...>>{value, gradient};
    } else {
        return detail::sweep_mixed(f, args...);
    }
}

/// The gradient of f at the arguments; see value_and_grad.
///
///     std::array<double, 2> g = zg::grad([](auto x, auto y) { return x * y; }, 2.0, 3.0);
///     // g == {3, 2}
template <class F, class... Args>
ZG_INLINE constexpr auto grad(F&& f, const Args&... args) {
    ZG_EXPR_CHECK_ARGUMENTS(grad);
    if constexpr (!zg::detail::gradient_arguments<Args...>)
        return std::array<double, sizeof...(Args)>{}; // see value_and_grad
    else if constexpr (zg::detail::scalar_arguments<Args...>)
        return gradient_t<Args...>(detail::sweep_scalars<detail::scalar_call::grad>(
                                       f, zg::detail::scalar_values(args...))
                                       .grad);
    else
        return detail::sweep_mixed(f, args...).grad;
}

/// An expression f built on leaves, kept with the frame it was built in (its shared nodes).
template <class E, class F, std::size_t N>
struct built_expression {
    std::unique_ptr<detail::built_frame<F, N>> owner;
    E expression;

    /// The forward value.
    double value() const {
        if constexpr (Expression<E>)
            return expression.value();
        else
            return double(expression);
    }
};

/// The expression f builds on leaves holding the arguments (numbers only), for printing it
/// (zg::expr::to_text) or sweeping it by hand (zg::expr::sweep).
template <class F, class... Args>
requires(zg::detail::scalar_argument<Args>&&...) auto build(F&& f, const Args&... args) {
    using function = std::remove_cvref_t<F>;
    constexpr std::size_t N = sizeof...(Args);
    auto owner = std::make_unique<detail::built_frame<function, N>>();
    const std::array<double, N> values{static_cast<double>(args)...};
    const detail::frame_scope<double> scope(owner->call);
    auto e = detail::call_on_leaves(f, values, &owner->call, std::make_index_sequence<N>{});
    return built_expression<decltype(e), function, N>{std::move(owner), std::move(e)};
}

/// The reverse sweep of a built expression: gradient[I] receives leaf I's adjoint (added). It
/// may be swept again.
template <class E, class F, std::size_t N>
void sweep(const built_expression<E, F, N>& e, std::array<double, N>& gradient) {
    std::array<double, N> adjoints{};
    sweep_context<double> context{adjoints.data()};
    detail::value_and_sweep(e.expression, e.owner->call, context);
    for (std::size_t i = 0; i < N; ++i)
        gradient[i] += adjoints[i];
}

} // namespace zg::expr

#undef ZG_EXPR_CHECK_ARGUMENTS

namespace zg {
using expr::grad;
using expr::value_and_grad;
} // namespace zg
