// zerograd/expr/ops/vector.hpp: vector expressions: vector arguments, ranges of data, and
// elementwise operations on them, evaluated element by element where a reduction or `v[i]`
// asks; slices.
// Element access is ZG_INLINE: a reduction's loop builds an element's tree each iteration, and
// must not pay a call for it.
#pragma once

#include "zerograd/core/arguments.hpp" // vector_argument: constant vectors
#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp" // zg::slice of ranges, and its error
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"

#include <algorithm>
#include <cstddef>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace zg::expr {

// ---- Vector nodes -------------------------------------------------------------------------------
// A vector node holds spans (of the call's arguments, or of data) and scalar operands it
// broadcasts. element<Loop, J>(k) builds element k's scalar tree. In a reduction's loop (Loop),
// a broadcast operand that is shared becomes broadcast_expr<J, T>, numbered from J, whose
// adjoint the loop gathers in a register; pass_broadcasts then hands each its total. Elsewhere
// (`v[i]`, the element a function is called on) it stays a shared_expr.

/// Vector argument I of the function F being differentiated.
template <std::size_t I, class T, class F>
struct vector_leaf_expr {
    using value_type = T;
    using call = F;
    static constexpr node_kind kind = node_kind::vector;
    static constexpr std::size_t broadcasts = 0;
    static constexpr leaf_set leaves{0, detail::argument_bit<I>()};
    std::span<const T> values;
    std::size_t offset = 0; // where `values` starts in the argument (a slice starts later)

    constexpr std::size_t size() const { return values.size(); }
    template <bool Loop, std::size_t J>
    ZG_INLINE constexpr element_expr<I, T, F> element(std::size_t k) const {
        return {values[k], offset + k};
    }
    template <std::size_t J, class Sink>
    constexpr void pass_broadcasts(const T*, Sink&) const {}
    constexpr vector_leaf_expr sliced(std::size_t from, std::size_t count) const {
        return {values.subspan(from, count), offset + from};
    }
};

/// A range of plain numbers the lambda holds (data): no gradient. Its elements are read where
/// the expression is evaluated, during the call and in its sweep: a view (std::span) is read in
/// place, a container is copied into the call's frame (see constant_vector).
template <class T>
struct vector_constant_expr {
    using value_type = T;
    static constexpr node_kind kind = node_kind::vector;
    static constexpr std::size_t broadcasts = 0;
    static constexpr leaf_set leaves{};
    std::span<const T> values;

    constexpr std::size_t size() const { return values.size(); }
    template <bool Loop, std::size_t J>
    ZG_INLINE constexpr constant_expr<T> element(std::size_t k) const {
        return {values[k]};
    }
    template <std::size_t J, class Sink>
    constexpr void pass_broadcasts(const T*, Sink&) const {}
    constexpr vector_constant_expr sliced(std::size_t from, std::size_t count) const {
        return {values.subspan(from, count)};
    }
};

namespace detail {

/// How many broadcast accumulators an operand of a vector node takes: a vector node its own, a
/// shared scalar one, a leaf or a constant none (it is copied into each element).
template <class Node>
constexpr std::size_t broadcasts_of() {
    if constexpr (vector_node<Node>)
        return Node::broadcasts;
    else if constexpr (is_shared<Node>)
        return 1;
    else
        return 0;
}

template <bool Loop, std::size_t J, class Node>
ZG_INLINE constexpr auto element_of(const Node& node, std::size_t k) {
    if constexpr (vector_node<Node>)
        return node.template element<Loop, J>(k);
    else if constexpr (Loop && broadcasts_of<Node>() == 1)
        return broadcast_expr<J, typename Node::value_type>{node.node->value};
    else
        return node;
}

/// An operand of an elementwise operation, sliced: a vector, or a broadcast scalar as it is.
template <class Node>
ZG_INLINE constexpr Node slice_operand(const Node& node, std::size_t from, std::size_t count) {
    if constexpr (vector_node<Node>)
        return node.sliced(from, count);
    else
        return node;
}

template <std::size_t J, class Node, class T, class Sink>
constexpr void pass_operand(const Node& node, const T* totals, Sink& sink) {
    if constexpr (vector_node<Node>)
        node.template pass_broadcasts<J>(totals, sink);
    else if constexpr (broadcasts_of<Node>() == 1)
        sink.shared(*node.node, totals[J]);
}

// Cold: an error path, kept off the elementwise loops.
[[noreturn, gnu::cold]] inline void throw_size_mismatch(std::string_view operation,
                                                        std::size_t left, std::size_t right) {
    const std::string_view also = operation == "*" ? " (or zg::dot)" : "";
    throw shape_error("zg::expr: elementwise " + std::string(operation) + std::string(also) +
                      " of vectors of sizes " + std::to_string(left) + " and " +
                      std::to_string(right));
}

} // namespace detail

