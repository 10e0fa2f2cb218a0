// zerograd/expr/reduce/mapped.hpp: a map-reduce built: a sum swept as it is built into an
// accumulator, or its elements kept to be swept when its adjoint arrives; the node that stands
// for it in the tree that uses it. (reduce/map_reduce.hpp says which runs where.)
// The element function's evaluation and sweep are ZG_INLINE into the loop (see tree/sweep.hpp);
// the loop is a function of its own (noinline), whose running sums g++ keeps in registers.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp" // the rule of log_sum_exp at its edges
#include "zerograd/expr/memory/accumulate.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/ops/vector.hpp"
#include "zerograd/expr/reduce/elements.hpp"
#include "zerograd/expr/reduce/hoist.hpp"
#include "zerograd/expr/reduce/lanes.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::expr {

namespace detail {

/// The elements of a map-reduce kept to be swept when its adjoint arrives: their trees and
/// values, the parts hoisted out of them (see hoist.hpp), and for a log-sum-exp its terms
/// exp(v_k - largest) and their total. Its sweep is inlined into the sweep of the tree that uses
/// it: a sum inside an element function is a loop inside the enclosing element's sweep, as a
/// hand-written adjoint nests its loops. The kind is in the type so that each level of nesting
/// compiles one sweep of the levels inside it, not one per kind.
template <class T, class E0, reduction_kind Kind>
struct kept_elements {
    using parts_type = hoisted_parts<T, E0>;
    using tree = typename parts_type::tree; // an element's tree, hoisted parts replaced
    struct element {
        tree tree_of;
        values_of<tree> values;
    };
    [[no_unique_address]] parts_type parts;
    std::size_t count = 0;
    element* elements = nullptr;
    T* terms = nullptr; // a log-sum-exp's exp(v_k - largest)
    T total{};          // ... and their sum

    /// One instantiation of the elements' sweep for a sum and a log-sum-exp alike: each level of
    /// nesting would otherwise compile the levels inside it twice.
    template <bool Strong, class Sink>
    ZG_INLINE void sweep(const T& incoming, Sink& sink) const {
        if constexpr (Kind == reduction_kind::sum) {
            sweep_elements<Strong>(sink, [&](std::size_t) { return incoming; });
        } else {
            const T scale = incoming / total;
            sweep_elements<Strong>(sink, [&](std::size_t k) {
                if constexpr (Strong)
                    return zg::detail::chain(incoming, terms[k] / total);
                else
                    return scale * terms[k];
            });
        }
    }

    /// Element k with adjoint_of(k), then the hoisted parts.
    template <bool Strong, class Sink, class AdjointOf>
    ZG_INLINE void sweep_elements(Sink& sink, AdjointOf adjoint_of) const {
        loop_sink<T, leaves_of<tree>.scalars, 0, parts_type::count, Sink> loop(sink);
        for (std::size_t k = 0; k < count; ++k) {
            // A term of a log-sum-exp with weight 0 (-inf, a masked row) passes nothing, even
            // through an infinite partial: as the tape's sweep skips a zero adjoint. Unless
            // Strong, the adjoints are finite, and an element's own value needs no look (see
            // sweep_as_built).
            const T element_adjoint = adjoint_of(k);
            if (!zg::detail::is_zero(element_adjoint)) [[likely]]
                sweep_checked<Strong, true>(elements[k].tree_of, elements[k].values.data(),
                                            element_adjoint, loop);
        }
        loop.finish();
        parts.sweep(loop.hoisted_totals, sink);
    }
};

/// A map-reduce outside element functions that keeps its elements (a log-sum-exp): a record of
/// the frame, whose uses gather its adjoint and which is swept once, after all of them, with the
/// nodes its elements made.
template <class T, class E0, reduction_kind Kind>
struct mapped_record : shared_base<T> {
    static constexpr std::string_view name = "map-reduce";
    kept_elements<T, E0, Kind> kept;
    shared_base<T>* scope_last = nullptr;
    shared_base<T>* scope_stop = nullptr;

