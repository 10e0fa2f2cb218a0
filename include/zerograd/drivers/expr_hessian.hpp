// zerograd/drivers/expr_hessian.hpp: zg::hessian and zg::hvp, second derivatives in expression mode
// by forward-over-reverse: the expression's scalar is a dual number, so one reverse sweep gives the
// Hessian times a direction (a column of the Hessian, for a unit direction). In drivers/, since it
// combines expression and forward mode.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/expr/entry/grad.hpp"
#include "zerograd/fwd/dual.hpp"

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zg::expr {

namespace detail {

/// H d at `values` by forward-over-reverse: one sweep of the expression built on dual leaves whose
/// derivative parts are d; the adjoints' derivative parts are H d.
template <class F, std::size_t N>
[[gnu::flatten]] constexpr std::array<double, N>
hessian_times(F& f, const std::array<double, N>& values, const std::array<double, N>& d) {
    std::array<dual, N> seeded{};
    for (std::size_t i = 0; i < N; ++i)
        seeded[i] = dual(values[i], d[i]);
    const auto adjoints = sweep_scalars<scalar_call::hessian>(f, seeded).grad;
    std::array<double, N> product{};
    for (std::size_t i = 0; i < N; ++i)
        product[i] = adjoints[i].deriv;
    return product;
}

} // namespace detail

/// The Hessian of f at the arguments (numbers, or a single std::array spread into leaves), as
/// std::array<std::array<double, N>, N>. Column j is the Hessian times the unit vector e_j (see
/// hvp): N sweeps on dual leaves.
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
            std::array<double, n> direction{};
            direction[j] = 1;
            const auto column = detail::hessian_times(f, values, direction);
            for (std::size_t i = 0; i < n; ++i)
                result[i][j] = column[i];
        }
        return result;
    }
}

/// The Hessian-vector product H(x) v of f at x (spread into N leaves, as for hessian), without
/// forming H: one forward evaluation and one reverse sweep on dual leaves whose derivative parts
/// are v (forward-over-reverse), a few gradients' cost.
///
///     auto hv = zg::hvp([](auto x, auto y) { return x * x * y; }, std::array{3.0, 2.0},
///                       std::array{1.0, 0.0});
///     // hv == {4, 6}, the Hessian's first column
template <class F, std::size_t N>
constexpr std::array<double, N> hvp(F&& f, const std::array<double, N>& x,
                                    const std::array<double, N>& v) {
    static_assert(N > 0, "zg::hvp: give f at least one argument");
    return detail::hessian_times(f, x, v);
}

} // namespace zg::expr

namespace zg {
using expr::hessian;
using expr::hvp;
} // namespace zg
