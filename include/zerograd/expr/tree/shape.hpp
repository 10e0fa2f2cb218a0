// zerograd/expr/tree/shape.hpp: what a tree's type says before it is evaluated: whether it is
// made of arguments, constants and operations only (a call without a frame), and which
// arguments its sweep reaches.
#pragma once

#include "zerograd/expr/tree/node.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace zg::expr {

// ---- What a tree is made of --------------------------------------------------------------------

/// Whether a tree is operations over ends that End accepts (End<N>::value for each leaf,
/// constant or other end), and over picks (zg::select) where Picks.
template <template <class> class End, bool Picks, class Node>
inline constexpr bool made_of = [] {
    if constexpr (!is_operation<Node>)
        return End<Node>::value;
    else if constexpr (is_pick<Node> && !Picks)
        return false;
    else
        return made_of<End, Picks, operands_of<Node>>;
}();
template <template <class> class End, bool Picks, class... Operands>
inline constexpr bool made_of<End, Picks, operand_list<Operands...>> =
    (true && ... && made_of<End, Picks, Operands>);

namespace detail {
template <class Node>
struct static_end : std::false_type {};
template <std::size_t I, class T, class F>
struct static_end<leaf_expr<I, T, F>> : std::true_type {};
template <class T, class F>
struct static_end<argument_expr<T, F>> : std::true_type {};
template <class T>
struct static_end<constant_expr<T>> : std::true_type {};
} // namespace detail

/// A tree of arguments, constants, operations and picks only: everything its sweep needs is in
/// the tree, so its call keeps no frame.
template <class Node>
inline constexpr bool static_tree = made_of<detail::static_end, true, Node>;

// ---- Which arguments a tree reaches -------------------------------------------------------------

/// Bit I of `scalars` for scalar argument I, of `vectors` for vector argument I.
struct leaf_set {
    std::uint64_t scalars = 0, vectors = 0;
    constexpr leaf_set operator|(leaf_set other) const {
        return {scalars | other.scalars, vectors | other.vectors};
    }
};

namespace detail {
/// Argument I's bit; arguments past 64 have none (sums over them are kept in memory, and a
/// function of more than 64 vector arguments is refused where that matters).
template <std::size_t I>
constexpr std::uint64_t argument_bit() {
    if constexpr (I < 64)
        return std::uint64_t{1} << I;
    else
        return 0;
}
template <class Node>
struct leaves_of_node {
    static constexpr leaf_set value = [] {
        if constexpr (is_operation<Node>)
            return leaves_of_node<operands_of<Node>>::value;
        else if constexpr (kind_of<Node> == node_kind::vector ||
                           kind_of<Node> == node_kind::reduction)
            return Node::leaves; // vector nodes and reductions say themselves
        else
            return leaf_set{};
    }();
};
template <class... Operands>
struct leaves_of_node<operand_list<Operands...>> {
    static constexpr leaf_set value = (leaf_set{} | ... | leaves_of_node<Operands>::value);
};
} // namespace detail

/// The arguments whose adjoints a sweep of Node adds into directly: not by way of shared nodes
/// (each sweeps itself) or reductions (each notes what it writes when it is built).
template <class Node>
inline constexpr leaf_set leaves_of = detail::leaves_of_node<Node>::value;

namespace detail {
template <std::size_t I, class T, class F>
struct leaves_of_node<leaf_expr<I, T, F>> {
    static constexpr leaf_set value{argument_bit<I>(), 0};
};
template <std::size_t I, class T, class F>
struct leaves_of_node<element_expr<I, T, F>> {
    static_assert(I < 64, "zg::grad: supports at most 64 vector arguments");
    static constexpr leaf_set value{0, argument_bit<I>()};
};
} // namespace detail

/// The scalar arguments that every sweep of a tree of operations reaches: all of its leaves but
/// those that only one side of a zg::select holds.
template <class Node>
inline constexpr std::uint64_t sure_leaves = [] {
    if constexpr (is_pick<Node>)
        return sure_leaves<decltype(Node::a)> & sure_leaves<decltype(Node::b)>;
    else if constexpr (is_operation<Node>)
        return sure_leaves<operands_of<Node>>;
    else
        return leaves_of<Node>.scalars;
}();
template <class... Operands>
inline constexpr std::uint64_t sure_leaves<operand_list<Operands...>> =
    (std::uint64_t{0} | ... | sure_leaves<Operands>);

} // namespace zg::expr
