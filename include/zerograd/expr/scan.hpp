// zerograd/expr/scan.hpp: zg::scan, a recurrence over a vector in expression mode: the states
// s_0 = first(v_0), s_t = step(s_{t-1}, v_t) as a vector expression, swept backwards in one pass.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/sweep.hpp"
#include "zerograd/expr/vector.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace zg::expr {

namespace detail {

/// Where the local sweep of one step puts the adjoints of the leaves it captured: leaf I into
/// row[I]. A step reaches no vector leaf (zg::scan checks), so there is no add_element.
template <class T>
struct step_target {
    T* row;
    template <std::size_t I>
    ZG_INLINE constexpr void add_leaf(const T& adjoint) {
        row[I] += adjoint;
    }
};

/// A step's input: a number whose adjoint, during the step's local sweep, lands in *partial.
template <class T>
ZG_INLINE constexpr expression<slot_expr<T>> step_input(const T& value, T* partial) {
    return {slot_expr<T>(value, partial), {}};
}

} // namespace detail

/// The states of a recurrence over v: s_0 = first(v_0) and s_t = step(s_{t-1}, v_t).
///
/// first and step may capture the lambda's leaves by reference, and those die when the lambda
/// returns, so they cannot be called again during the sweep. The node therefore evaluates the
/// recurrence as it is built and keeps, per step, the local partials by the previous state, by
/// v_t and by each captured leaf (in the call's scratch arena). Uses of the states gather their
/// adjoints per element; propagate then walks the recurrence backwards once, carrying the
/// adjoint of s_{t-1} in a register, as a hand-written adjoint of the loop would.
///
/// The recurrence itself (v and the arrays) lives in the arena too, and every use of the states
/// holds a pointer to it and to the states it shows: a tree copies its nodes at every level it
/// grows by, and sum(h + y2 * exp(-h)) holds the states twice.
template <class T, detail::leaf_set StepLeaves, class V>
struct scan_expr {
    static_assert(std::is_same_v<T, double>, "zg::scan: supported for double scalars only");
    static constexpr std::size_t slots = 0; // uses gather per element, in `adjoints`
    static constexpr std::size_t arguments = std::bit_width(StepLeaves.scalars);
    static constexpr std::size_t row_width = 2 + arguments; // by s_{t-1}, by v_t, by each leaf
    static constexpr std::string_view name = "scan";
    using value_type = T;
    struct recurrence {
        V v;
        std::size_t length; // of the whole recurrence
        T* states;
        T* adjoints; // gathered from the uses of each state, consumed by propagate
        T* partials; // row_width per step
    };
    const recurrence* kept = nullptr;
    // The elements this node shows (zg::slice narrows them), read through pointers of their own:
    // through `kept`, each element's read would load them again after the sweep's stores.
    const T* shown_states = nullptr;
    T* shown_adjoints = nullptr;
    std::size_t count = 0;

    template <class First, class Step>
    scan_expr(const V& v, First& first, Step& step) : count(v.size()) {
        using namespace detail;
        if (current_call == nullptr) throw_outside_grad(name);
        const std::size_t length = v.size();
        T* const states = current_call->allocate(length, /*zeroed=*/false); // each written below
        // Each row is zeroed just before its step fills it, while its cache line is being
        // written anyway: zeroing them all first was a pass of its own over 8 * row_width bytes
        // a step.
        T* const partials = current_call->allocate(length * row_width, /*zeroed=*/false);
        kept = current_call->make<recurrence>(v, length, states, current_call->allocate(length),
                                              partials);
        shown_states = kept->states;
        shown_adjoints = kept->adjoints;
        std::array<T, V::slots> unused_slots{}; // elements are only read here, not swept
        // The state is carried in a local: read back from `states`, after the stores into the
        // row (which may alias it), it would put a store and a load on the recurrence's chain.
        T state(0);
        for (std::size_t t = 0; t < length; ++t) {
            const T x = v.element(t, unused_slots.data()).value;
            T* row = partials + t * row_width;
            std::fill_n(row, row_width, T(0));
            if (t == 0)
                state = local_sweep(first(step_input(x, row + 1)), row);
            else
                state = local_sweep(step(step_input(state, row), step_input(x, row + 1)), row);
            states[t] = state;
        }
    }