    /// Its sweep, with the adjoint its uses gathered. The frame's list passes over the nodes its
    /// elements made (see map_reduce), so it sweeps them itself, whatever its own adjoint: a
    /// named intermediate first used inside its function may have later uses too.
    static void sweep_node(shared_base<T>& base, sweep_context<T>& context) {
        auto& self = static_cast<mapped_record&>(base);
        const T adjoint = std::exchange(self.adjoint, T(0));
        if (!zg::detail::is_zero(adjoint)) {
            if (zg::detail::is_finite(adjoint))
                self.kept.template sweep<false>(adjoint, context);
            else
                self.kept.template sweep<true>(adjoint, context);
        }
        if (self.scope_last != self.scope_stop)
            sweep_list(self.scope_last, self.scope_stop, context);
    }
};

/// How many elements a sum swept as it is built takes between looks at its frame when its
/// element function makes nothing beside the tree (see for_each_tidily).
inline constexpr std::size_t batch = 256;

/// The elements of a sum swept as it is built from `from` on, each with strong zeros, and the
/// end of its sweep; its value. The loop below goes on here from two elements with an infinity
/// absorbed inside (see absorbs_nothing). Apart and cold; the running sums come in by value, so
/// that the loop's stay in registers.
template <class T, class Elements, class Fn, class Parts, class Loop, class Tidy, class Made>
[[gnu::cold, gnu::noinline]] T sweep_rest_strongly(frame<T>& f, const Elements& elements, Fn& fn,
                                                   sweep_context<T>& context, std::size_t from,
                                                   Parts parts, T value, Loop loop, Tidy tidy,
                                                   Made made) {
    elements.for_each_tidily(
        f, batch,
        [&](auto&& x, std::size_t k) {
            const auto& result = call_element(fn, std::forward<decltype(x)>(x), k);
            const auto e = parts.template element<false>(tree_in<T>(result));
            const auto values = evaluated(e);
            value += value_at(e, values.data());
            sweep_tree<true>(e, values.data(), T(1), loop);
            return true;
        },
        nullptr, tidy, made, from);
    loop.finish();
    parts.sweep(loop.hoisted_totals, context);
    return value;
}

/// The loop of a sum swept as it is built: each element's tree evaluated and swept with adjoint
/// 1 into the accumulator. In a function of its own, whose running sums are locals that g++
/// keeps in registers, and which alone calls fn (but where sweep_rest_strongly may), so that
/// g++ inlines fn into it. An element with an infinity absorbed inside (1 / (1 + exp(v_k)) at
/// v_k = 800, see absorbs_nothing) is swept strongly; two elements swept as a pair have no
/// strong sweep, and such a pair ends the loop, sweep_rest_strongly going on from there. An
/// element's own value needs no look where the result is finite: an infinite or NaN one makes
/// the sum so, and the result too, or an operation above takes the sum to a finite value with
/// a zero partial, and the sum passes nothing (see finish_claims).
template <class T, class E0, class Elements, class Fn>
[[gnu::noinline]] T sweep_as_built(frame<T>& f, const Elements& elements, Fn& fn,
                                   sweep_context<T>& context) {
    hoisted_parts<T, E0> parts;
    using tree = typename hoisted_parts<T, E0>::tree;
    constexpr std::uint64_t leaves = leaves_of<tree>.scalars;
    constexpr std::size_t hoisted = hoisted_parts<T, E0>::count;
    loop_sink<T, leaves, 0, hoisted, sweep_context<T>> loop(context);
    const auto mark = f.scoped_position();
    T value(0);
    // Two elements at a time as one tree of pairs, where it has one
    // (zerograd/expr/reduce/lanes.hpp).
    [[maybe_unused]] loop_sink<double_pair, leaves, 0, hoisted, sweep_context<T>> lanes(context);
    [[maybe_unused]] double_pair lanes_value(0.0);
    const auto two = [&] {
        if constexpr (pairable<tree>)
            return [&](auto&& x0, std::size_t k0, auto&& x1, std::size_t k1) ZG_INLINE_LAMBDA {
                // Never the first element: the hoisted parts are evaluated by then.
                const auto& result0 = call_element(fn, std::forward<decltype(x0)>(x0), k0);
                const auto& result1 = call_element(fn, std::forward<decltype(x1)>(x1), k1);
                const auto e =
                    paired<tree>::zip(parts.template element<false>(tree_in<T>(result0)),
                                      parts.template element<false>(tree_in<T>(result1)));
                const auto values = evaluated(e);
                if constexpr (may_absorb<tree>)
                    if (!absorbs_nothing(e, values.data())) [[unlikely]]
                        return false;
                lanes_value += value_at(e, values.data());
                sweep_tree(e, values.data(), double_pair(1.0), lanes);
                return true;
            };
        else
            return nullptr;
    }();
    // The nodes the elements made beside their trees (each used by its own element's tree
    // only, so after all of them), and their memory back.
    const auto tidy = [&f, &context, mark] {
        if (f.scoped_last() != mark.last) sweep_list(f.scoped_last(), mark.last, context);
        f.rewind(mark);
    };
    const auto made = [&f, mark] { return f.scoped_changed(mark); };
    [[maybe_unused]] const std::size_t stop = elements.for_each_tidily(
        f, batch,
        [&](auto&& x, std::size_t k) ZG_INLINE_LAMBDA {
            const auto& result = call_element(fn, std::forward<decltype(x)>(x), k);
            const auto& built = tree_in<T>(result);
            decltype(auto) e = parts.element(k, built);
            const auto values = evaluated(e);
            value += value_at(e, values.data());
            if constexpr (may_absorb<tree>) {
                if (absorbs_nothing(e, values.data())) [[likely]]
                    sweep_tree(e, values.data(), T(1), loop);
                else // (inlined: a call here would take the loop's sums out of their registers)
                    sweep_tree<true>(e, values.data(), T(1), loop);
            } else {
                sweep_tree(e, values.data(), T(1), loop);
            }
            return true;
        },
        two, tidy, made);
    if constexpr (pairable<tree>) {
        value += lanes_value.sum();
        for (std::size_t i = 0; i < loop.totals.size(); ++i)
            loop.totals[i] += lanes.totals[i].sum();
        for (std::size_t j = 0; j < hoisted; ++j)
            loop.hoisted_totals[j] += lanes.hoisted_totals[j].sum();
    }
    if constexpr (pairable<tree> && may_absorb<tree>)
        if (stop < elements.size()) [[unlikely]]
            return sweep_rest_strongly(f, elements, fn, context, stop, parts, value, loop, tidy,
                                       made);
    loop.finish();
    parts.sweep(loop.hoisted_totals, context);
    return value;
}

} // namespace detail

