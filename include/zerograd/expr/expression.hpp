// zerograd/expr/expression.hpp: the nodes of expression mode's static type tree and
// `expression`, the object a user's lambda computes with.
#ifndef ZG_EXPR_EXPRESSION_HPP // an include guard: test/core/core_only.cpp checks it
#define ZG_EXPR_EXPRESSION_HPP

#include "zerograd/core/config.hpp"
#include "zerograd/core/error.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zg::expr {

// ---- Nodes --------------------------------------------------------------------------------------
// Every node holds its children and its own forward value by value, computed when the node is
// built: the tree is complete data, never a reference to a temporary or to a local of the user's
// lambda, so it may be returned from that lambda and swept afterwards.
//
// Small nodes with several members copy member by member (ZG_MEMBERWISE_COPY). The implicit
// copy is equivalent, but g++ 12 compiles it to 16-byte moves of memory just written by 8-byte
// stores; those loads cannot be forwarded from the stores and stall. Building an element's tree
// inside a loop (zg::sum(v, fn)) ran 11 times slower that way. Large trees, built once, copy as
// blocks: member by member, every level of a 1,000-node tree copied every scalar below it one
// store at a time, and g++'s dead-store elimination took 60% of the compile time.
//
// Copies of trees up to inline_copy_limit bytes are still forced inline. Where g++ deems the
// call unlikely (a function it also reaches from main, say to check a gradient once), it
// otherwise calls each copy out of line instead of letting them vanish: a 40-operation scalar
// expression then took 650 ns instead of 70. Above the limit, the copies are g++'s choice, which
// keeps 1,000-node trees compiling in seconds.
inline constexpr std::size_t memberwise_copy_limit = 256; // bytes of the members copied
inline constexpr std::size_t inline_copy_limit = 2048;
inline constexpr std::size_t list_copy_limit = 1024; // a binding_list's, see there

#define ZG_MEMBERWISE_COPY(node, ...)                                                              \
    ZG_INLINE constexpr node(const node& other) : __VA_ARGS__ {}                                   \
    constexpr node& operator=(const node&) = default;
#define ZG_MEMBERWISE_COPY_IF_SMALL(node, bytes, ...)                                              \
    ZG_INLINE constexpr node(const node& other) requires(bytes <= memberwise_copy_limit)           \
        : __VA_ARGS__ {}                                                                           \
    ZG_INLINE constexpr node(const node& other) requires(bytes > memberwise_copy_limit &&          \
                                                         bytes <= inline_copy_limit) = default;    \
    constexpr node(const node& other) requires(bytes > inline_copy_limit) = default;               \
    constexpr node& operator=(const node&) = default;

/// Scalar argument number I of the function being differentiated.
template <std::size_t I, class T>
struct leaf_expr {
    using value_type = T;
    T value;
};

/// A plain number inside an expression (`2 * x`); no gradient flows into it.
template <class T>
struct constant_expr {
    using value_type = T;
    T value;
};

/// op(a), with the rule of core/rules.hpp.
template <class Op, class A>
struct unary_expr {
    using value_type = typename A::value_type;
    [[no_unique_address]] Op op;
    A a;
    value_type value;

    ZG_INLINE constexpr unary_expr(const Op& op, const A& a)
        : op(op), a(a), value(zg::detail::checked_value(op, a.value)) {}
    ZG_MEMBERWISE_COPY_IF_SMALL(unary_expr, sizeof(A), op(other.op), a(other.a), value(other.value))
};

/// op(l, r), with the rule of core/rules.hpp.
template <class Op, class L, class R>
struct binary_expr {
    using value_type = typename L::value_type;
    static_assert(std::is_same_v<value_type, typename R::value_type>);
    [[no_unique_address]] Op op;
    L l;
    R r;
    value_type value;

    ZG_INLINE constexpr binary_expr(const Op& op, const L& l, const R& r)
        : op(op), l(l), r(r), value(zg::detail::checked_value(op, l.value, r.value)) {}
    ZG_MEMBERWISE_COPY_IF_SMALL(binary_expr, sizeof(L) + sizeof(R), op(other.op), l(other.l),
                                r(other.r), value(other.value))
};

