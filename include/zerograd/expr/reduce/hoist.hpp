// zerograd/expr/reduce/hoist.hpp: the parts of a map-reduce's element function that do not depend
// on the element (a function of the scalar arguments alone, such as log(sigma), and the reciprocal
// of a divisor such as sigma), evaluated for the first element only: the other elements take their
// values, and their adjoints are summed over the elements and swept once.
// Its functions are ZG_INLINE: they run inside the loop over the elements, which must stay one
// function for its running sums to stay in registers.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <boost/hana/append.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/tuple.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

namespace zg::expr::detail {

namespace hana = boost::hana;

template <class Node>
struct invariant_end : std::false_type {};
template <std::size_t I, class T, class F>
struct invariant_end<leaf_expr<I, T, F>> : std::true_type {};
template <class T, class F>
struct invariant_end<argument_expr<T, F>> : std::true_type {};
/// A tree of scalar arguments and operations only: the same for every element. (No pick: its
/// condition may be the element's.)
template <class Node>
inline constexpr bool invariant = made_of<invariant_end, false, Node>;

template <class Node>
inline constexpr bool hoistable = invariant<Node>&& is_operation<Node>;

/// How an element tree's node is hoisted: not at all, whole (an invariant operation), or, for
/// x / d with an invariant divisor d, as x * (1 / d) with 1 / d hoisted: one division per
/// map-reduce instead of three per element (the value and both partials).
enum class hoist_kind { none, whole, reciprocal };
template <class Node>
inline constexpr hoist_kind hoist_kind_of = hoistable<Node> ? hoist_kind::whole : hoist_kind::none;
template <class L, class R>
inline constexpr hoist_kind hoist_kind_of<binary_expr<div_op, L, R>> =
    hoistable<binary_expr<div_op, L, R>> ? hoist_kind::whole
    : invariant<R>                       ? hoist_kind::reciprocal
                                         : hoist_kind::none;

// ---- Held trees, copied out -------------------------------------------------------------------

template <class Node>
constexpr auto unheld(const Node& node);
template <class Tree>
constexpr auto unheld_node(const held_expr<Tree>& node) {
    return unheld(*node.tree);
}
template <class Op, class A>
constexpr auto unheld_node(const unary_expr<Op, A>& node) {
    return unary_expr<Op, decltype(unheld(node.a))>{node.op, unheld(node.a)};
}
template <class Op, class A>
constexpr auto unheld_node(const known_unary_expr<Op, A>& node) {
    return known_unary_expr<Op, decltype(unheld(node.a))>{node.op, unheld(node.a),
                                                          node.known_value, node.known_partial};
}
template <class Op, class L, class R>
constexpr auto unheld_node(const binary_expr<Op, L, R>& node) {
    return binary_expr<Op, decltype(unheld(node.l)), decltype(unheld(node.r))>{
        node.op, unheld(node.l), unheld(node.r)};
}
template <class A, class B>
constexpr auto unheld_node(const select_expr<A, B>& node) {
    return select_expr<decltype(unheld(node.a)), decltype(unheld(node.b))>{
        node.first, unheld(node.a), unheld(node.b)};
}
/// A tree with its held parts copied in: a hoisted part outlives the element whose frame memory
/// held them.
template <class Node>
constexpr auto unheld(const Node& node) {
    if constexpr (holds_any<Node>)
        return unheld_node(node);
    else
        return node;
}
template <class Node>
using unheld_t = decltype(unheld(std::declval<const Node&>()));

/// Node with its hoisted parts replaced by hoisted_expr<J, T>, numbered from J in the order of
/// the tree's slots: `count` parts, which parts(node) gives as a hana::tuple of trees.
template <class Node, std::size_t J, hoist_kind = hoist_kind_of<Node>>
struct hoisting {
    // Ends, and an operation whose value and partial were computed where it was built, stay
    // as they are; every other operation has a specialization below.
    static_assert(!is_operation<Node> || kind_of<Node> == node_kind::known_unary,
                  "zg::expr: hoisting meets an operation of a kind it does not handle");
    using type = Node;
    static constexpr std::size_t count = 0;
    static constexpr auto parts(const Node&) { return hana::make_tuple(); }
    template <class T>
    ZG_INLINE static constexpr const Node& build(const Node& node, const T*) {
        return node;
    }
};
template <class Node, std::size_t J>
struct hoisting<Node, J, hoist_kind::whole> {
    using type = hoisted_expr<J, typename Node::value_type>;
    static constexpr std::size_t count = 1;
    static constexpr auto parts(const Node& node) { return hana::make_tuple(unheld(node)); }
    template <class T>
    ZG_INLINE static constexpr type build(const Node&, const T* values) {
        return {values[J]};
    }
};
template <class L, class R, std::size_t J>
struct hoisting<binary_expr<div_op, L, R>, J, hoist_kind::reciprocal> {
    using T = typename R::value_type;
    using left = hoisting<L, J>;
    using type = binary_expr<mul_op, typename left::type, hoisted_expr<J + left::count, T>>;
    static constexpr std::size_t count = left::count + 1;
    static constexpr auto parts(const binary_expr<div_op, L, R>& node) {
        return hana::append(left::parts(node.l), binary_expr<div_op, constant_expr<T>, unheld_t<R>>{
                                                     {}, {T(1)}, unheld(node.r)});
    }
    ZG_INLINE static constexpr type build(const binary_expr<div_op, L, R>& node, const T* values) {
        return {{}, left::build(node.l, values), {values[J + left::count]}};
    }
};
template <class Op, class A, std::size_t J>
struct hoisting<unary_expr<Op, A>, J, hoist_kind::none> {
    using inner = hoisting<A, J>;
    using type = unary_expr<Op, typename inner::type>;
    static constexpr std::size_t count = inner::count;
    static constexpr auto parts(const unary_expr<Op, A>& node) { return inner::parts(node.a); }
    template <class T>
    ZG_INLINE static constexpr type build(const unary_expr<Op, A>& node, const T* values) {
        return {node.op, inner::build(node.a, values)};
    }
};
template <class Op, class L, class R, std::size_t J>
struct hoisting<binary_expr<Op, L, R>, J, hoist_kind::none> {
    using left = hoisting<L, J>;
    using right = hoisting<R, J + left::count>;
    using type = binary_expr<Op, typename left::type, typename right::type>;
    static constexpr std::size_t count = left::count + right::count;
    static constexpr auto parts(const binary_expr<Op, L, R>& node) {
        return hana::concat(left::parts(node.l), right::parts(node.r));
    }
    template <class T>
    ZG_INLINE static constexpr type build(const binary_expr<Op, L, R>& node, const T* values) {
        return {node.op, left::build(node.l, values), right::build(node.r, values)};
    }
};
/// A held tree with no part hoisted stays held; else its copy is the element's.
template <class Tree, std::size_t J>
struct hoisting<held_expr<Tree>, J, hoist_kind::none> {
    using inner = hoisting<Tree, J>;
    static constexpr std::size_t count = inner::count;
    using type = std::conditional_t<count == 0, held_expr<Tree>, typename inner::type>;
    static constexpr auto parts(const held_expr<Tree>& node) { return inner::parts(*node.tree); }
    template <class T>
    ZG_INLINE static constexpr type build(const held_expr<Tree>& node, const T* values) {
        if constexpr (count == 0)
            return node;
        else
            return inner::build(*node.tree, values);
    }
};
template <class A, class B, std::size_t J>
struct hoisting<select_expr<A, B>, J, hoist_kind::none> {
    using left = hoisting<A, J>;
    using right = hoisting<B, J + left::count>;
    using type = select_expr<typename left::type, typename right::type>;
    static constexpr std::size_t count = left::count + right::count;
    static constexpr auto parts(const select_expr<A, B>& node) {
        return hana::concat(left::parts(node.a), right::parts(node.b));
    }
    template <class T>
    ZG_INLINE static constexpr type build(const select_expr<A, B>& node, const T* values) {
        return {node.first, left::build(node.a, values), right::build(node.b, values)};
    }
};

// ---- What a map-reduce keeps --------------------------------------------------------------------

/// The parts of element trees of type E0 that are hoisted out of the loop, taken from the first
/// element's tree and evaluated once: they stand for every element's. (Nothing, where nothing
/// is.)
template <class T, class E0, bool Any = (hoisting<E0, 0>::count > 0)>
struct hoisted_parts {
    using tree = E0;
    static constexpr std::size_t count = 0;
    std::array<T, 0> values;
    ZG_INLINE static const E0& element(std::size_t, const E0& e) { return e; }
    template <bool First>
    ZG_INLINE static const E0& element(const E0& e) {
        return e;
    }
    template <class Sink>
    static void sweep(const std::array<T, 0>&, Sink&) {}
};
template <class T, class E0>
struct hoisted_parts<T, E0, true> {
    using hoist = hoisting<E0, 0>;
    using tree = typename hoist::type; // an element's tree, hoisted parts replaced
    static constexpr std::size_t count = hoist::count;

