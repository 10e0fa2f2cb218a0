// zerograd/drivers/jacobian.hpp: zg::jacobian on a vector of inputs, which picks forward sweeps
// (zg::fwd::jacobian) or reverse sweeps (zg::tape::jacobian), whichever needs fewer. drivers/
// holds what combines two modes, so that each mode's folder includes only core/.
#pragma once

#include "zerograd/fwd/dual.hpp"
#include "zerograd/fwd/jacobian.hpp"
#include "zerograd/tape/jacobian.hpp"
#include "zerograd/tape/var.hpp"

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg {

/// The Jacobian of f: R^n -> R^m at x, row-major (m rows of n), by whichever direction needs
/// fewer sweeps: forward (zg::fwd::jacobian, n evaluations on duals, one column each) when
/// n <= m, else reverse (zg::tape::jacobian, one recording and m sweeps, one row each). f is a
/// generic lambda taking `std::span<const T>` and returning `std::vector<T>`, called with
/// T = zg::dual and, if reverse is chosen, with T = zg::var; a lambda that accepts only one of
/// them gets that direction.
///
/// m is learned from the first forward evaluation, which is also the first column: choosing
/// forward costs nothing extra, choosing reverse costs that one evaluation. Ties (n == m) go
/// forward: a forward sweep records nothing.
///
///     auto J = zg::jacobian(
///         [](auto x) {
///             return std::vector<typename decltype(x)::value_type>{x[0] * x[1], sin(x[0])};
///         },
///         std::vector{2.0, 3.0});   // n = m = 2: forward
///     // J == {{3, 2}, {cos 2, 0}}
template <class F>
std::vector<std::vector<double>> jacobian(F&& f, std::span<const double> x) {
    constexpr bool forward = std::is_invocable_v<F&, std::span<const dual>>;
    constexpr bool reverse = std::is_invocable_v<F&, std::span<const var>>;
    static_assert(forward || reverse,
                  "zg::jacobian: f must take std::span<const T> with T zg::dual (forward) or "
                  "zg::var (reverse), best both: a generic lambda");
    if constexpr (!reverse) {
        return fwd::jacobian(f, x);
    } else if constexpr (!forward) {
        return tape::jacobian(f, x);
    } else if constexpr (!zg::detail::range_of<std::invoke_result_t<F&, std::span<const dual>>,
                                               dual>) {
        return fwd::jacobian(f, x); // for its message
    } else {
        std::vector<dual> leaves(x.begin(), x.end());
        auto result = fwd::detail::first_column(f, leaves);
        if (x.size() > result.size()) return tape::jacobian(f, x); // n > m: m reverse sweeps
        for (std::size_t j = 1; j < leaves.size(); ++j)
            fwd::detail::sweep_column(f, leaves, j, result);
        return result;
    }
}

/// The same for inputs in a std::vector<double> (or a braced list) or an Eigen vector.
template <class F, zg::detail::jacobian_vector X = std::vector<double>>
std::vector<std::vector<double>> jacobian(F&& f, const X& x) {
    return zg::jacobian(std::forward<F>(f), zg::detail::vector_span(x));
}

} // namespace zg
