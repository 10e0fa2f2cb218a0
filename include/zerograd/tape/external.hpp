// zerograd/tape/external.hpp: zg::tape::external, a black box whose adjoint the user writes, and
// zg::tape::checkpoint, a function the tape keeps only the inputs and outputs of and records again
// in the sweep. Both are nodes whose adjoints a function passes on (basic_tape::record_external).
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/tape/reductions.hpp" // gather: the inputs' values and nodes, checked
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric> // std::iota
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::tape {

namespace detail {

/// The inputs of a black box: their tape (the calling thread's), values and nodes, copied out of
/// the scratch space gather fills, which the user's functions may use again.
template <class T>
struct black_box_inputs {
    basic_tape<T>* tape;
    std::vector<T> values;
    std::vector<typename basic_tape<T>::index_type> indices;
};

template <class R>
auto black_box_inputs_of(std::string_view operation, const R& inputs) {
    using T = typename zg::detail::element_t<R>::value_type;
    const gathered<T> in = gather(operation, inputs, 0);
    return black_box_inputs<T>{in.tape,
                               std::vector<T>(in.values.begin(), in.values.end()),
                               {in.indices.begin(), in.indices.end()}};
}

/// Records the outputs y and returns them as variables.
template <class T>
std::vector<basic_var<T>> record_black_box(black_box_inputs<T>& in, const std::vector<T>& y,
                                           typename basic_tape<T>::adjoint_pass pass) {
    const auto first = in.tape->record_external(in.indices, y, std::move(pass));
    std::vector<basic_var<T>> out;
    out.reserve(y.size());
    for (std::size_t k = 0; k < y.size(); ++k)
        out.push_back(var_access::at(*in.tape, first + typename basic_tape<T>::index_type(k)));
    return out;
}

} // namespace detail

/// A function of several variables that zerograd does not see into (a library call, a solver),
/// with the vector-Jacobian product the user writes: `value(x)` with x a
/// `std::span<const double>` of the inputs' values returns the outputs as a
/// `std::vector<double>`; `vjp(x, y, ybar, xbar)` (spans; xbar a `std::span<double>` of zeros)
/// adds J(x)^T ybar into xbar. value is called once, now; vjp once per sweep that reaches the
/// outputs. Returns the outputs as variables, recorded as one node each after the inputs. vjp is
/// kept by moving it: it may own what cannot be copied (a std::unique_ptr to a factorisation).
///
/// For zg::tape::hessian, write value and vjp generic (`std::span<const T>`): they are called
/// with dual numbers there. Errors: inputs of another thread's tape, of two tapes or reclaimed
/// throw as every operation's do, before value runs; an exception from value records nothing.
///
///     auto y = zg::tape::external(std::vector<zg::var>{a, b},
///         [](auto x) { return std::vector{x[0] * x[1]}; },
///         [](auto x, auto, auto ybar, auto xbar) { xbar[0] += x[1] * ybar[0];
///                                                  xbar[1] += x[0] * ybar[0]; });
template <class R, class Value, class VectorJacobianProductArgument>
requires var_range<R> std::vector<zg::detail::element_t<R>>
external(const R& inputs, Value value, VectorJacobianProductArgument&& vjp_argument) {
    using T = typename zg::detail::element_t<R>::value_type;
    using VectorJacobianProduct = std::decay_t<VectorJacobianProductArgument>;
    static_assert(std::is_constructible_v<VectorJacobianProduct, VectorJacobianProductArgument&&>,
                  "zg::tape::external: vjp cannot be copied and is kept: pass it as "
                  "std::move(vjp), or write the lambda in the call");
    static_assert(std::is_invocable_v<Value&, std::span<const T>>,
                  "zg::tape::external: value is called with the inputs' values as "
                  "std::span<const double> (of zg::dual under zg::tape::hessian and hvp: write it "
                  "generic) and returns the outputs' values as std::vector<double>");
    static_assert(std::is_invocable_v<VectorJacobianProduct&, std::span<const T>,
                                      std::span<const T>, std::span<const T>, std::span<T>>,
                  "zg::tape::external: vjp is called as vjp(x, y, ybar, xbar) with "
                  "std::span<const double> x, y and ybar and std::span<double> xbar (of zg::dual "
                  "under zg::tape::hessian and hvp: write it generic) and adds J(x)^T ybar into "
                  "xbar");
    if constexpr (std::is_invocable_v<Value&, std::span<const T>> &&
                  std::is_invocable_v<VectorJacobianProduct&, std::span<const T>,
                                      std::span<const T>, std::span<const T>, std::span<T>> &&
                  std::is_constructible_v<VectorJacobianProduct, VectorJacobianProductArgument&&>) {
        auto in = detail::black_box_inputs_of("tape::external", inputs);
        const auto produced = std::invoke(value, std::span<const T>(in.values));
        std::vector<T> y(std::ranges::begin(produced), std::ranges::end(produced));
        // The user's vjp adds into zeros; the sweep's xbar holds the adjoints so far.
        auto pass = [x = in.values, y,
                     vjp = VectorJacobianProduct(std::forward<VectorJacobianProductArgument>(
                         vjp_argument))](std::span<const T> ybar, std::span<T> xbar) mutable {
            std::vector<T> product(xbar.size(), T(0));
            std::invoke(vjp, std::span<const T>(x), std::span<const T>(y), ybar,
                        std::span<T>(product));
            for (std::size_t k = 0; k < xbar.size(); ++k)
                xbar[k] += product[k];
        };
        return detail::record_black_box(in, y, std::move(pass));
    } else {
        return {};
    }
}

/// f(inputs), recorded by its inputs and outputs alone: f runs now on the inputs' values
/// (`std::span<const double>` to `std::vector<double>`), and the sweep runs it again on
/// variables (`std::span<const zg::var>` to a range of them), records it afresh, sweeps that
/// recording and reclaims it. Write f generic. Checkpointing every k steps of a loop of T
/// steps keeps O(T/k + k) nodes at the peak instead of O(T), for one more run of the loop; the
/// gradient is the one without checkpoints, to the bit. Checkpoints may nest.
///
/// f must compute its outputs from its inputs: a variable it captures is a constant to it (its
/// gradient through f is lost). Errors: as zg::tape::external's; an exception from f in the
/// sweep propagates from backward(), the tape left as it was before the sweep's recording.
///
///     auto state = zg::tape::checkpoint([](auto s) { return std::vector{s[0] * 0.5}; },
///                                       std::vector<zg::var>{x});
template <class F, class R>
requires var_range<R> std::vector<zg::detail::element_t<R>> checkpoint(F f, const R& inputs) {
    using V = zg::detail::element_t<R>;
    using T = typename V::value_type;
    static_assert(std::is_invocable_v<F&, std::span<const T>> &&
                      std::is_invocable_v<F&, std::span<const V>>,
                  "zg::tape::checkpoint: f is called with std::span<const double> (the inputs' "
                  "values) and, in the sweep, with std::span<const zg::var>: write it generic, "
                  "returning a std::vector of what it was given");
    if constexpr (std::is_invocable_v<F&, std::span<const T>> &&
                  std::is_invocable_v<F&, std::span<const V>>) {
        auto in = detail::black_box_inputs_of("tape::checkpoint", inputs);
        const auto produced = std::invoke(f, std::span<const T>(in.values));
        std::vector<T> y(std::ranges::begin(produced), std::ranges::end(produced));
        using index_type = typename basic_tape<T>::index_type;
        // The sweep without the checkpoint would add into the adjoints of f's inputs in the order
        // its nodes were recorded, carrying in a register the shares of the node recorded just
        // before f's first node (reverse_sweep): here that input's copy is recorded last, next to
        // f's first node, and if no input is that node, a constant is, so that every addition is
        // the same to the bit.
        const index_type before = in.tape->size() - 1;
        std::vector<std::size_t> order(in.indices.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        const auto others = std::stable_partition(
            order.begin(), order.end(), [&](std::size_t k) { return in.indices[k] != before; });
        const bool spacer = others == order.end();
        auto pass = [tape = in.tape, x = in.values, order = std::move(order), spacer,
                     f = std::move(f)](std::span<const T> ybar, std::span<T> xbar) mutable {
            const basic_scope<T> recording(*tape);
            std::vector<index_type> nodes(x.size());
            for (const std::size_t k : order)
                nodes[k] = tape->record_leaf(x[k]);
            if (spacer) (void)tape->record_leaf(T(0));
            std::vector<V> leaves;
            leaves.reserve(x.size());
            for (const index_type node : nodes)
                leaves.push_back(detail::var_access::at(*tape, node));
            const auto outputs = std::invoke(f, std::span<const V>(leaves));
            // One node sum_k ybar_k y_k over the outputs recorded here, swept from.
            std::vector<typename basic_tape<T>::index_type> reached;
            std::vector<T> weights;
            std::size_t k = 0;
            for (const auto& produced_output : outputs) {
                const V output = produced_output; // a formula is recorded here
                if (&output.tape() == tape && output.index() >= recording.first()) {
                    reached.push_back(output.index());
                    weights.push_back(ybar[k]);
                }
                ++k;
            }
            if (reached.empty()) return;
            const auto root =
                tape->record_many(op_id::dot, T(0), reached.data(), weights.data(), reached.size());
            // The inputs' copies start from their adjoints so far: the sweep adds f's shares to
            // them one by one, as the sweep without the checkpoint adds them to the inputs'.
            for (std::size_t i = 0; i < x.size(); ++i)
                leaves[i].grad() = xbar[i];
            tape->backward(root, recording.first());
            for (std::size_t i = 0; i < x.size(); ++i)
                xbar[i] = leaves[i].grad();
        };
        return detail::record_black_box(in, y, std::move(pass));
    } else {
        return {};
    }
}

} // namespace zg::tape
