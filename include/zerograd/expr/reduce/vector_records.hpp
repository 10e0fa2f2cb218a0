// zerograd/expr/reduce/vector_records.hpp: what the reductions of vector expressions build: a
// sum's node, whose sweep walks the elements again, and the records of prod and log_sum_exp in
// the call's frame; and the loops over elements they share.
// The sweeps are ZG_INLINE, as all of expression mode's sweep (see tree/sweep.hpp); the loops
// that build a value are noinline where g++ otherwise kept their running total in memory.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/memory/accumulate.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/ops/vector.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace zg::expr {

namespace detail {

template <class V>
ZG_INLINE constexpr typename V::value_type element_value(const V& v, std::size_t k) {
    const auto e = v.template element<true, 0>(k);
    const auto values = evaluated(e);
    return value_at(e, values.data());
}

/// Sweeps every element of v with the adjoint `adjoint_of(k, element value)`, then each
/// broadcast operand once with what its elements gathered; returns the sum of the elements'
/// values. Reversed: last element first. Strong: the adjoints may be infinite (see backward).
/// Checked: an element whose value or adjoint is infinite or NaN is swept with strong zeros;
/// unchecked where the caller knows them all finite. Either way, so is one with an infinity
/// absorbed inside (see absorbs_nothing).
template <bool Strong, bool Reversed = false, bool Checked = true, class V, class Sink,
          class AdjointOf>
constexpr typename V::value_type sweep_elements(const V& v, Sink& sink, AdjointOf adjoint_of) {
    using T = typename V::value_type;
    loop_sink<T, leaves_of<V>.scalars, V::broadcasts, 0, Sink> loop(sink);
    const std::size_t n = v.size();
    T total(0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = Reversed ? n - 1 - i : i;
        const auto e = v.template element<true, 0>(k);
        const auto values = evaluated(e);
        const T& value = value_at(e, values.data());
        total += value;
        sweep_checked<Strong, !Checked>(e, values.data(), adjoint_of(k, value), loop);
    }
    loop.finish();
    v.template pass_broadcasts<0>(loop.broadcasts.data(), sink);
    return total;
}

/// begin_accumulating's record, where no other node writes into the vectors (apart: inside
/// element functions begin_accumulating returns at once, inlined, on every element).
template <class T>
[[gnu::noinline]] accumulator<T>* new_accumulator(frame<T>& f, std::uint64_t vectors) {
    if (!f.claimable(vectors)) return nullptr;
    return ::new (f.template scratch<accumulator<T>>(1)) accumulator<T>(f, vectors);
}
/// A reduction of v built outside element functions, whose gradients it may claim (or that
/// reaches no vector argument), sweeps its elements as it is built, with the local partials
/// `adjoint_of` gives (for adjoint 1), into an accumulator its own sweep scales: one pass over
/// the data, as a hand-written adjoint's loop, and data that dies with the lambda is read only
/// while it lives. Returns null where it may not; the reduction then sweeps its elements again
/// when its adjoint arrives.
template <class V, class T>
ZG_INLINE accumulator<T>* begin_accumulating(frame<T>& f) {
    if (f.depth() != 0) return nullptr;
    return new_accumulator(f, leaves_of<V>.vectors);
}

/// The frame a reduction of v belongs to: v's, or the call in progress. (Cold and out of line:
/// the error path.)
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_outside_a_call(std::string_view call) {
    throw error("zg::" + std::string(call) +
                ": vector expressions are differentiated inside zg::grad or "
                "zg::value_and_grad only");
}
template <class E>
ZG_INLINE frame<typename tree_of<E>::value_type>& frame_for(const E& v, std::string_view call) {
    using T = typename tree_of<E>::value_type;
    frame<T>* owner = v.owner != nullptr ? v.owner : current_frame<T>;
    if (owner == nullptr) [[unlikely]]
        throw_outside_a_call(call);
    return *owner;
}

/// The sum of v's elements; in a function of its own: inlined into a node's constructor, g++
/// keeps the running total in memory, which puts a store and a load on each addition's chain.
template <class V>
[[gnu::noinline]] constexpr typename V::value_type sum_of_elements(const V& v) {
    typename V::value_type total{0};
    for (std::size_t k = 0; k < v.size(); ++k)
        total += element_value(v, k);
    return total;
}

/// prefixes[k] = v_0 ... v_{k-1}; returns the product of all (as sum_of_elements, apart).
template <class V>
[[gnu::noinline]] typename V::value_type prefix_products(const V& v,
                                                         typename V::value_type* prefixes) {
    typename V::value_type product{1};
    for (std::size_t k = 0; k < v.size(); ++k) {
        prefixes[k] = product;
        product *= element_value(v, k);
    }
    return product;
}

/// log sum_k exp(v_k), its terms kept and their total (see reduction_rules::log_sum_exp_terms);
/// apart, as sum_of_elements.
template <class V>
[[gnu::noinline]] typename V::value_type log_sum_exp_terms(const V& v,
                                                           typename V::value_type* terms,
                                                           typename V::value_type& total) {
    return reduction_rules::log_sum_exp_terms(
        v.size(), [&](std::size_t k) { return element_value(v, k); }, terms, 1, total);
}

} // namespace detail