    /// A part's tree and its values.
    template <class Part>
    struct part {
        Part tree;
        values_of<Part> values;
    };
    static constexpr auto evaluated_part = []<class Part>(const Part& tree) {
        return part<Part>{tree, evaluated(tree)};
    };
    using part_list =
        decltype(hana::transform(hoist::parts(std::declval<const E0&>()), evaluated_part));
    std::optional<part_list> parts;
    std::array<T, count> values{};

    /// Element k's tree from fn's, its hoisted parts taken from the first element.
    ZG_INLINE tree element(std::size_t k, const E0& e) {
        return k == 0 ? element<true>(e) : element<false>(e);
    }
    /// The same where the loop knows whether this is the first element.
    template <bool First>
    ZG_INLINE tree element(const E0& e) {
        if constexpr (First) {
            parts.emplace(hana::transform(hoist::parts(e), evaluated_part));
            std::size_t j = 0;
            hana::for_each(
                *parts, [&](const auto& p) { values[j++] = value_at(p.tree, p.values.data()); });
        }
        return hoist::build(e, values.data());
    }

    /// Sweeps the hoisted parts with the adjoints their uses gathered.
    template <class Sink>
    void sweep(const std::array<T, count>& adjoints, Sink& sink) const {
        std::size_t j = 0;
        hana::for_each(*parts, [&](const auto& p) {
            sweep_at(p.tree, p.values.data(), adjoints[j++], sink);
        });
    }
};

} // namespace zg::expr::detail