    /// The value of a step's result; its local partials go into row.
    template <class R>
    static T local_sweep(const R& y, T* row) {
        if constexpr (Expression<R>) {
            detail::step_target<T> target{row + 2};
            sweep_into(y, target);
            return y.value();
        } else {
            return T(y); // a step that ignores its inputs
        }
    }

    constexpr std::size_t size() const { return count; }
    ZG_INLINE constexpr gathered_expr<T> element(std::size_t k, T*) const {
        return {shown_states[k], shown_adjoints + k};
    }
    constexpr scan_expr sliced(std::size_t offset, std::size_t n) const {
        scan_expr narrowed = *this;
        narrowed.shown_states += offset;
        narrowed.shown_adjoints += offset;
        narrowed.count = n;
        return narrowed;
    }

    /// The reverse of the recurrence: a_t = (gathered at t) + a_{t+1} * ds_{t+1}/ds_t, then
    /// v_t receives a_t * ds_t/dv_t through v's own elements, and each captured leaf the sum
    /// of a_t times its partial.
    template <class Bindings, class Sink>
    constexpr void propagate(T*, Sink& sink) const {
        // Each copy of the node in the tree propagates, and the first consumes what every use
        // gathered by then: in sum(h + y2 * exp(-h)) one sweep gathers both uses of each state
        // at once, so the second copy would walk the recurrence with adjoints all zero.
        const auto& [v, length, states, adjoints, partials] = *kept;
        if (all_zero(adjoints, length)) return;
        // Two steps an iteration, each with its own sums (v's slots, the leaves' totals): one
        // step at a time, the adjoint's chain a_t = g_t + a_{t+1} * ds_{t+1}/ds_t (a product and
        // a sum) and the sums' chains of additions bound the loop by their latency.
        std::array<T, V::slots> v_slots{}, v_slots_odd{};
        std::array<T, arguments> totals{}, totals_odd{};
        const auto sweep_step = [&](std::size_t t, const T& a, T* slots, T* step_totals) {
            const T* row = partials + t * row_width;
            for (std::size_t i = 0; i < arguments; ++i) step_totals[i] += a * row[2 + i];
            detail::backward<Bindings>(v.element(t, slots), a * row[1], sink);
        };
        T carry(0); // a_{t+1} * ds_{t+1}/ds_t
        std::size_t t = length;
        if (t % 2 == 1) {
            --t;
            const T a = adjoints[t];
            adjoints[t] = T(0); // consumed: a second use of this node sweeps only what is new
            carry = a * partials[t * row_width];
            sweep_step(t, a, v_slots.data(), totals.data());
        }
        for (; t >= 2; t -= 2) {
            const T later_partial = partials[(t - 1) * row_width];
            const T earlier_partial = partials[(t - 2) * row_width];
            const T later_gathered = adjoints[t - 1];
            const T earlier_own = adjoints[t - 2] + later_gathered * later_partial;
            adjoints[t - 1] = adjoints[t - 2] = T(0);
            const T later = later_gathered + carry;
            const T earlier = earlier_own + carry * later_partial;
            carry = earlier_own * earlier_partial + carry * (later_partial * earlier_partial);
            sweep_step(t - 1, later, v_slots.data(), totals.data());
            sweep_step(t - 2, earlier, v_slots_odd.data(), totals_odd.data());
        }
        for (std::size_t i = 0; i < V::slots; ++i) v_slots[i] += v_slots_odd[i];
        for (std::size_t i = 0; i < arguments; ++i) totals[i] += totals_odd[i];
        v.template propagate<Bindings>(v_slots.data(), sink);
        // Only scalar leaves: argument I may be a vector that a step cannot capture.
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (add_if_scalar<I>(totals[I], sink), ...);
        }(std::make_index_sequence<arguments>{});
    }

    /// Whether every value is +0 or -0: the bits of a block ORed together, which vectorizes
    /// (a test and branch per element, as std::all_of does, made the look a fifth of the sweep).
    static bool all_zero(const T* values, std::size_t n) {
        constexpr std::size_t block = 16;
        std::size_t k = 0;
        for (; k < n; k += block) {
            std::uint64_t bits = 0;
            for (std::size_t j = k; j < std::min(n, k + block); ++j)
                bits |= std::bit_cast<std::uint64_t>(values[j]);
            if (bits << 1 != 0) return false; // all but the sign
        }
        return true;
    }

    template <std::size_t I, class Sink>
    static constexpr void add_if_scalar(const T& total, Sink& sink) {
        if constexpr (StepLeaves.scalars >> I & 1) sink.target.template add_leaf<I>(total);
    }
};

