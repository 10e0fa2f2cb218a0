// zerograd/expr/entry/mixed_sweep.hpp: a call with vector arguments (std::vector, std::span):
// their leaves, the gradients reductions claim as they are built, and the sweep that finishes
// them; and the frame a built expression keeps.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/expr/entry/scalar_sweep.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/vector.hpp"
#include "zerograd/expr/reduce/map_reduce.hpp"
#include "zerograd/expr/reduce/reductions.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::expr {

namespace detail {

/// Argument I of f as a leaf of the call `owner`: a scalar leaf for a number, a vector leaf for a
/// range.
template <class F, std::size_t I, class A>
auto leaf_for(const A& a, frame<double>* owner) {
    if constexpr (zg::detail::scalar_argument<A>)
        return expression<leaf_expr<I, double, std::remove_cvref_t<F>>>{{static_cast<double>(a)},
                                                                          owner};
    else
        return expression<vector_leaf_expr<I, double, std::remove_cvref_t<F>>>{
            {zg::detail::vector_span(a)}, owner};
}

/// Argument I's gradient, zero: a double for a number, a vector of its length for a range.
template <class A>
auto zero_gradient_for(const A& a) {
    if constexpr (zg::detail::scalar_argument<A>)
        return 0.0;
    else
        return std::vector<double>(zg::detail::vector_span(a).size(), 0.0);
}

/// After the sweep: each claimed gradient scaled by its claimant's adjoint (zero if the claimant
/// was not reached), plus what other nodes wrote meanwhile.
inline void finish_claims(std::span<argument_state<double>> arguments) {
    for (argument_state<double>& a : arguments) {
        if (!a.claimed) continue;
        double* data = a.gradient;
        if (a.scale == 0)
            std::fill_n(data, a.length, 0.0);
        else if (a.strong)
            for (std::size_t k = 0; k < a.length; ++k)
                data[k] = zg::detail::chain(a.scale, data[k]);
        else if (a.scale != 1)
            for (std::size_t k = 0; k < a.length; ++k)
                data[k] *= a.scale;
        if (a.shared)
            for (std::size_t k = 0; k < a.length; ++k)
                data[k] += a.deferred[k];
    }
}

/// value_and_grad with at least one vector argument: the gradient is a std::tuple.
template <class F, class... Args>
auto sweep_mixed(F& f, const Args&... args) {
    constexpr std::size_t N = sizeof...(Args);
    gradient_t<Args...> gradient{zero_gradient_for(args)...};
    std::array<argument_state<double>, N> arguments{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
                if constexpr (!zg::detail::scalar_argument<Args>) {
                    arguments[I].length = std::get<I>(gradient).size();
                    arguments[I].gradient = std::get<I>(gradient).data();
                }
            }(),
            ...);
    }
    (std::index_sequence_for<Args...>{});
    alignas(16) std::byte stack[stack_frame_bytes];
    frame<double> call(arguments, stack, id_of<F>);
    const frame_scope<double> scope(call);
    const auto y = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return f_returns_one_type_so_pick_with_zg_select(
            f, leaf_for<F, I>(args, &call)...);
    }
    (std::index_sequence_for<Args...>{});
    using result = std::remove_cvref_t<decltype(y)>;
    check_result<scalar_call::value_and_grad, result>();
    check_call<F, result>();
    check_not_abandoned(call, "grad");
    // The result's tree writes into the gradients of the vectors it reads directly (v[i]).
    if constexpr (Expression<result>) call.touch(leaves_of<tree_of<result>>.vectors);
    // Where the sweep writes: a claimed gradient that others write into too is written into
    // only by its claimant's partials, the others into `deferred`.
    std::array<double, N> scalars{};
    std::array<double*, N> vectors{};
    for (std::size_t i = 0; i < N; ++i) {
        argument_state<double>& a = arguments[i];
        if (a.claimed && a.shared) a.deferred = call.template zeroed<double>(a.length);
        vectors[i] = a.claimed ? a.deferred : a.gradient;
    }
    sweep_context<double> context{scalars.data(), vectors.data(), nullptr};
    double value = 0;
    if constexpr (scalar_result<result>) value = value_and_sweep(y, call, context);
    finish_claims(arguments);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
                if constexpr (zg::detail::scalar_argument<Args>) std::get<I>(gradient) = scalars[I];
            }(),
            ...);
    }
    (std::index_sequence_for<Args...>{});
    return value_and_grad_result<gradient_t<Args...>>{value, std::move(gradient)};
}

/// The frame a built expression of F keeps, with its arguments' bookkeeping.
template <class F, std::size_t N>
struct built_frame {
    std::array<argument_state<double>, N> arguments{};
    frame<double> call{arguments, id_of<F>};
};
} // namespace detail

} // namespace zg::expr