/// A reduction of a vector expression, kept in the frame: its uses gather its adjoint, and it
/// sweeps its elements once with their local partials (`sweep_partials` of the derived record),
/// or, if it swept them as it was built (see begin_accumulating), scales what it kept.
template <class Derived, class V>
struct vector_reduction : shared_base<typename V::value_type> {
    using value_type = typename V::value_type;
    V v;
    const detail::accumulator<value_type>* swept = nullptr;

    explicit vector_reduction(const V& vector) : v(vector) {}

    template <bool Strong>
    void sweep_with(const value_type& incoming, sweep_context<value_type>& context) const {
        if (swept != nullptr)
            swept->template pass<Strong>(incoming, context);
        else
            static_cast<const Derived&>(*this).template sweep_partials<Strong>(incoming, context);
    }

    /// Sweeps the partials now, for adjoint 1, if it may, and returns true with the sum of the
    /// elements' values in `total`. Otherwise the vector arguments its sweep writes into are
    /// noted.
    bool sweep_now(frame<value_type>& owner, value_type& total) {
        detail::accumulator<value_type>* accumulator = detail::begin_accumulating<V>(owner);
        if (accumulator == nullptr) {
            owner.touch(leaves_of<V>.vectors);
            return false;
        }
        auto context = accumulator->context();
        total = static_cast<const Derived&>(*this).template sweep_partials<false>(value_type(1),
                                                                                  context);
        accumulator->collect();
        swept = accumulator;
        return true;
    }
};

/// The product of a vector's elements. The partial by element k is the product of the elements
/// before it (kept while building) times those after it (gathered by a backward pass), exact
/// when elements are zero and without a division.
template <class V>
struct prod_record : vector_reduction<prod_record<V>, V> {
    static constexpr std::string_view name = "prod";
    using typename vector_reduction<prod_record<V>, V>::value_type;
    value_type* prefixes;

    prod_record(const V& vector, frame<value_type>& owner)
        : vector_reduction<prod_record, V>(vector),
          prefixes(owner.template scratch<value_type>(vector.size())) {
        this->value = detail::prefix_products(this->v, prefixes);
        value_type unused;
        this->sweep_now(owner, unused);
    }
    template <bool Strong, class Sink>
    value_type sweep_partials(const value_type& incoming, Sink& sink) const {
        value_type suffix(1);
        return detail::sweep_elements<Strong, true>(
            this->v, sink, [&](std::size_t k, const value_type& e) {
                const value_type partial = suffix * prefixes[k];
                suffix *= e;
                return detail::times<Strong>(incoming, partial);
            });
    }
};

