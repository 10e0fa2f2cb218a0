// zerograd/drivers/expr_hessian.hpp: zg::hessian, second derivatives in expression mode by
// forward-over-reverse: the expression's scalar is a dual number, so one reverse sweep per input
// gives a column of the Hessian. In drivers/, since it combines expression and forward mode.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/expr/grad.hpp"
#include "zerograd/fwd/dual.hpp"

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zg::expr {

/// The Hessian of f at the arguments (numbers, or a single std::array spread into leaves), as
/// std::array<std::array<double, N>, N>. Column j comes from one reverse sweep of the expression
/// built on dual leaves whose derivative part seeds direction j: the adjoints' derivative parts
/// are the column (forward-over-reverse, N sweeps).
///
///     auto h = zg::hessian([](auto x, auto y) { return x * x * y; }, 3.0, 2.0);
///     // h == {{4, 6}, {6, 0}}
template <class F, class... Args>
constexpr auto hessian(F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::hessian: give f at least one argument");
    static_assert(zg::detail::scalar_arguments<Args...>,
                  "zg::hessian: every argument must be a number (or one std::array of doubles)");
    if constexpr (sizeof...(Args) > 0 &&
                  zg::detail::scalar_arguments<Args...>) { // else nothing more to say
        const auto values = zg::detail::scalar_values(args...);
        constexpr std::size_t n = std::tuple_size_v<std::remove_cvref_t<decltype(values)>>;
        std::array<std::array<double, n>, n> result{};
        for (std::size_t j = 0; j < n; ++j) {
            std::array<dual, n> seeded{};
            for (std::size_t i = 0; i < n; ++i)
                seeded[i] = dual(values[i], i == j ? 1.0 : 0.0);
            const auto column = detail::sweep_scalars<detail::scalar_call::hessian>(f, seeded).grad;
            for (std::size_t i = 0; i < n; ++i)
                result[i][j] = column[i].deriv;
        }
        return result;
    }
}

} // namespace zg::expr

namespace zg {
using expr::hessian;
} // namespace zg