/// A use of the let-binding Id: its value, while the bound tree is kept once, in the bindings.
template <class Id, class T>
struct bound_expr {
    using value_type = T;
    T value;
};

/// Element `index` of vector argument I: its adjoint goes to that element of I's gradient.
template <std::size_t I, class T>
struct element_expr {
    using value_type = T;
    T value;
    std::size_t index;

    ZG_INLINE constexpr element_expr(const T& value, std::size_t index) : value(value), index(index) {}
    ZG_MEMBERWISE_COPY(element_expr, value(other.value), index(other.index))
};

/// A scalar broadcast over a vector's elements: each element's adjoint is gathered in one slot,
/// and the scalar's own tree is swept once with the total, after the loop over the elements.
template <class T>
struct slot_expr {
    using value_type = T;
    T value;
    T* adjoint;

    ZG_INLINE constexpr slot_expr(const T& value, T* adjoint) : value(value), adjoint(adjoint) {}
    ZG_MEMBERWISE_COPY(slot_expr, value(other.value), adjoint(other.adjoint))
};

/// An element of a vector that gathers its uses' adjoints per element (a zg::scan's state), to
/// be propagated once every use is swept: its adjoint is added at `adjoint`.
template <class T>
struct gathered_expr {
    using value_type = T;
    T value;
    T* adjoint;

    ZG_INLINE constexpr gathered_expr(const T& value, T* adjoint)
        : value(value), adjoint(adjoint) {}
    ZG_MEMBERWISE_COPY(gathered_expr, value(other.value), adjoint(other.adjoint))
};

// Vector nodes (zerograd/expr/vector.hpp) compute elementwise and lazily; reductions turn them
// into scalar nodes. A vector node says how many scalar operands it broadcasts (`slots`).
template <class Op, class V>
struct vector_unary_expr;
template <class Op, class L, class R>
struct vector_binary_expr;
template <class Node>
concept vector_node = requires { Node::slots; };
#define ZG_EXPR_ALIAS(fn) template <class E> using fn##_expr = unary_expr<fn##_op, E>;
ZG_UNARY_FUNCTIONS(ZG_EXPR_ALIAS)
#undef ZG_EXPR_ALIAS

// ---- Let-bindings -------------------------------------------------------------------------------

/// A subexpression bound by zg::let: its tree, kept once however often it is used, and the
/// number of the let call that made it (0 in constant evaluation), which tells copies of one
/// binding from another binding made at the same call site without comparing their trees.
template <class Id, class Tree>
struct binding {
    using id = Id;
    Tree tree;
    std::uint64_t serial;

    ZG_INLINE constexpr binding(const Tree& tree, std::uint64_t serial)
        : tree(tree), serial(serial) {}
    // Every expression that uses the binding carries a copy: inline, as the nodes' (see above).
    ZG_INLINE constexpr binding(const binding& other) requires(sizeof(Tree) <= inline_copy_limit)
        : tree(other.tree), serial(other.serial) {}
    constexpr binding(const binding&) requires(sizeof(Tree) > inline_copy_limit) = default;
    constexpr binding& operator=(const binding&) = default;
};

/// The let-bindings an expression carries, each once, ordered so that a binding comes after
/// every binding it uses: a struct deriving from each (their ids differ). Not a hana::tuple:
/// every operation copies its operands' bindings, and g++ called hana's element copies out of
/// line, which made a 40-operation expression with two lets 7 times slower than without them.
template <class... B>
struct binding_list : B... {
    static constexpr std::size_t bytes = (sizeof(B) + ... + 0);

    constexpr binding_list() = default; // the empty list

