// zerograd/drivers/tape_hessian.hpp: zg::tape::hessian, second derivatives by forward-over-reverse:
// the tape records on dual numbers, so each reverse sweep also carries a directional derivative.
// In drivers/, since it combines tape and forward mode.
#pragma once

#include "zerograd/fwd/dual.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <cstddef>
#include <functional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::tape {

/// The Hessian of f: R^n -> R at x, row-major (n rows of n), by forward-over-reverse: for each
/// direction j, f is recorded on `zg::tape::basic_var<zg::dual>` leaves whose derivative parts
/// are the unit vector e_j, and swept backwards once. Each adjoint is then a dual whose value is
/// df/dx_i and whose derivative part is d/dx_j df/dx_i = H[i][j]: n recordings and n sweeps give
/// the Hessian column by column, with no finite differences. f takes
/// `std::span<const zg::tape::basic_var<zg::dual>>` (write it as a generic lambda) and returns
/// one such variable. Everything f records is reclaimed before this returns.
///
/// The result is what the sweeps give, not symmetrized: H[i][j] and H[j][i] come from different
/// sweeps and agree to rounding.
///
///     auto H = zg::tape::hessian([](auto x) { return x[0] * x[0] * x[1]; },
///                                std::vector{2.0, 3.0});
///     // H == {{6, 4}, {4, 0}}
template <class F>
std::vector<std::vector<double>> hessian(F&& f, std::span<const double> x) {
    using scalar = basic_var<dual>;
    static_assert(std::is_invocable_v<F&, std::span<const scalar>>,
                  "zg::tape::hessian: f is called with "
                  "std::span<const zg::tape::basic_var<zg::dual>>, whose duals carry the second "
                  "derivatives: write f generic ([](auto x) { ... }); one taking "
                  "std::span<const zg::var> cannot be called with them");
    if constexpr (std::is_invocable_v<F&, std::span<const scalar>>) { // else nothing more to say
        basic_tape<dual>& tape = this_thread_tape<dual>();
        const std::size_t n = x.size();
        std::vector<std::vector<double>> h(n, std::vector<double>(n, 0.0));
        std::vector<scalar> leaves;
        leaves.reserve(n);
        for (std::size_t j = 0; j < n; ++j) {
            const basic_scope<dual> recording(tape);
            leaves.clear();
            for (std::size_t i = 0; i < n; ++i)
                leaves.emplace_back(tape, dual(x[i], i == j ? 1.0 : 0.0));
            auto&& produced = std::invoke(f, std::span<const scalar>(leaves));
            using result = zg::detail::kept_t<decltype(produced)>; // a formula, as its variable
            const result y = std::forward<decltype(produced)>(produced);
            static_assert(std::is_same_v<result, scalar> || std::is_arithmetic_v<result>,
                          "zg::tape::hessian: f must return one scalar (the "
                          "zg::tape::basic_var<zg::dual> it is given)");
            if constexpr (std::is_same_v<result, scalar>) {
                if (&y.tape() == &tape && y.index() >= recording.first())
                    tape.backward(y.index(), recording.first());
                for (std::size_t i = 0; i < n; ++i)
                    h[i][j] = leaves[i].grad().deriv;
            }
        }
        return h;
    } else {
        return {};
    }
}

/// The same for a std::vector<double> (or a braced list) of inputs.
template <class F>
std::vector<std::vector<double>> hessian(F&& f, const std::vector<double>& x) {
    return tape::hessian(std::forward<F>(f), std::span<const double>(x));
}

} // namespace zg::tape