namespace detail {
template <class T, leaf_set StepLeaves, class V>
struct leaves_of<scan_expr<T, StepLeaves, V>> {
    static constexpr leaf_set value = StepLeaves | leaves_of<V>::value;
};
template <class T, leaf_set StepLeaves, class V>
struct gathers_per_element<scan_expr<T, StepLeaves, V>> : std::true_type {};
} // namespace detail

/// The states of the recurrence s_0 = first(v_0), s_t = step(s_{t-1}, v_t), as a vector
/// expression. first and step are generic lambdas; they may capture the lambda's leaves by
/// reference. A range of doubles is a constant vector. The AR(1) part of a stochastic-volatility
/// model, h_t - mu = sigma z_t + phi (h_{t-1} - mu) with a stationary start:
///
///     auto d = zg::scan(sigma * z, [&](auto d0) { return d0 / sqrt(1 - square(phi)); },
///                       [&](auto previous, auto dt) { return dt + phi * previous; });
///     auto h = d + mu;
///
/// A scan's states are computed inside zg::grad (they live in its scratch arena): the lambda
/// must be called by zg::grad or zg::value_and_grad.
template <class V, class First, class Step>
    requires detail::vector_operand<V>
auto scan(const V& v, First first, Step step) {
    const auto vector = detail::as_vector(v);
    using tree = std::remove_cvref_t<decltype(vector.tree)>;
    using T = typename tree::value_type;
    using input = expression<slot_expr<T>>;
    using first_result = std::invoke_result_t<First&, const input&>;
    using step_result = std::invoke_result_t<Step&, const input&, const input&>;
    constexpr detail::leaf_set step_leaves =
        detail::leaves_of<first_result>::value | detail::leaves_of<step_result>::value;
    static_assert(step_leaves.vectors == 0,
                  "zg::scan(v, first, step): first and step work on numbers; pass a vector "
                  "argument in v, not inside the step");
    static_assert(!Expression<first_result> ||
                      !vector_node<typename first_result::tree_type>,
                  "zg::scan(v, first, step): first must return a scalar expression");
    static_assert(!Expression<step_result> || !vector_node<typename step_result::tree_type>,
                  "zg::scan(v, first, step): step must return a scalar expression");
    using node = scan_expr<T, step_leaves, tree>;
    return expression<node, decltype(vector.bindings)>{node(vector.tree, first, step),
                                                       vector.bindings};
}

/// The recurrence s_0 = v_0, s_t = step(s_{t-1}, v_t); see the three-argument scan.
template <class V, class Step>
    requires detail::vector_operand<V>
auto scan(const V& v, Step step) {
    return scan(v, [](const auto& v0) { return v0; }, step);
}

} // namespace zg::expr

namespace zg {
using expr::scan;
using expr::size;
} // namespace zg
