// zerograd/fwd/jacobian.hpp: zg::fwd::jacobian, the Jacobian of f: R^n -> R^m by one forward
// sweep per input (zerograd/drivers/jacobian.hpp picks forward or reverse sweeps).
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/fwd/dual.hpp"
#include "zerograd/fwd/grad.hpp" // set_derivative

#include <cstddef>
#include <functional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::fwd {

namespace detail {

using jacobian_type = std::vector<std::vector<double>>;

template <class F>
auto outputs(F& f, const std::vector<dual>& leaves) {
    auto y = std::invoke(f, std::span<const dual>(leaves));
    static_assert(zg::detail::range_of<decltype(y), dual>,
                  "zg::jacobian: f must return a std::vector<zg::dual> (the scalar it is given); "
                  "use zg::fwd::grad for a function with one output");
    if constexpr (zg::detail::range_of<decltype(y), dual>)
        return y;
    else
        return std::vector<dual>{}; // after the message above, nothing more to say
}

/// Column j by one forward sweep: seeds x_j, evaluates f, writes dy_i/dx_j into j's column.
/// The first sweep (j == 0) sizes the result, which is how the number of outputs is learned.
template <class F>
void sweep_column(F& f, std::vector<dual>& leaves, std::size_t j, jacobian_type& result) {
    set_derivative(leaves[j], 1);
    const auto y = outputs(f, leaves);
    set_derivative(leaves[j], 0);
    const std::size_t m = std::ranges::size(y);
    if (j == 0)
        result.assign(m, std::vector<double>(leaves.size(), 0.0));
    else if (m != result.size())
        throw error("zg::jacobian: f returned " + std::to_string(result.size()) +
                    " outputs in one evaluation and " + std::to_string(m) + " in another");
    std::size_t i = 0;
    for (const dual& yi : y)
        result[i++][j] = yi.deriv;
}

/// Leaves for x with zero derivatives, and the Jacobian's first column (or, with no inputs, its
/// m empty rows): the first evaluation of f, which tells m.
template <class F>
jacobian_type first_column(F& f, std::vector<dual>& leaves) {
    jacobian_type result;
    if (leaves.empty())
        result.resize(std::ranges::size(outputs(f, leaves)));
    else
        sweep_column(f, leaves, 0, result);
    return result;
}

} // namespace detail

/// The Jacobian of f at x, row-major (m rows of n), by forward mode: one evaluation of f on
/// zg::dual leaves per input, each giving a column, so the cost is n evaluations whatever m is.
/// f takes `std::span<const zg::dual>` and returns a std::vector<zg::dual> (any sized range of
/// them). Nothing is recorded.
///
///     auto J = zg::fwd::jacobian(
///         [](auto x) { return std::vector{x[0] * x[1], sin(x[0])}; }, std::vector{2.0, 3.0});
///     // J == {{3, 2}, {cos 2, 0}}
template <class F>
std::vector<std::vector<double>> jacobian(F&& f, std::span<const double> x) {
    std::vector<dual> leaves(x.begin(), x.end());
    auto result = detail::first_column(f, leaves);
    for (std::size_t j = 1; j < leaves.size(); ++j)
        detail::sweep_column(f, leaves, j, result);
    return result;
}

/// The same for inputs in a std::vector<double> (or a braced list) or an Eigen vector.
template <class F, zg::detail::jacobian_vector X = std::vector<double>>
std::vector<std::vector<double>> jacobian(F&& f, const X& x) {
    return fwd::jacobian(std::forward<F>(f), zg::detail::vector_span(x));
}

} // namespace zg::fwd