/// log(sum(exp(v))), computed around the largest element so that nothing overflows. The
/// partials exp(v_k - largest) / total are the terms of the sum, kept from the build: they keep
/// their accuracy where exp(v_k - value) would lose the rounding of value (about 1e-13 for
/// elements near 1000), and the sweep computes no exponential.
template <class V>
struct log_sum_exp_record : vector_reduction<log_sum_exp_record<V>, V> {
    static constexpr std::string_view name = "log_sum_exp";
    using typename vector_reduction<log_sum_exp_record<V>, V>::value_type;
    value_type total{0};
    value_type* terms;

    log_sum_exp_record(const V& vector, frame<value_type>& owner)
        : vector_reduction<log_sum_exp_record, V>(vector),
          terms(owner.template scratch<value_type>(vector.size())) {
        this->value = detail::log_sum_exp_terms(this->v, terms, total);
        value_type unused;
        this->sweep_now(owner, unused);
    }
    template <bool Strong, class Sink>
    value_type sweep_partials(const value_type& incoming, Sink& sink) const {
        const value_type scale = incoming / total;
        return detail::sweep_elements<Strong>(this->v, sink, [&](std::size_t k, const value_type&) {
            if constexpr (Strong)
                return zg::detail::chain(incoming, terms[k] / total);
            else
                return scale * terms[k];
        });
    }
};

namespace detail {
/// The reduction of a vector expression as a node of its frame, used by a shared_expr.
template <template <class> class Record, class E>
auto reduce(const E& v, std::string_view call) {
    using tree = tree_of<E>;
    using T = typename tree::value_type;
    frame<T>& owner = frame_for(v, call);
    auto* record = ::new (owner.template place<Record<tree>>()) Record<tree>(v.tree, owner);
    owner.keep(record);
    return make(shared_expr<T, call_of<tree>>{record}, &owner);
}
} // namespace detail

/// zg::sum of a vector expression as a node of the tree that uses it. Outside element functions
/// it may claim the gradients of the vectors it reads (see begin_accumulating): then it sweeps
/// its elements as it is built, into an accumulator, and its own sweep scales what that kept.
/// Otherwise it holds the vector, and its sweep walks the elements, inlined into the tree's.
/// (One type for both, as a call site may run at either depth.)
template <class V>
struct summed_expr {
    using value_type = typename V::value_type;
    using call = call_of<V>;
    static constexpr node_kind kind = node_kind::reduction;
    static constexpr bool handle = false;
    static constexpr std::string_view name = "sum";
    // Its sweep adds into the scalar arguments directly; the vectors it notes when it is built.
    static constexpr leaf_set leaves{leaves_of<V>.scalars, 0};
    V v;
    value_type value;
    const detail::accumulator<value_type>* swept; // where it claimed, else null

    template <bool Strong, class Sink>
    ZG_INLINE constexpr void backward(const value_type& adjoint, Sink& sink) const {
        const auto same = [&](std::size_t, const value_type&) { return adjoint; };
        if (swept != nullptr)
            swept->template pass<Strong>(adjoint, sink);
        else if (zg::detail::is_finite(value) && zg::detail::is_finite(adjoint)) [[likely]]
            // A finite sum has no infinite or NaN element.
            detail::sweep_elements<Strong, false, false>(v, sink, same);
        else
            detail::sweep_elements<Strong>(v, sink, same);
    }
};

namespace detail {
/// The sum of v swept as it is built, into `into`, which then holds the partials (for adjoint 1).
/// Apart, so that its running sums stay in registers (as sweep_as_built's).
template <class V, class T>
[[gnu::noinline]] T accumulated_sum(const V& v, accumulator<T>& into) {
    auto context = into.context();
    const T total =
        sweep_elements<false>(v, context, [](std::size_t, const T&) { return T(1); });
    into.collect();
    return total;
}
} // namespace detail

} // namespace zg::expr