/// op applied to each element of a vector.
template <class Op, class V>
struct vector_unary_expr {
    using value_type = typename V::value_type;
    using call = call_of<V>;
    static constexpr node_kind kind = node_kind::vector;
    static constexpr std::size_t broadcasts = V::broadcasts;
    static constexpr leaf_set leaves = leaves_of<V>;
    [[no_unique_address]] Op op;
    V v;

    constexpr vector_unary_expr(const Op& o, const V& vector) : op(o), v(vector) {}
    constexpr std::size_t size() const { return v.size(); }
    template <bool Loop, std::size_t J>
    ZG_INLINE constexpr auto element(std::size_t k) const {
        using inner = decltype(v.template element<Loop, J>(k));
        return unary_expr<Op, inner>{op, v.template element<Loop, J>(k)};
    }
    template <std::size_t J, class Sink>
    constexpr void pass_broadcasts(const value_type* totals, Sink& sink) const {
        v.template pass_broadcasts<J>(totals, sink);
    }
    constexpr vector_unary_expr sliced(std::size_t from, std::size_t count) const {
        return {op, v.sliced(from, count)};
    }
};

/// op applied elementwise to two vectors of one size, or to a vector and a broadcast scalar.
template <class Op, class L, class R>
struct vector_binary_expr {
    using value_type = typename L::value_type;
    using call = detail::joined_call<call_of<L>, call_of<R>>;
    static constexpr node_kind kind = node_kind::vector;
    static constexpr std::size_t broadcasts =
        detail::broadcasts_of<L>() + detail::broadcasts_of<R>();
    static constexpr leaf_set leaves = leaves_of<L> | leaves_of<R>;
    [[no_unique_address]] Op op;
    L l;
    R r;

    constexpr vector_binary_expr(const Op& o, const L& left, const R& right)
        : op(o), l(left), r(right) {
        if constexpr (vector_node<L> && vector_node<R>)
            if (l.size() != r.size()) detail::throw_size_mismatch(Op::name, l.size(), r.size());
    }
    constexpr std::size_t size() const {
        if constexpr (vector_node<L>)
            return l.size();
        else
            return r.size();
    }
    template <bool Loop, std::size_t J>
    ZG_INLINE constexpr auto element(std::size_t k) const {
        auto left = detail::element_of<Loop, J>(l, k);
        auto right = detail::element_of<Loop, J + detail::broadcasts_of<L>()>(r, k);
        return binary_expr<Op, decltype(left), decltype(right)>{op, left, right};
    }
    template <std::size_t J, class Sink>
    constexpr void pass_broadcasts(const value_type* totals, Sink& sink) const {
        detail::pass_operand<J>(l, totals, sink);
        detail::pass_operand<J + detail::broadcasts_of<L>()>(r, totals, sink);
    }
    constexpr vector_binary_expr sliced(std::size_t from, std::size_t count) const {
        return {op, detail::slice_operand(l, from, count), detail::slice_operand(r, from, count)};
    }
};

// ---- Data as a vector ---------------------------------------------------------------------------

