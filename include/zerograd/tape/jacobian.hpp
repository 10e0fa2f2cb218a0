// zerograd/tape/jacobian.hpp: zg::tape::jacobian, the Jacobian of f: R^n -> R^m by reverse mode:
// one recording and one reverse sweep per output (a row each).
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <cstddef>
#include <functional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::tape {

/// The Jacobian of f at x, row-major (m rows of n), by reverse mode: f is recorded once on
/// zg::var leaves and swept backwards once per output, so the cost is one recording plus m
/// sweeps whatever n is. f takes `std::span<const zg::var>` and returns a std::vector<zg::var>
/// (any sized range of them, or of formulas of one shape). Everything f records is reclaimed
/// before this returns.
/// zg::jacobian chooses between this and zg::fwd::jacobian by the shape.
///
///     auto J = zg::tape::jacobian(
///         [](auto x) { return std::vector<zg::var>{x[0] * x[1], sin(x[0])}; }, {2.0, 3.0});
///     // J == {{3, 2}, {cos 2, 0}}
template <class F>
std::vector<std::vector<double>> jacobian(F&& f, std::span<const double> x) {
    basic_tape<double>& tape = this_thread_tape<double>();
    const basic_scope<double> recording(tape);
    std::vector<var> leaves;
    leaves.reserve(x.size());
    for (double xi : x)
        leaves.emplace_back(tape, xi);

    const auto outputs = std::invoke(f, std::span<const var>(leaves));
    // Outputs may be variables or formulas (recorded as each is read).
    using output_type = zg::detail::kept_t<std::ranges::range_value_t<decltype(outputs)>>;
    static_assert(std::ranges::sized_range<decltype(outputs)> && std::is_same_v<output_type, var>,
                  "zg::tape::jacobian: f must return a std::vector<zg::var> (the scalar it is "
                  "given); use zg::tape::grad for a function with one output");
    std::vector<std::vector<double>> rows;
    if constexpr (std::is_same_v<output_type, var>) { // else nothing more to say
        rows.reserve(std::ranges::size(outputs));
        for (const auto& output : outputs) {
            const var y = output;
            // Leaves accumulate across sweeps; each row starts from zero. Intermediate nodes are
            // reset by the sweep itself.
            for (const var& leaf : leaves)
                leaf.grad() = 0;
            // An output that f did not record (a constant, or a variable made before the call)
            // does not depend on x: its row stays zero.
            if (&y.tape() == &tape && y.index() >= recording.first())
                tape.backward(y.index(), recording.first());
            std::vector<double>& row = rows.emplace_back(x.size());
            for (std::size_t k = 0; k < x.size(); ++k)
                row[k] = leaves[k].grad();
        }
    }
    return rows;
}

/// The same for inputs in a std::vector<double> (or a braced list) or an Eigen vector.
template <class F, zg::detail::jacobian_vector X = std::vector<double>>
std::vector<std::vector<double>> jacobian(F&& f, const X& x) {
    return tape::jacobian(std::forward<F>(f), zg::detail::vector_span(x));
}

} // namespace zg::tape