    // Built from two sources that hold every B between them (a list and a binding to append,
    // or two lists to merge), and copied, inline up to list_copy_limit bytes as the nodes'
    // copies are; above it, g++'s choice: with every list forced inline, the chain of 60 lets
    // in test/expr/let.cpp took three times as long to compile.
    template <class L, class R>
    ZG_INLINE constexpr binding_list(const L& l, const R& r) requires(bytes <= list_copy_limit)
        : B(pick<B>(l, r))... {}
    template <class L, class R>
    constexpr binding_list(const L& l, const R& r) requires(bytes > list_copy_limit)
        : B(pick<B>(l, r))... {}
    ZG_INLINE constexpr binding_list(const binding_list& other) requires(bytes <= list_copy_limit)
        : B(static_cast<const B&>(other))... {}
    constexpr binding_list(const binding_list& other) requires(bytes > list_copy_limit)
        : B(static_cast<const B&>(other))... {}
    constexpr binding_list& operator=(const binding_list&) = default;

private:
    /// l's binding B if l holds one, else r's.
    template <class Binding, class L, class R>
    ZG_INLINE static constexpr const Binding& pick(const L& l, const R& r) {
        if constexpr (std::is_base_of_v<Binding, L>)
            return l;
        else
            return r;
    }

public:
    /// Binding I.
    template <std::size_t I>
    ZG_INLINE constexpr const auto& at() const {
        return static_cast<const std::tuple_element_t<I, std::tuple<B...>>&>(*this);
    }
};

// ---- The expression ----------------------------------------------------------------------------

/// What the user's lambda receives and returns in expression mode: a tree of nodes (its type is
/// the expression's structure, its data the values) and the let-bindings it uses, each once,
/// ordered so that a binding comes after every binding it uses.
///
///     auto f = [](auto x, auto y) { return x * y + sin(x); };
///     // f on expression leaves returns
///     // expression<binary_expr<add_op, binary_expr<mul_op, leaf 0, leaf 1>, sin_expr<leaf 0>>>
template <class Tree, class Bindings = binding_list<>>
struct expression {
    using tree_type = Tree;
    using value_type = typename Tree::value_type;
    Tree tree;
    [[no_unique_address]] Bindings bindings;

    ZG_INLINE constexpr expression(const Tree& tree, const Bindings& bindings)
        : tree(tree), bindings(bindings) {}
    ZG_MEMBERWISE_COPY_IF_SMALL(expression, sizeof(Tree), tree(other.tree),
                                bindings(other.bindings))

    /// The forward value, computed as the expression was built.
    ZG_INLINE constexpr const value_type& value() const { return tree.value; }
};

template <class E>
struct is_expression : std::false_type {};
template <class Tree, class Bindings>
struct is_expression<expression<Tree, Bindings>> : std::true_type {};

/// Any expression-mode value a lambda can return or operate on.
template <class E>
concept Expression = is_expression<std::remove_cvref_t<E>>::value;