namespace detail {

/// A vector of doubles the lambda holds (a std::vector, std::span, an Eigen vector): a constant
/// vector.
template <class A>
concept double_range = zg::detail::vector_argument<A>;

/// A vector expression of expression mode.
template <class A>
concept vector_expression = Expression<A> && vector_node<tree_of<A>>;

template <class A>
concept vector_operand = vector_expression<A> || double_range<A>;

/// Data as a constant vector of the call `owner`. A view (std::span) is read in place: the data
/// it shows must outlive the call. A container (std::vector, std::array) may be a local of the
/// lambda or of a helper it calls, which dies before the expression is reduced or swept (the
/// classic expression-template hazard: a node referring to a temporary), so its elements are
/// copied into the frame, which lives until the call ends (so is an Eigen vector's).
template <class R>
vector_constant_expr<double> constant_vector(R&& range, frame<double>* owner) {
    const std::span<const double> values = zg::detail::vector_span(range);
    if (std::ranges::borrowed_range<std::remove_cvref_t<R>> || owner == nullptr) return {values};
    double* copy = owner->template scratch_lasting<double>(values.size());
    std::copy(values.begin(), values.end(), copy);
    return {std::span<const double>(copy, values.size())};
}

/// v as a vector expression; `partner` gives the frame that data is copied into.
template <class A, class Partner>
constexpr auto as_vector(A&& a, const Partner& partner) {
    if constexpr (Expression<A>) {
        return a;
    } else {
        return expression<vector_constant_expr<double>>{
            constant_vector(std::forward<A>(a), partner.owner), partner.owner,
            depth_in(partner.owner)};
    }
}

/// A range of doubles meets an expression of doubles: under zg::hessian the leaves are dual
/// numbers, and a vector node mixing the two is not supported.
template <class E>
constexpr void check_range_partner() {
    static_assert(std::is_same_v<typename tree_of<E>::value_type, double>,
                  "zg::hessian: a captured range of doubles in an elementwise operation with a "
                  "leaf is supported by zg::grad only; write zg::sum(data, fn) instead");
}

} // namespace detail

// Elementwise operations between an expression (a vector, or a scalar broadcast over the range)
// and a range of doubles (a constant vector, such as data the lambda captured).
#define ZG_EXPR_RANGE_BINARY(name, fn)                                                             \
    template <Expression L, detail::double_range R>                                                \
    constexpr auto name(L&& l, R&& r) {                                                            \
        detail::check_range_partner<L>();                                                          \
        auto right = detail::as_vector(std::forward<R>(r), l);                                     \
        return apply(fn##_op{}, std::forward<L>(l), std::move(right));                             \
    }                                                                                              \
    template <detail::double_range L, Expression R>                                                \
    constexpr auto name(L&& l, R&& r) {                                                            \
        detail::check_range_partner<R>();                                                          \
        auto left = detail::as_vector(std::forward<L>(l), r);                                      \
        return apply(fn##_op{}, std::move(left), std::forward<R>(r));                              \
    }
#define ZG_EXPR_RANGE_OPERATOR(fn, symbol) ZG_EXPR_RANGE_BINARY(operator symbol, fn)
#define ZG_EXPR_RANGE_FUNCTION(fn) ZG_EXPR_RANGE_BINARY(fn, fn)
ZG_BINARY_OPERATORS(ZG_EXPR_RANGE_OPERATOR)
ZG_BINARY_FUNCTIONS(ZG_EXPR_RANGE_FUNCTION)
#undef ZG_EXPR_RANGE_FUNCTION
#undef ZG_EXPR_RANGE_OPERATOR
#undef ZG_EXPR_RANGE_BINARY

// ---- Elements, slices, sizes --------------------------------------------------------------------

namespace detail {

// Cold and out of line: an error path inside element access, which is inlined everywhere.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_no_element(std::size_t i,
                                                                    std::size_t size) {
    throw shape_error("zg::expr: element " + std::to_string(i) + " of a vector of size " +
                      std::to_string(size));
}

/// v[i] of a vector expression: element i's scalar tree, its broadcast operands shared.
template <class Tree>
ZG_INLINE constexpr auto element_at(const expression<Tree>& v, std::size_t i) {
    if (i >= v.tree.size()) [[unlikely]]
        throw_no_element(i, v.tree.size());
    return make(v.tree.template element<false, 0>(i), v.owner);
}

} // namespace detail

/// Elements offset, ..., offset + count - 1 of a vector expression: `zg::slice(x, 1, n - 1)`
/// is x shifted by one, for sums over neighbours such as x_i x_{i+1}.
template <detail::vector_expression V>
ZG_INLINE constexpr auto slice(const V& v, std::size_t offset, std::size_t count) {
    if (offset > v.tree.size() || count > v.tree.size() - offset) [[unlikely]]
        zg::detail::throw_slice_past_the_end(offset, count, v.tree.size(), "vector");
    return detail::make(v.tree.sliced(offset, count), v.owner);
}

/// The number of elements of a vector expression.
template <detail::vector_expression V>
constexpr std::size_t size(const V& v) {
    return v.tree.size();
}

} // namespace zg::expr

namespace zg {
using expr::size;
using expr::slice;
} // namespace zg
