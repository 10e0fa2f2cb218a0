// zerograd/drivers/tape_hessian.hpp: zg::tape::hessian and zg::tape::hvp, second derivatives by
// forward-over-reverse: the tape records on dual numbers, so each reverse sweep also carries a
// directional derivative.
// In drivers/, since it combines tape and forward mode.
#pragma once

#include "zerograd/core/arguments.hpp" // jacobian_vector, vector_span
#include "zerograd/core/error.hpp"
#include "zerograd/fwd/dual.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// The message for an f that cannot be called with dual variables.
#define ZG_TAPE_TAKES_DUALS(call)                                                                  \
    call ": f is called with std::span<const zg::tape::basic_var<zg::dual>>, whose duals carry "   \
         "the second derivatives: write f generic ([](auto x) { ... }); one taking "               \
         "std::span<const zg::var> cannot be called with them"

namespace zg::tape {

namespace detail {

/// H(x) d into `out` (n numbers) by forward-over-reverse: f recorded once on
/// `zg::tape::basic_var<zg::dual>` leaves whose derivative parts are d, and swept backwards once.
/// Each adjoint is then a dual whose value is df/dx_i and whose derivative part is the
/// directional derivative of df/dx_i along d, (H d)_i. Everything f records is reclaimed before
/// this returns.
template <class F>
void hessian_times(F& f, std::span<const double> x, std::span<const double> d,
                   std::span<double> out) {
    using scalar = basic_var<dual>;
    basic_tape<dual>& tape = this_thread_tape<dual>();
    const basic_scope<dual> recording(tape);
    std::vector<scalar> leaves;
    leaves.reserve(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        leaves.emplace_back(tape, dual(x[i], d[i]));
    auto&& produced = std::invoke(f, std::span<const scalar>(leaves));
    using result = zg::detail::kept_t<decltype(produced)>; // a formula, as its variable
    const result y = std::forward<decltype(produced)>(produced);
    static_assert(std::is_same_v<result, scalar> || std::is_arithmetic_v<result>,
                  "zg::tape::hessian / zg::tape::hvp: f must return one scalar (the "
                  "zg::tape::basic_var<zg::dual> it is given)");
    if constexpr (std::is_same_v<result, scalar>) {
        if (&y.tape() == &tape && y.index() >= recording.first())
            tape.backward(y.index(), recording.first());
        for (std::size_t i = 0; i < x.size(); ++i)
            out[i] = leaves[i].grad().deriv;
    } else {
        std::fill(out.begin(), out.end(), 0.0); // a constant has no curvature
    }
}

} // namespace detail

/// The Hessian of f: R^n -> R at x, row-major (n rows of n), by forward-over-reverse: column j
/// is the Hessian times the unit vector e_j (see hvp), one recording and one sweep per column,
/// with no finite differences. f takes `std::span<const zg::tape::basic_var<zg::dual>>` (write it
/// as a generic lambda) and returns one such variable. Everything f records is reclaimed before
/// this returns.
///
/// The result is what the sweeps give, not symmetrized: H[i][j] and H[j][i] come from different
/// sweeps and agree to rounding.
///
///     auto H = zg::tape::hessian([](auto x) { return x[0] * x[0] * x[1]; },
///                                std::vector{2.0, 3.0});
///     // H == {{6, 4}, {4, 0}}
template <class F>
std::vector<std::vector<double>> hessian(F&& f, std::span<const double> x) {
    static_assert(std::is_invocable_v<F&, std::span<const basic_var<dual>>>,
                  ZG_TAPE_TAKES_DUALS("zg::tape::hessian"));
    const std::size_t n = x.size();
    std::vector<std::vector<double>> h(n, std::vector<double>(n, 0.0));
    if constexpr (std::is_invocable_v<F&, std::span<const basic_var<dual>>>) {
        std::vector<double> direction(n, 0.0), column(n);
        for (std::size_t j = 0; j < n; ++j) {
            direction[j] = 1;
            detail::hessian_times(f, x, direction, column);
            direction[j] = 0;
            for (std::size_t i = 0; i < n; ++i)
                h[i][j] = column[i];
        }
    }
    return h;
}

/// The same for inputs in a std::vector<double> (or a braced list) or an Eigen vector.
template <class F, zg::detail::jacobian_vector X = std::vector<double>>
std::vector<std::vector<double>> hessian(F&& f, const X& x) {
    return tape::hessian(std::forward<F>(f), zg::detail::vector_span(x));
}

/// The Hessian-vector product H(x) v of f: R^n -> R, without forming H: one recording of f on
/// dual variables whose derivative parts are v, and one reverse sweep (forward-over-reverse), a
/// few gradients' cost whatever n is. f as for hessian. Throws zg::shape_error unless v has one
/// number per input.
///
///     auto hv = zg::tape::hvp([](auto x) { return x[0] * x[0] * x[1]; },
///                             std::vector{2.0, 3.0}, std::vector{1.0, -1.0});
///     // hv == {6 - 4, 4 - 0} == {2, 4}
template <class F>
std::vector<double> hvp(F&& f, std::span<const double> x, std::span<const double> v) {
    static_assert(std::is_invocable_v<F&, std::span<const basic_var<dual>>>,
                  ZG_TAPE_TAKES_DUALS("zg::tape::hvp"));
    if (v.size() != x.size())
        throw shape_error("zg::tape::hvp: x has " + std::to_string(x.size()) + " numbers and v " +
                          std::to_string(v.size()) + "; give v one number per input");
    std::vector<double> product(x.size(), 0.0);
    if constexpr (std::is_invocable_v<F&, std::span<const basic_var<dual>>>)
        detail::hessian_times(f, x, v, product);
    return product;
}

/// The same for std::vector<double>s (or braced lists) or Eigen vectors.
template <class F, zg::detail::jacobian_vector X = std::vector<double>,
          zg::detail::jacobian_vector V = std::vector<double>>
std::vector<double> hvp(F&& f, const X& x, const V& v) {
    return tape::hvp(std::forward<F>(f), zg::detail::vector_span(x), zg::detail::vector_span(v));
}

#undef ZG_TAPE_TAKES_DUALS

} // namespace zg::tape