/// A map-reduce in the tree that uses it, one of: a sum outside element functions, swept as it
/// was built, whose sweep scales what its accumulator kept (`swept`); a record of the frame that
/// kept its elements (`record`: outside element functions, a log-sum-exp); or, inside an element
/// function, its kept elements themselves (`kept`), swept where the tree that uses it is, as one
/// more loop. One type for all, as a call site may run at either depth. A use of it inside a
/// deeper element function (a sum used by every element of a sum beside it) is a record instead,
/// so that its elements are swept once, not once per element (see detail::operand).
template <class T, class F, class Kept>
struct mapped_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::reduction;
    static constexpr std::string_view name = "map-reduce";
    static constexpr bool handle = true; // copied into its uses (see detail::operand)
    static constexpr leaf_set leaves{}; // what it reaches it notes when it is built
    T value;
    const detail::accumulator<T>* swept;
    shared_base<T>* record;
    const Kept* kept;

    template <bool Strong, class Sink>
    ZG_INLINE constexpr void backward(const T& adjoint, Sink& sink) const {
        if (kept != nullptr)
            kept->template sweep<Strong>(adjoint, sink);
        else if (swept != nullptr)
            swept->template pass<Strong>(adjoint, sink);
        else if (record != nullptr) // (none: a value alone, see map_reduce_value)
            sink.shared(*record, adjoint);
    }
};

template <class Node>
inline constexpr bool is_mapped = false;
template <class T, class F, class Kept>
inline constexpr bool is_mapped<mapped_expr<T, F, Kept>> = true;

