// zerograd/expr/reduce/lanes.hpp: two elements of a sum swept as it is built, evaluated and swept
// as one tree whose scalar is a pair. The chain rule is the same template recursion; g++ and clang
// turn each operation on a pair into one two-wide SSE2 instruction, which halves the instructions
// of a sum's loop. (The lanes' sums are added at the end: an order of addition that differs from
// one element at a time by rounding only.) Pair operations are ZG_INLINE: each must become its one
// instruction inside the loop.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <cstddef>
#include <type_traits>

namespace zg::expr {

/// Two doubles operated on together: g++'s and clang's vector extension, one SSE2 register.
struct double_pair {
    using lanes = double __attribute__((vector_size(2 * sizeof(double))));
    lanes v;

    double_pair() = default;
    template <class U>
    requires std::is_arithmetic_v<U> ZG_INLINE double_pair(U x) : v{double(x), double(x)} {}
    ZG_INLINE double_pair(double a, double b) : v{a, b} {}
    ZG_INLINE explicit double_pair(lanes l) : v(l) {}

    ZG_INLINE double lane(std::size_t i) const { return v[i]; }
    ZG_INLINE double sum() const { return v[0] + v[1]; }

    ZG_INLINE double_pair& operator+=(const double_pair& o) {
        v += o.v;
        return *this;
    }
    ZG_INLINE friend double_pair operator+(double_pair a, double_pair b) {
        return double_pair(a.v + b.v);
    }
    ZG_INLINE friend double_pair operator-(double_pair a, double_pair b) {
        return double_pair(a.v - b.v);
    }
    ZG_INLINE friend double_pair operator*(double_pair a, double_pair b) {
        return double_pair(a.v * b.v);
    }
    ZG_INLINE friend double_pair operator/(double_pair a, double_pair b) {
        return double_pair(a.v / b.v);
    }
    ZG_INLINE friend double_pair operator-(double_pair a) { return double_pair(-a.v); }
};

/// Element `index` of vector argument I of F in one lane, `second` in the other.
template <std::size_t I, class F>
struct paired_element_expr {
    using value_type = double_pair;
    using call = F;
    static constexpr node_kind kind = node_kind::end;
    double_pair value;
    std::size_t index, second;
};

template <std::size_t I, class F, class Sink>
ZG_INLINE void visit_end(const paired_element_expr<I, F>& e, const double_pair& adjoint,
                         Sink& sink) {
    auto& context = sink.context();
    context.template element<I>(e.index, adjoint.lane(0));
    context.template element<I>(e.second, adjoint.lane(1));
}

namespace detail {

/// Operations a pair computes with its two-wide arithmetic (the rule says so).
template <class Op>
inline constexpr bool paired_op = lane_rule<Op>;

/// Whether every node of a tree of doubles has a form on pairs.
template <class Node>
inline constexpr bool pair_ok = false;
template <std::size_t I, class F>
inline constexpr bool pair_ok<leaf_expr<I, double, F>> = true;
template <>
inline constexpr bool pair_ok<constant_expr<double>> = true;
template <std::size_t J>
inline constexpr bool pair_ok<hoisted_expr<J, double>> = true;
template <std::size_t I, class F>
inline constexpr bool pair_ok<element_expr<I, double, F>> = true;
template <class Op, class A>
inline constexpr bool pair_ok<unary_expr<Op, A>> = paired_op<Op>&& pair_ok<A>;
template <class Op, class L, class R>
inline constexpr bool pair_ok<binary_expr<Op, L, R>> = paired_op<Op>&& pair_ok<L>&& pair_ok<R>;

/// The tree of pairs for a tree of doubles (pair_ok): `type`, and zip(a, b) with a in lane 0 and
/// b in lane 1 (a and b of one type, two elements' trees).
template <class Node>
struct paired;
template <std::size_t I, class F>
struct paired<leaf_expr<I, double, F>> {
    using type = leaf_expr<I, double_pair, F>;
    ZG_INLINE static type zip(const leaf_expr<I, double, F>& a, const leaf_expr<I, double, F>&) {
        return {double_pair(a.value)};
    }
};
template <>
struct paired<constant_expr<double>> {
    using type = constant_expr<double_pair>;
    ZG_INLINE static type zip(const constant_expr<double>& a, const constant_expr<double>& b) {
        return {double_pair(a.value, b.value)};
    }
};
template <std::size_t J>
struct paired<hoisted_expr<J, double>> {
    using type = hoisted_expr<J, double_pair>;
    ZG_INLINE static type zip(const hoisted_expr<J, double>& a, const hoisted_expr<J, double>&) {
        return {double_pair(a.value)};
    }
};
template <std::size_t I, class F>
struct paired<element_expr<I, double, F>> {
    using type = paired_element_expr<I, F>;
    ZG_INLINE static type zip(const element_expr<I, double, F>& a,
                              const element_expr<I, double, F>& b) {
        return {double_pair(a.value, b.value), a.index, b.index};
    }
};
template <class Op, class A>
struct paired<unary_expr<Op, A>> {
    using type = unary_expr<Op, typename paired<A>::type>;
    ZG_INLINE static type zip(const unary_expr<Op, A>& a, const unary_expr<Op, A>& b) {
        return {a.op, paired<A>::zip(a.a, b.a)};
    }
};
template <class Op, class L, class R>
struct paired<binary_expr<Op, L, R>> {
    using type = binary_expr<Op, typename paired<L>::type, typename paired<R>::type>;
    ZG_INLINE static type zip(const binary_expr<Op, L, R>& a, const binary_expr<Op, L, R>& b) {
        return {a.op, paired<L>::zip(a.l, b.l), paired<R>::zip(a.r, b.r)};
    }
};

/// Whether two elements' trees of this type may be swept as one tree of pairs.
template <class Tree>
inline constexpr bool pairable =
    std::is_same_v<typename Tree::value_type, double> && !config::checked && pair_ok<Tree>;

} // namespace detail

} // namespace zg::expr