namespace detail {

template <class E>
struct is_constant : std::false_type {};
template <class T>
struct is_constant<constant_expr<T>> : std::true_type {};

/// Whether two trees of one type hold the same data: then they are the same computation.
template <class Node>
constexpr bool same_data(const Node& a, const Node& b) {
    const auto same = [](const auto& x, const auto& y) {
        return x == y || (x != x && y != y); // NaN equals NaN here: the same computation
    };
    if constexpr (requires { a.l; })
        return same(a.value, b.value) && same_data(a.l, b.l) && same_data(a.r, b.r);
    else if constexpr (requires { a.a; })
        return same(a.value, b.value) && same_data(a.a, b.a);
    else
        return same(zg::detail::primal(a.value), zg::detail::primal(b.value));
}

template <class Bindings>
inline constexpr std::size_t binding_count = 0;
template <class... B>
inline constexpr std::size_t binding_count<binding_list<B...>> = sizeof...(B);

/// Numbers let calls (see binding), never 0 and never twice, also across threads: each thread
/// counts within blocks of 2^32 numbers it takes from one atomic counter.
inline std::uint64_t next_let_serial() {
    static std::atomic<std::uint64_t> blocks{0};
    thread_local std::uint64_t next = 0, end = 0;
    if (next == end) [[unlikely]] {
        next = blocks.fetch_add(1, std::memory_order_relaxed) << 32;
        end = next + (std::uint64_t(1) << 32);
    }
    return ++next;
}

/// Whether two bindings of one call site hold the same data; out of line, as two let calls at
/// one call site in one expression are rare.
template <class Tree>
[[gnu::cold, gnu::noinline]] constexpr bool same_trees(const Tree& a, const Tree& b) {
    return same_data(a, b);
}

/// Whether two bindings of one call site are copies of one binding, or hold the same data.
template <class B>
constexpr bool same_binding(const B& a, const B& b) {
    return (a.serial == b.serial && a.serial != 0) || same_trees(a.tree, b.tree);
}

[[noreturn, gnu::cold]] inline void throw_clashing_let() {
    throw error("zg::let: two different subexpressions were bound at the same call site (a helper "
                "function that calls zg::let, called twice with different numbers) and meet in "
                "one expression; bind them at separate call sites");
}

template <class Id, class... Bindings>
inline constexpr std::size_t index_of_id = [] {
    constexpr bool matches[] = {std::is_same_v<Id, typename Bindings::id>..., true};
    std::size_t i = 0;
    while (!matches[i]) ++i;
    return i; // sizeof...(Bindings) when absent
}();

/// binding_list<A..., the B not among A...>.
template <class List, class... B>
struct with_fresh {
    using type = List;
};
template <class... A, class First, class... B>
struct with_fresh<binding_list<A...>, First, B...>
    : with_fresh<std::conditional_t<(std::is_same_v<A, First> || ...), binding_list<A...>,
                                    binding_list<A..., First>>,
                 B...> {};

/// The bindings of a and b, each once: a's, then b's that a lacks, which keeps every binding
/// after the ones it uses. A binding both carry (one call site gives one type) must hold the
/// same data in both. Bindings are found by type, by pack expansions, not by position.
template <class... A, class... B>
ZG_INLINE constexpr auto merge_bindings(const binding_list<A...>& a, const binding_list<B...>& b) {
    using merged = typename with_fresh<binding_list<A...>, B...>::type;
    const bool consistent = ([&] {
        if constexpr (std::is_base_of_v<B, binding_list<A...>>)
            return same_binding(static_cast<const B&>(a), static_cast<const B&>(b));
        else
            return true;
    }() && ... && true);
    if (!consistent) throw_clashing_let();
    if constexpr (std::is_same_v<merged, binding_list<A...>>)
        return a;
    else
        return merged(a, b);
}

/// The bindings of `list` and then `last`.
template <class... B, class Last>
ZG_INLINE constexpr binding_list<B..., Last> append(const binding_list<B...>& list,
                                                    const Last& last) {
    return binding_list<B..., Last>(list, last);
}

/// Wraps a plain number as a constant of the expression's scalar type.
template <class T, class U>
ZG_INLINE constexpr expression<constant_expr<T>> constant(const U& number) {
    return {constant_expr<T>{T(number)}, {}};
}

} // namespace detail

/// Builds op(e) from an expression (elementwise when e is a vector).
template <class Op, class Tree, class Bindings>
ZG_INLINE constexpr auto apply(const Op& op, const expression<Tree, Bindings>& e) {
    using node = std::conditional_t<vector_node<Tree>, vector_unary_expr<Op, Tree>,
                                    unary_expr<Op, Tree>>;
    return expression<node, Bindings>{node(op, e.tree), e.bindings};
}

/// Builds op(l, r) from two expressions, merging their let-bindings (elementwise, a scalar
/// side broadcast, when either is a vector).
template <class Op, class TL, class BL, class TR, class BR>
ZG_INLINE constexpr auto apply(const Op& op, const expression<TL, BL>& l, const expression<TR, BR>& r) {
    using node = std::conditional_t<vector_node<TL> || vector_node<TR>,
                                    vector_binary_expr<Op, TL, TR>, binary_expr<Op, TL, TR>>;
    auto bindings = detail::merge_bindings(l.bindings, r.bindings);
    return expression<node, decltype(bindings)>{node(op, l.tree, r.tree), bindings};
}

} // namespace zg::expr

#undef ZG_MEMBERWISE_COPY
#undef ZG_MEMBERWISE_COPY_IF_SMALL

#endif // ZG_EXPR_EXPRESSION_HPP