namespace detail {

/// A sum outside element functions, swept as it is built into an accumulator: its value and
/// the accumulator, whose sweep scales what it kept. Apart from map_reduce, which then holds
/// little more than the loop of a sum that keeps its elements.
template <class T, class E0, class Elements, class Fn>
[[gnu::noinline]] std::pair<T, const accumulator<T>*> sum_as_built(frame<T>& f,
                                                                   const Elements& elements,
                                                                   Fn& fn) {
    auto* swept =
        ::new (f.template scratch<accumulator<T>>(1)) accumulator<T>(f, leaves_of<E0>.vectors);
    sweep_context<T> context = swept->context();
    const T value = f.guarded([&] {
        typename frame<T>::element_scope scope(f, swept);
        return sweep_as_built<T, E0>(f, elements, fn, context);
    });
    swept->collect();
    return {value, swept};
}

/// Builds the map-reduce of fn over the elements: see the comment at the top.
template <reduction_kind Kind, class T, class Elements, class Fn>
auto map_reduce(frame<T>& f, const Elements& elements, Fn& fn) {
    using argument = typename Elements::argument;
    using E0 = decltype(tree_from<T>(call_element(fn, std::declval<argument>(), std::size_t{})));
    using kept_type = kept_elements<T, E0, Kind>;
    using record_type = mapped_record<T, E0, Kind>;
    using tree = typename kept_type::tree;
    using node = mapped_expr<T, call_of<E0>, kept_type>;
    const std::size_t n = elements.size();
    if (n == 0) {
        shared_base<T>* empty = empty_reduction<T>(Kind == reduction_kind::log_sum_exp);
        return make(node{empty->value, nullptr, empty, nullptr}, &f);
    }
    if (Kind == reduction_kind::sum && f.depth() == 0) {
        const auto [value, swept] = sum_as_built<T, E0>(f, elements, fn);
        return make(node{value, swept, nullptr, nullptr}, &f);
    }
    // Kept: each element's tree and values, swept when the adjoint arrives. Outside element
    // functions in a record of the frame; inside one, where the enclosing element's scope keeps
    // what its elements made, and sweeps it after the element's tree, with this map-reduce in it.
    const bool outside = f.depth() == 0;
    record_type* record = outside ? ::new (f.template place<record_type>()) record_type : nullptr;
    kept_type* kept = outside ? &record->kept : ::new (f.template scratch<kept_type>(1)) kept_type;
    kept->count = n;
    auto* elements_kept = kept->elements = f.template scratch<typename kept_type::element>(n);
    if (outside) record->scope_stop = f.scoped_last();
    T value(0);
    f.guarded([&] {
        typename frame<T>::element_scope scope(f, nullptr);
        elements.for_each(f, [&](auto&& x, std::size_t k) {
            const auto& result = call_element(fn, std::forward<decltype(x)>(x), k);
            ::new (&elements_kept[k].tree_of) tree(kept->parts.element(k, tree_in<T>(result)));
            elements_kept[k].values = evaluated(elements_kept[k].tree_of);
            value += value_at(elements_kept[k].tree_of, elements_kept[k].values.data());
        });
    });
    f.touch(leaves_of<tree>.vectors);
    if constexpr (Kind == reduction_kind::log_sum_exp) {
        const auto term = [&](std::size_t k) {
            return value_at(elements_kept[k].tree_of, elements_kept[k].values.data());
        };
        kept->terms = f.template scratch<T>(n);
        value = reduction_rules::log_sum_exp_terms(n, term, kept->terms, 1, kept->total);
    }
    if (!outside) return make(node{value, nullptr, nullptr, kept}, &f);
    record->scope_last = f.scoped_last();
    record->value = value;
    f.keep(record);
    return make(node{value, nullptr, record, nullptr}, &f);
}

/// The tree fn gives for the elements of Range, in a frame of scalar T.
template <class T, class Range, class Fn>
using element_tree_of = decltype(tree_from<T>(
    call_element(std::declval<Fn&>(), std::declval<typename element_argument<Range>::type>(),
                 std::size_t{})));

/// A map-reduce over data or an index range where the call its elements belong to keeps no
/// frame, or keeps one that is not the current one: in a call whose result does not use it (see
/// frameless in grad.hpp), or in a call inside another whose f reduces the outer call's leaves
/// alone (constants there). Its value is read (a comparison), never swept: it is built in a frame
/// of its own that keeps its elements and sweeps nothing, and its value alone is kept. (Through
/// map_reduce, as every map-reduce: a second place that calls fn would keep g++ from inlining
/// fn into the loops, which it does for a function called from one place.)
template <reduction_kind Kind, class T, class Elements, class Fn>
[[gnu::cold, gnu::noinline]] auto map_reduce_value(const Elements& elements, Fn& fn) {
    std::array<argument_state<T>, 64> arguments{}; // any vector argument's bit, none swept
    frame<T> scratch(arguments, nullptr);
    typename frame<T>::element_scope scope(scratch, nullptr); // inside: keeps, sweeps nothing
    const auto kept = map_reduce<Kind>(scratch, elements, fn);
    return expression<typename decltype(kept)::tree_type>{
        {kept.tree.value, nullptr, nullptr, nullptr}};
}

template <reduction_kind Kind, class Range, class Fn>
auto map_reduce_verb(const Range& range, Fn& fn, std::string_view call) {
    using T = map_scalar<Range, Fn>;
    if constexpr (vector_expression<Range>) {
        return map_reduce<Kind>(map_frame<T>(range.owner, call), elements_of<Range>{range}, fn);
    } else {
        // The current frame, where it is the call of fn's leaves.
        using F = call_of<element_tree_of<T, Range, Fn>>;
        frame<T>* f = current_frame<T>;
        if (f == nullptr || (!std::is_same_v<F, no_call> && f->call() != id_of<F>))
            return map_reduce_value<Kind, T>(elements_of<Range>{range}, fn);
        return map_reduce<Kind>(*f, elements_of<Range>{range}, fn);
    }
}

} // namespace detail

} // namespace zg::expr
