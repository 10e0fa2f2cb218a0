// zerograd/expr/entry/jacobian.hpp: zg::jacobian in expression mode, for a lambda returning several
// scalar expressions: one evaluation, whose shared work all rows use, and one sweep per row.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/expr/entry/grad.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zg::expr {

namespace detail {

/// A result of f that zg::jacobian takes: a std::array or std::tuple of scalar expressions (or
/// numbers).
template <class R>
inline constexpr bool rows_result = false;
template <class E, std::size_t M>
inline constexpr bool rows_result<std::array<E, M>> = scalar_result<E>;
template <class... E>
inline constexpr bool rows_result<std::tuple<E...>> = (scalar_result<E> && ...);

template <std::size_t N, class R>
auto sweep_rows(const R& rows, frame<double>& call) {
    constexpr std::size_t M = std::tuple_size_v<R>;
    std::array<std::array<double, N>, M> jacobian{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
                sweep_context<double> context{jacobian[I].data()};
                value_and_sweep(std::get<I>(rows), call, context);
            }(),
            ...);
    }
    (std::make_index_sequence<M>{});
    return jacobian;
}

} // namespace detail

/// The Jacobian of f at number arguments (or one std::array spread into leaves), where f returns
/// M scalar expressions as a std::array (or std::tuple): std::array<std::array<double, N>, M>,
/// row m the gradient of output m. f is evaluated once; the rows share its intermediates, and
/// each row is one reverse sweep. A reprojection's residuals, say:
///
///     auto J = zg::jacobian([](auto x, auto y) {
///         auto r = sqrt(x * x + y * y);
///         return std::array{x / r, y / r};
///     }, 3.0, 4.0);  // J[0] == {0.128, -0.096}, J[1] == {-0.096, 0.072}
template <class F, class... Args>
requires zg::detail::scalar_arguments<Args...>
auto jacobian(F&& f, const Args&... args) {
    const auto values = zg::detail::scalar_values(args...);
    constexpr std::size_t N = std::tuple_size_v<std::remove_cvref_t<decltype(values)>>;
    std::array<argument_state<double>, N> arguments{};
    alignas(16) std::byte stack[detail::stack_frame_bytes];
    frame<double> call(arguments, stack, id_of<F>);
    const detail::frame_scope<double> scope(call);
    const auto rows = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return f_returns_one_type_so_pick_with_zg_select(
            f, expression<argument_expr<double, std::remove_cvref_t<F>>>{{values[I], I}, &call}...);
    }
    (std::make_index_sequence<N>{});
    using result = std::remove_cvref_t<decltype(rows)>;
    check_not_abandoned(call, "jacobian");
    static_assert(detail::rows_result<result>,
                  "zg::jacobian: f must return a std::array (or std::tuple) of scalar "
                  "expressions, one per output; for one output use zg::grad");
    if constexpr (detail::rows_result<result>) {
        std::apply(
            [](const auto&... row) {
                (detail::check_call<F, std::remove_cvref_t<decltype(row)>>(), ...);
            },
            rows);
        return detail::sweep_rows<N>(rows, call);
    }
}

} // namespace zg::expr

namespace zg {
using expr::jacobian;
} // namespace zg
