// zerograd/tape/reductions.hpp: zg::sum, dot, prod and log_sum_exp over ranges of variables,
// each recorded as one node with a partial per element (core/reductions.hpp, reduction_rules)
// instead of one node per addition or multiplication.
#pragma once

#include "zerograd/core/reductions.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace zg {

namespace tape::detail {

template <class X>
struct is_var : std::false_type {};
template <class T>
struct is_var<basic_var<T>> : std::true_type {};

/// The values and node indices of a range of variables, which must share one tape, copied into
/// this thread's scratch space (kept, so nothing is allocated once warm). `slot` picks one of
/// two sets, for dot of two ranges of variables.
template <class T>
struct gathered {
    basic_tape<T>* tape = nullptr;
    std::span<const T> values;
    std::span<const typename basic_tape<T>::index_type> indices;
};

template <class T>
struct reduction_scratch {
    std::vector<T> values[2], partials[2];
    std::vector<typename basic_tape<T>::index_type> indices[2];
    // The terms of the sum(range, fn) calls in progress, one level per call: fn may call it too
    // (a deque, so that a deeper level does not move the buffers of those in progress).
    std::deque<std::vector<T>> term_values;
    std::deque<std::vector<typename basic_tape<T>::index_type>> term_indices;
    std::size_t term_depth = 0;
};

template <class T>
reduction_scratch<T>& scratch() {
    static thread_local reduction_scratch<T> kept;
    return kept;
}

// Cold: error paths, kept off the reductions' code.
[[noreturn, gnu::cold]] inline void throw_reduction_tapes(std::string_view operation) {
    throw error("zg::" + std::string(operation) + ": the variables are on different tapes");
}
template <class T>
[[noreturn, gnu::cold]] void throw_reduction_thread(std::string_view operation) {
    basic_tape<T>::throw_other_thread("zg::" + std::string(operation) + ": the variables are on");
}

template <class R>
auto gather(std::string_view operation, const R& range, int slot) {
    using T = typename zg::detail::element_t<R>::value_type;
    auto& kept = scratch<T>();
    std::vector<T>& values = kept.values[slot];
    auto& indices = kept.indices[slot];
    const std::size_t n = std::ranges::size(range);
    if (values.size() < n) values.resize(n);
    if (indices.size() < n) indices.resize(n);
    basic_tape<T>* tape = n == 0 ? &this_thread_tape<T>() : &std::ranges::begin(range)->tape();
    if (!tape->on_this_thread()) [[unlikely]]
        throw_reduction_thread<T>(operation);
    T* value_out = values.data();
    auto* index_out = indices.data();
    for (const basic_var<T>& x : range) {
        if (&x.tape() != tape) [[unlikely]] // x.tape() throws zg::dangling_var if reclaimed
            throw_reduction_tapes(operation);
        *value_out++ = tape->value(x.index());
        *index_out++ = x.index();
    }
    return gathered<T>{tape, std::span<const T>(values.data(), n),
                       std::span<const typename basic_tape<T>::index_type>(indices.data(), n)};
}

template <class T>
T* partials_for(std::size_t count, int slot) {
    std::vector<T>& partials = scratch<T>().partials[slot];
    if (partials.size() < count) partials.resize(count);
    return partials.data();
}

/// In checked builds, a reduction of finite elements whose value is not finite (an overflow)
/// throws zg::domain_error, as its elementary operations one by one would. An empty
/// log_sum_exp's -inf is its value, not an overflow.
template <class T>
void check_reduction(std::string_view operation, const T& y, std::span<const T> values) {
    if constexpr (config::checked) {
        if (std::isfinite(zg::detail::primal(y)) || values.empty()) return;
        for (const T& x : values)
            if (!std::isfinite(zg::detail::primal(x))) return;
        throw domain_error("zg::domain_error: " + std::string(operation) + " of " +
                           std::to_string(values.size()) + " finite elements gave " +
                           zg::detail::number_text(zg::detail::primal(y)));
    }
}

/// Records y = op(x_0, ..., x_{count-1}) (see basic_tape::record_many), once a checked build has
/// looked at y and the elements' values.
template <class T>
basic_var<T> record_node(op_id op, std::string_view operation, basic_tape<T>& tape, const T& y,
                         std::span<const T> values,
                         const typename basic_tape<T>::index_type* indices, const T* partials,
                         std::size_t count) {
    check_reduction(operation, y, values);
    return var_access::at(tape, tape.record_many(op, y, indices, partials, count));
}

/// Records a reduction over one range of variables by its rule.
template <class R, class Rule>
auto record_reduction(op_id op, std::string_view operation, const R& range, Rule rule) {
    using V = zg::detail::element_t<R>;
    using T = typename V::value_type;
    const gathered<T> x = gather(operation, range, 0);
    T* partials = partials_for<T>(x.values.size(), 0);
    const T y = rule(x.values, partials);
    return record_node(op, operation, *x.tape, y, x.values, x.indices.data(), partials,
                       x.values.size());
}

} // namespace tape::detail

// In namespace zg::tape, brought into zg below: next to core/reductions.hpp's templates of the
// same signature, differing only in their constraints, they would share one mangled name (g++ 12
// leaves constraints out), and a file instantiating both for one range type, say through
// zg::mean, did not assemble.
namespace tape {

/// A sized range of variables (a std::vector or std::span of zg::var).
template <class R>
concept var_range = zg::detail::scalar_range<R> && detail::is_var<zg::detail::element_t<R>>::value;

/// fn gives a variable (or a formula of them) for an element of the range.
template <class Fn, class R>
concept var_map = tape_scalar<decltype(zg::detail::call_map(
    std::declval<Fn&>(), *std::ranges::begin(std::declval<const R&>()), 0))>;

/// The sum of a range of variables, as one node (zero for an empty range).
template <class R>
    requires var_range<R>
auto sum(const R& range) {
    using T = typename zg::detail::element_t<R>::value_type;
    return detail::record_reduction(op_id::sum, "sum", range, reduction_rules::sum<T>);
}

/// sum_k fn(x_k) where fn gives variables (of an element, or of an element and its index k):
/// the terms are recorded as fn makes them, their sum as one node.
template <class R, class Fn>
    requires zg::detail::closed_map<Fn, R> && var_map<Fn, R>
auto sum(const R& range, Fn fn) {
    using T = typename std::remove_cvref_t<decltype(zg::detail::call_map(
        fn, *std::ranges::begin(range), 0))>::value_type;
    using V = basic_var<T>;
    auto& kept = detail::scratch<T>();
    struct level { // this call's buffers, released for reuse when it returns
        detail::reduction_scratch<T>& kept;
        explicit level(detail::reduction_scratch<T>& k) : kept(k) {
            if (kept.term_values.size() == kept.term_depth) {
                kept.term_values.emplace_back();
                kept.term_indices.emplace_back();
            }
            ++kept.term_depth;
        }
        ~level() { --kept.term_depth; }
    } scope(kept);
    std::vector<T>& values = kept.term_values[kept.term_depth - 1];
    auto& indices = kept.term_indices[kept.term_depth - 1];
    values.clear();
    indices.clear();
    tape::basic_tape<T>* tape = nullptr;
    std::size_t k = 0;
    for (const auto& x : range) {
        const V term = zg::detail::call_map(fn, x, k++);
        tape::basic_tape<T>& own = term.tape();
        if (tape == nullptr) {
            if (!own.on_this_thread()) [[unlikely]]
                detail::throw_reduction_thread<T>("sum");
            tape = &own;
        } else if (tape != &own) [[unlikely]] {
            detail::throw_reduction_tapes("sum");
        }
        values.push_back(own.value(term.index()));
        indices.push_back(term.index());
    }
    if (tape == nullptr) return V(T(0));
    T* partials = detail::partials_for<T>(values.size(), 0);
    const T y = reduction_rules::sum<T>(values, partials);
    return detail::record_node<T>(op_id::sum, "sum", *tape, y, values, indices.data(), partials,
                                  values.size());
}

/// The product of a range of variables, as one node (one for an empty range).
template <class R>
    requires var_range<R>
auto prod(const R& range) {
    using T = typename zg::detail::element_t<R>::value_type;
    return detail::record_reduction(op_id::prod, "prod", range, reduction_rules::prod<T>);
}

/// log(sum(exp(x))) of a range of variables, stable for large elements, as one node.
template <class R>
    requires var_range<R>
auto log_sum_exp(const R& range) {
    using T = typename zg::detail::element_t<R>::value_type;
    return detail::record_reduction(op_id::log_sum_exp, "log_sum_exp", range,
                                    reduction_rules::log_sum_exp<T>);
}

/// sum_k a_k b_k where either range (or both) holds variables, as one node.
template <class A, class B>
    requires zg::detail::scalar_range<A> && zg::detail::scalar_range<B> &&
             (var_range<A> || var_range<B>)
auto dot(const A& a, const B& b) {
    if (std::ranges::size(a) != std::ranges::size(b))
        throw shape_error("zg::dot: ranges of sizes " + std::to_string(std::ranges::size(a)) +
                          " and " + std::to_string(std::ranges::size(b)));
    if constexpr (var_range<A> && var_range<B>) {
        using V = zg::detail::element_t<A>;
        using T = typename V::value_type;
        static_assert(std::is_same_v<V, zg::detail::element_t<B>>,
                      "zg::dot: both ranges must hold variables of one scalar type");
        const auto x = detail::gather("dot", a, 0);
        const auto y = detail::gather("dot", b, 1);
        if (x.tape != y.tape && !x.values.empty()) detail::throw_reduction_tapes("dot");
        const std::size_t n = x.values.size();
        T* partials = detail::partials_for<T>(2 * n, 0);
        const T value = reduction_rules::dot<T>(x.values, y.values, partials, partials + n);
        auto& indices = detail::scratch<T>().indices[0];
        indices.resize(std::max(indices.size(), 2 * n));
        std::copy(y.indices.begin(), y.indices.end(), indices.begin() + std::ptrdiff_t(n));
        return detail::record_node<T>(op_id::dot, "dot", *x.tape, value, x.values, indices.data(),
                                      partials, 2 * n);
    } else {
        // One side of plain numbers: partial w_k by each variable x_k.
        const auto& vars = std::get<var_range<A> ? 0 : 1>(std::tie(a, b));
        const auto& weights = std::get<var_range<A> ? 1 : 0>(std::tie(a, b));
        using V = zg::detail::element_t<std::remove_cvref_t<decltype(vars)>>;
        using T = typename V::value_type;
        const auto x = detail::gather("dot", vars, 0);
        const std::size_t n = x.values.size();
        auto& w = detail::scratch<T>().values[1];
        w.assign(std::ranges::begin(weights), std::ranges::end(weights));
        T* partials = detail::partials_for<T>(2 * n, 0);
        // partials[k] = dy/dx_k = w_k; the products keep the caller's order, a_k * b_k.
        const T value = var_range<A> ? reduction_rules::dot<T>(x.values, w, partials, partials + n)
                                     : reduction_rules::dot<T>(w, x.values, partials + n, partials);
        return detail::record_node<T>(op_id::dot, "dot", *x.tape, value, x.values, x.indices.data(),
                                      partials, n);
    }
}

} // namespace tape

using tape::dot;
using tape::log_sum_exp;
using tape::prod;
using tape::sum;

} // namespace zg
