// zerograd/expr/vector.hpp: vector leaves in expression mode: elementwise expressions evaluated
// lazily, and the reductions (sum, sum with a function, prod, dot, log_sum_exp, mean, norm) that
// turn them into scalar nodes.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/thread_object.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/operations.hpp"
#include "zerograd/expr/sweep.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::expr {

// ---- Vector nodes -------------------------------------------------------------------------------
// A vector node holds spans of the caller's arguments (alive for the whole zg::grad call) and
// scalar trees by value. `element(k, slots)` builds element k as a scalar tree whose broadcast
// scalars gather their adjoints in `slots`; `propagate<Bindings>(slots, sink)` then sweeps each
// broadcast scalar's tree once.

/// Vector argument I of the function being differentiated.
template <std::size_t I, class T>
struct vector_leaf_expr {
    using value_type = T;
    static constexpr std::size_t slots = 0;
    static constexpr std::size_t argument = I;
    std::span<const T> values;
    std::size_t offset = 0; // where `values` starts in the argument (a slice starts later)

    constexpr std::size_t size() const { return values.size(); }
    ZG_INLINE constexpr element_expr<I, T> element(std::size_t k, T*) const {
        return {values[k], offset + k};
    }
    template <class Bindings, class Sink>
    constexpr void propagate(T*, Sink&) const {}
};

/// A range of plain numbers (a std::vector or span the lambda captured): no gradient.
template <class T>
struct vector_constant_expr {
    using value_type = T;
    static constexpr std::size_t slots = 0;
    std::span<const T> values;

    constexpr std::size_t size() const { return values.size(); }
    ZG_INLINE constexpr constant_expr<T> element(std::size_t k, T*) const { return {values[k]}; }
    template <class Bindings, class Sink>
    constexpr void propagate(T*, Sink&) const {}
};

namespace detail {

/// How many broadcast slots an operand of a vector node takes: a vector node its own, a
/// scalar tree one, a constant none.
template <class Node>
constexpr std::size_t slots_of() {
    if constexpr (vector_node<Node>)
        return Node::slots;
    else if constexpr (is_constant<Node>::value)
        return 0;
    else
        return 1;
}

template <class Node, class T>
ZG_INLINE constexpr auto element_of(const Node& node, std::size_t k, T* slots) {
    if constexpr (vector_node<Node>)
        return node.element(k, slots);
    else if constexpr (is_constant<Node>::value)
        return node;
    else
        return slot_expr<T>{node.value, slots};
}

template <class Bindings, class Node, class T, class Sink>
constexpr void propagate_operand(const Node& node, T* slots, Sink& sink) {
    if constexpr (vector_node<Node>)
        node.template propagate<Bindings>(slots, sink);
    else if constexpr (!is_constant<Node>::value)
        backward<Bindings>(node, slots[0], sink);
}

[[noreturn, gnu::cold]] inline void throw_size_mismatch(std::string_view operation,
                                                        std::size_t left, std::size_t right) {
    // zg::dot is a sum of a product: a check of its own cost the callers' inlining (measured).
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
    static constexpr std::size_t slots = V::slots;
    [[no_unique_address]] Op op;
    V v;

    constexpr vector_unary_expr(const Op& op, const V& v) : op(op), v(v) {}
    constexpr std::size_t size() const { return v.size(); }
    ZG_INLINE constexpr auto element(std::size_t k, value_type* s) const {
        using node = unary_expr<Op, decltype(v.element(k, s))>;
        return node(op, v.element(k, s));
    }
    template <class Bindings, class Sink>
    constexpr void propagate(value_type* s, Sink& sink) const {
        v.template propagate<Bindings>(s, sink);
    }
};

/// op applied elementwise to two vectors of one size, or to a vector and a broadcast scalar.
template <class Op, class L, class R>
struct vector_binary_expr {
    using value_type = typename L::value_type;
    static constexpr std::size_t slots = detail::slots_of<L>() + detail::slots_of<R>();
    [[no_unique_address]] Op op;
    L l;
    R r;

    constexpr vector_binary_expr(const Op& op, const L& l, const R& r) : op(op), l(l), r(r) {
        if constexpr (vector_node<L> && vector_node<R>)
            if (l.size() != r.size()) detail::throw_size_mismatch(Op::name, l.size(), r.size());
    }
    constexpr std::size_t size() const {
        if constexpr (vector_node<L>)
            return l.size();
        else
            return r.size();
    }
    ZG_INLINE constexpr auto element(std::size_t k, value_type* s) const {
        auto left = detail::element_of(l, k, s);
        auto right = detail::element_of(r, k, s + detail::slots_of<L>());
        return binary_expr<Op, decltype(left), decltype(right)>(op, left, right);
    }
    template <class Bindings, class Sink>
    constexpr void propagate(value_type* s, Sink& sink) const {
        detail::propagate_operand<Bindings>(l, s, sink);
        detail::propagate_operand<Bindings>(r, s + detail::slots_of<L>(), sink);
    }
};

namespace detail {

// propagate after a sweep of elements whose adjoint may be infinite (see backward): what a
// broadcast scalar's slot gathered may be infinite too. Separate from propagate, which every
// sweep calls, so that the test stays out of those.
template <class Bindings, class Op, class V, class T, class Sink>
constexpr void propagate_strong(const vector_unary_expr<Op, V>& node, T* slots, Sink& sink);
template <class Bindings, class Op, class L, class R, class T, class Sink>
constexpr void propagate_strong(const vector_binary_expr<Op, L, R>& node, T* slots, Sink& sink);

template <class Bindings, class Node, class T, class Sink>
constexpr void propagate_strong(const Node& node, T* slots, Sink& sink) {
    if constexpr (vector_node<Node>)
        node.template propagate<Bindings>(slots, sink); // a leaf, a constant or a zg::scan
    else if constexpr (!is_constant<Node>::value)
        backward_binding<Bindings>(node, slots[0], sink);
}
template <class Bindings, class Op, class V, class T, class Sink>
constexpr void propagate_strong(const vector_unary_expr<Op, V>& node, T* slots, Sink& sink) {
    propagate_strong<Bindings>(node.v, slots, sink);
}
template <class Bindings, class Op, class L, class R, class T, class Sink>
constexpr void propagate_strong(const vector_binary_expr<Op, L, R>& node, T* slots, Sink& sink) {
    propagate_strong<Bindings>(node.l, slots, sink);
    propagate_strong<Bindings>(node.r, slots + slots_of<L>(), sink);
}

} // namespace detail

// ---- Reductions: scalar nodes over a vector ---------------------------------------------------

template <class V>
struct sum_expr;
template <class V>
struct prod_expr;
template <class V>
struct log_sum_exp_expr;

namespace detail {

/// Which arguments a tree reaches: bit I of `scalars` for scalar leaf I, of `vectors` for
/// vector leaf I.
struct leaf_set {
    std::uint64_t scalars = 0, vectors = 0;
    constexpr leaf_set operator|(leaf_set other) const {
        return {scalars | other.scalars, vectors | other.vectors};
    }
};

template <class Node>
struct leaves_of {
    static constexpr leaf_set value{};
};
template <std::size_t I, class T>
struct leaves_of<leaf_expr<I, T>> {
    static_assert(I < 64, "zg::expr: sum(v, fn) supports functions of at most 64 arguments");
    static constexpr leaf_set value{std::uint64_t{1} << I, 0};
};
template <std::size_t I, class T>
struct leaves_of<element_expr<I, T>> {
    static constexpr leaf_set value{0, std::uint64_t{1} << I};
};
template <std::size_t I, class T>
struct leaves_of<vector_leaf_expr<I, T>> {
    static constexpr leaf_set value{0, std::uint64_t{1} << I};
};
template <class Op, class A>
struct leaves_of<unary_expr<Op, A>> : leaves_of<A> {};
template <class Op, class A>
struct leaves_of<vector_unary_expr<Op, A>> : leaves_of<A> {};
template <class Op, class L, class R>
struct leaves_of<binary_expr<Op, L, R>> {
    static constexpr leaf_set value = leaves_of<L>::value | leaves_of<R>::value;
};
template <class Op, class L, class R>
struct leaves_of<vector_binary_expr<Op, L, R>> {
    static constexpr leaf_set value = leaves_of<L>::value | leaves_of<R>::value;
};
template <class V>
struct leaves_of<sum_expr<V>> : leaves_of<V> {};
template <class V>
struct leaves_of<prod_expr<V>> : leaves_of<V> {};
template <class V>
struct leaves_of<log_sum_exp_expr<V>> : leaves_of<V> {};

/// Vector argument I's gradient during a zg::grad call, and who writes into it. A sum built at
/// the top level of the lambda that is the first node to reach the argument claims it: it adds
/// its partials by the argument's elements (for adjoint 1) into the gradient itself as it is
/// built, and its sweep only records the adjoint that reached it, as a hand-written adjoint
/// writes its gradient in the forward loop. When the sweep ends, the gradient is scaled by the
/// claimant's adjoint (if not 1), and what other nodes wrote meanwhile (elsewhere) is added.
struct vector_gradient {
    double* data;
    bool touched; // a node built at the top level writes into it
    bool shared;  // ... and another one too
    bool claimed; // the first holds its partials in `data`
    bool swept;   // the claimant was reached by the top-level sweep
    bool strong;  // ... with an adjoint that may be infinite: see finish_claims
    double scale; // the adjoints that reached the claimant, summed over its copies
};

/// A sum's partial derivative by a gathered element (see gathered_expr), kept until its sweep.
struct gathered_partial {
    double* adjoint;
    double partial;
};

/// What the zg::grad call in progress on this thread knows: each vector argument's length and
/// gradient, and a scratch arena for per-element partials. The arena's blocks are kept, so
/// after the first call nothing is allocated; a block never moves, so handed-out pointers stay
/// valid.
struct call_context {
    const std::size_t* lengths = nullptr; // per argument; 0 for numbers
    vector_gradient* gradients = nullptr; // per argument; null without vector arguments
    int building = 0; // > 0 while sum(v, fn) builds its elements: nodes built then are local
    std::vector<std::unique_ptr<std::byte[]>> blocks; // in units of 8 bytes
    std::vector<std::size_t> block_sizes;
    std::size_t block = 0, used = 0;
    std::vector<gathered_partial> gathered; // by sums over zg::scan states

    /// n doubles, zeroed unless asked not to.
    double* allocate(std::size_t n, bool zeroed = true) {
        double* p = reinterpret_cast<double*>(take(n));
        if (zeroed) std::fill_n(p, n, 0.0);
        return p;
    }

    /// A new Record (trivially destructible: the arena is rewound, never destroyed into).
    template <class Record, class... Args>
    Record* make(Args&&... args) {
        static_assert(std::is_trivially_destructible_v<Record> && alignof(Record) <= 8);
        return ::new (take((sizeof(Record) + 7) / 8)) Record{std::forward<Args>(args)...};
    }

    /// Back to a position saved from `block` and `used` (the end of a nested zg::grad call).
    void rewind(std::size_t saved_block, std::size_t saved_used) {
        block = saved_block;
        used = saved_used;
        const bool exists = block < blocks.size();
        base = exists ? blocks[block].get() : nullptr;
        capacity = exists ? block_sizes[block] : 0;
    }

private:
    std::byte* base = nullptr; // of blocks[block], and its size: take's fast path reads only these
    std::size_t capacity = 0;

    std::byte* take(std::size_t units) {
        if (used + units > capacity) [[unlikely]]
            move_to_a_block_with_room(units);
        std::byte* p = base + used * 8;
        used += units;
        return p;
    }

    [[gnu::noinline]] void move_to_a_block_with_room(std::size_t units) {
        while (block < blocks.size() && used + units > block_sizes[block]) {
            ++block;
            used = 0;
        }
        if (block == blocks.size()) {
            const std::size_t size = std::max<std::size_t>(units, 1 << 16);
            blocks.push_back(std::make_unique_for_overwrite<std::byte[]>(size * 8));
            block_sizes.push_back(size);
            used = 0;
        }
        base = blocks[block].get();
        capacity = block_sizes[block];
    }

public:
    /// Notes that a node built now writes into the gradients of the vector arguments in the
    /// bit set `vectors` during the sweep. Nodes built inside sum(v, fn) write into that node.
    void touch(std::uint64_t vectors) {
        if (building != 0) return;
        for (std::uint64_t bits = vectors; bits != 0; bits &= bits - 1) {
            vector_gradient& g = gradients[std::countr_zero(bits)];
            g.shared |= g.touched;
            g.touched = true;
        }
    }

    /// Claims the gradients of `vectors` for a sum built now, if no other node writes into them.
    bool claim(std::uint64_t vectors) {
        if (building != 0 || vectors == 0) return false;
        for (std::uint64_t bits = vectors; bits != 0; bits &= bits - 1)
            if (gradients[std::countr_zero(bits)].touched) return false;
        for (std::uint64_t bits = vectors; bits != 0; bits &= bits - 1)
            gradients[std::countr_zero(bits)].touched = gradients[std::countr_zero(bits)].claimed =
                true;
        return true;
    }
};

inline thread_local call_context* current_call = nullptr;

[[noreturn, gnu::cold]] inline void throw_outside_grad(std::string_view call) {
    throw error("zg::" + std::string(call) +
                ": vector expressions are differentiated inside zg::grad "
                "or zg::value_and_grad only");
}

/// Notes the vector arguments a node built now writes into during the sweep.
inline void touch_gradients(std::uint64_t vectors) {
    if (vectors != 0 && current_call != nullptr) current_call->touch(vectors);
}

/// n doubles of the current call's scratch arena, for the node `call`.
inline double* scratch(std::string_view call, std::size_t n, bool zeroed = true) {
    if (current_call == nullptr) throw_outside_grad(call);
    return current_call->allocate(n, zeroed);
}

/// Sweeps every element of v with the adjoint `adjoint_of(k, element value)`, then each
/// broadcast scalar once with what its slot gathered. Reversed, the elements go last to first.
/// Strong: the adjoints may be infinite (see backward).
template <class Bindings, bool Reversed = false, bool Strong = false, class V, class Sink,
          class AdjointOf>
constexpr void sweep_elements(const V& v, Sink& sink, AdjointOf adjoint_of) {
    using T = typename V::value_type;
    std::array<T, V::slots> slots{};
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::size_t k = Reversed ? v.size() - 1 - i : i;
        const auto e = v.element(k, slots.data());
        backward<Bindings, Strong>(e, adjoint_of(k, e.value), sink);
    }
    if constexpr (Strong)
        propagate_strong<Bindings>(v, slots.data(), sink);
    else
        v.template propagate<Bindings>(slots.data(), sink);
}

template <class V>
ZG_INLINE constexpr typename V::value_type element_value(const V& v, std::size_t k) {
    return v.element(k, nullptr).value;
}

/// The sum of v's elements, in a function of its own: inlined into the node's constructor, g++
/// keeps the running total in an integer register and adds two moves to every iteration's chain
/// of additions.
template <class V>
[[gnu::noinline]] constexpr typename V::value_type sum_of_elements(const V& v) {
    typename V::value_type total{0};
    for (std::size_t k = 0; k < v.size(); ++k) total += element_value(v, k);
    return total;
}

} // namespace detail

namespace detail {

/// The products of v's elements before each one (prefixes[k] = v_0 ... v_{k-1}), and the
/// product of all; in a function of its own, as sum_of_elements.
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

} // namespace detail

/// The product of a vector's elements. The partial by element k is the product of the elements
/// before it (kept while building) times those after it (gathered by a backward pass), exact
/// when elements are zero and without a division.
template <class V>
struct prod_expr {
    static constexpr std::string_view name = "prod";
    static constexpr bool uses_scratch = true;
    using value_type = typename V::value_type;
    static_assert(std::is_same_v<value_type, double>);
    V v;
    value_type value{1};
    value_type* prefixes = nullptr;

    explicit prod_expr(const V& v) : v(v) {
        detail::touch_gradients(detail::leaves_of<V>::value.vectors);
        prefixes = detail::scratch(name, v.size(), false);
        value = detail::prefix_products(v, prefixes);
    }
    template <class Bindings, class Sink>
    constexpr void backward(const value_type& adjoint, Sink& sink) const {
        value_type suffix = adjoint;
        detail::sweep_elements<Bindings, true>(v, sink, [&](std::size_t k, const value_type& e) {
            const value_type partial = suffix * prefixes[k];
            suffix *= e;
            return partial;
        });
    }
    /// backward for an infinite or NaN adjoint: each partial multiplies it as a strong zero.
    template <class Bindings, class Sink>
    constexpr void backward_strong(const value_type& adjoint, Sink& sink) const {
        value_type suffix(1);
        detail::sweep_elements<Bindings, true, true>(
            v, sink, [&](std::size_t k, const value_type& e) {
                const value_type partial = suffix * prefixes[k];
                suffix *= e;
                return zg::detail::chain(adjoint, partial);
            });
    }
};

namespace detail {

/// The largest of v's elements (-inf if empty), in a function of its own, as sum_of_elements.
template <class V>
[[gnu::noinline]] typename V::value_type largest_element(const V& v) {
    typename V::value_type top(-std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < v.size(); ++k) {
        const typename V::value_type e = element_value(v, k);
        if (top < e) top = e;
    }
    return top;
}

/// sum_k exp(v_k - top), keeping each term in `terms`; in a function of its own, as
/// sum_of_elements.
template <class V>
[[gnu::noinline]] typename V::value_type sum_of_exponentials(const V& v, typename V::value_type top,
                                                             typename V::value_type* terms) {
    using std::exp;
    typename V::value_type total{0};
    for (std::size_t k = 0; k < v.size(); ++k)
        total += terms[k] = exp(element_value(v, k) - top);
    return total;
}

} // namespace detail

/// log(sum(exp(v))), computed around the largest element so that nothing overflows. The
/// partials exp(v_k - largest) / total are the terms of the sum, kept from the build: they keep
/// their accuracy where exp(v_k - value) would lose the rounding of value (about 1e-13 for
/// elements near 1000), and the sweep computes no exponential.
template <class V>
struct log_sum_exp_expr {
    static constexpr std::string_view name = "log_sum_exp";
    static constexpr bool uses_scratch = true;
    using value_type = typename V::value_type;
    static_assert(std::is_same_v<value_type, double>);
    V v;
    value_type total{0};
    value_type value;
    value_type* terms = nullptr;

    explicit log_sum_exp_expr(const V& v) : v(v) {
        using std::log;
        const value_type top = detail::largest_element(v);
        detail::touch_gradients(detail::leaves_of<V>::value.vectors);
        terms = detail::scratch(name, v.size(), false);
        total = detail::sum_of_exponentials(v, top, terms);
        // Empty, or every element -inf: the value is -inf (or NaN from a NaN element).
        value = top > value_type(-std::numeric_limits<double>::infinity()) ? top + log(total) : top;
    }
    template <class Bindings, class Sink>
    constexpr void backward(const value_type& adjoint, Sink& sink) const {
        const value_type scale = adjoint / total;
        detail::sweep_elements<Bindings>(
            v, sink, [&](std::size_t k, const value_type&) { return scale * terms[k]; });
    }
    template <class Bindings, class Sink>
    constexpr void backward_strong(const value_type& adjoint, Sink& sink) const {
        detail::sweep_elements<Bindings, false, true>(
            v, sink, [&](std::size_t k, const value_type&) {
                return zg::detail::chain(adjoint, terms[k] / total);
            });
    }
};

// ---- sum(v, fn): the element function is applied while building, and its local partials kept --
// fn may capture the lambda's leaves by reference, and those die when the lambda returns, so fn
// cannot be called again during the sweep. sum(v, fn) therefore sweeps each element's expression
// as it builds the node, with adjoint 1, into per-leaf totals (scalar leaves) and per-element
// partials (vector leaves, in a scratch arena reused across calls); the sweep scales them by the
// adjoint that arrives. That is also what a hand-written one-pass gradient does.

namespace detail {

/// Whether a vector tree holds a node whose uses gather adjoints per element (zg::scan): such a
/// node must be swept after all its uses. A sum that sweeps its elements as it is built keeps
/// its partials by such elements (gathered_partial) until its own sweep.
template <class Node>
struct gathers_per_element : std::false_type {};
template <class Op, class V>
struct gathers_per_element<vector_unary_expr<Op, V>> : gathers_per_element<V> {};
template <class Op, class L, class R>
struct gathers_per_element<vector_binary_expr<Op, L, R>>
    : std::bool_constant<gathers_per_element<L>::value || gathers_per_element<R>::value> {};

/// The vector leaves that a vector tree's elements reach directly; a zg::scan's input is reached
/// only by the scan's own sweep.
template <class Node>
struct vectors_in_elements {
    static constexpr std::uint64_t value =
        gathers_per_element<Node>::value ? 0 : leaves_of<Node>::value.vectors;
};
template <class Op, class V>
struct vectors_in_elements<vector_unary_expr<Op, V>> : vectors_in_elements<V> {};
template <class Op, class L, class R>
struct vectors_in_elements<vector_binary_expr<Op, L, R>> {
    static constexpr std::uint64_t value =
        vectors_in_elements<L>::value | vectors_in_elements<R>::value;
};

/// Whether building the tree takes the call's scratch arena (it holds a zg::scan), so that
/// zg::grad must provide one even when every argument is a number.
template <class Node>
constexpr bool needs_scratch() {
    if constexpr (gathers_per_element<Node>::value || requires { Node::uses_scratch; })
        return true;
    else if constexpr (requires { Node::tree; Node::bindings; })
        return needs_scratch<decltype(Node::tree)>() ||
               []<class... B>(binding_list<B...>*) {
                   return (needs_scratch<decltype(B::tree)>() || ... || false);
               }(static_cast<decltype(Node::bindings)*>(nullptr));
    else if constexpr (requires { Node::l; Node::r; })
        return needs_scratch<decltype(Node::l)>() || needs_scratch<decltype(Node::r)>();
    else if constexpr (requires { Node::a; })
        return needs_scratch<decltype(Node::a)>();
    else if constexpr (requires { Node::v; })
        return needs_scratch<decltype(Node::v)>();
    else
        return false;
}
template <class Tree, class... B>
struct leaves_of<expression<Tree, binding_list<B...>>> {
    static constexpr leaf_set value =
        (leaves_of<Tree>::value | ... | leaves_of<decltype(B::tree)>::value);
};

/// Where the local sweep of one element's expression puts adjoints.
template <class T, std::size_t Arguments>
struct preaccumulation_target {
    std::array<T, Arguments>& totals;
    const std::array<T*, Arguments>& partials;
    std::vector<gathered_partial>* gathered; // the call's, from `first` on
    std::size_t first;
    template <std::size_t I>
    ZG_INLINE constexpr void add_leaf(const T& adjoint) {
        totals[I] += adjoint;
    }
    template <std::size_t I>
    ZG_INLINE constexpr void add_element(std::size_t k, const T& adjoint) {
        partials[I][k] += adjoint;
    }
    void gather(T* adjoint, const T& partial) {
        // Two uses of a state in one element (h + y * exp(-h)) keep one entry.
        if (gathered->size() > first && gathered->back().adjoint == adjoint)
            gathered->back().partial += partial;
        else
            gathered->push_back({adjoint, partial});
    }
};

} // namespace detail

/// What a sum over a vector keeps when it sweeps its elements' expressions as it is built, with
/// adjoint 1: totals for scalar leaves and broadcast scalars, and per-element partials for
/// vector leaves, in the call's scratch arena or, when the node claims them (see
/// vector_gradient), in the gradients themselves. The sweep then scales them by the adjoint
/// that arrives.
template <class T, detail::leaf_set Leaves, class V>
struct preaccumulation {
    static constexpr std::size_t arguments = std::bit_width(Leaves.scalars | Leaves.vectors);
    // The vector leaves with partials per element: a zg::scan's input is left to the scan.
    static constexpr std::uint64_t element_vectors = detail::gathers_per_element<V>::value
                                                         ? detail::vectors_in_elements<V>::value
                                                         : Leaves.vectors;
    std::array<T, arguments> totals{};
    std::array<T*, arguments> partials{};
    // Of v's scalar type: a constant vector of doubles under duals (zg::hessian) sums into T.
    using slot_type = typename V::value_type;
    std::array<slot_type, V::slots> slot_totals{};
    std::size_t gathered_begin = 0, gathered_end = 0; // in the call's `gathered`
    bool claimed = false; // the partials by vector leaves are in their gradients

    // Member by member: value-initialized as a whole (by the arena's make), g++ clears it with
    // `rep stos`, slow to start for these hundred-odd bytes.
    preaccumulation() {}

    /// Claims the gradients of the vector leaves for a sum built now, which then holds its
    /// partials by them there: it must be the first node to reach them, and over no zg::scan
    /// (whose own sweep writes into them as well). Inside a zg::grad call, as build().
    static bool claim() {
        return !detail::gathers_per_element<V>::value &&
               detail::current_call->claim(Leaves.vectors);
    }

    /// Sweeps fn(v_k) for every k; returns the sum. Called inside a zg::grad call (the
    /// record lives in its arena).
    template <class Fn>
    T build(const V& v, Fn& fn) {
        using namespace detail;
        if constexpr (Leaves.vectors != 0) {
            if (!claimed) current_call->touch(Leaves.vectors);
            for (std::size_t i = 0; i < arguments; ++i)
                if (element_vectors >> i & 1)
                    partials[i] = claimed ? current_call->gradients[i].data
                                          : current_call->allocate(current_call->lengths[i]);
        }
        struct building_scope { // nodes that fn builds are local to this one
            call_context& call;
            explicit building_scope(call_context& c) : call(c) { ++call.building; }
            ~building_scope() { --call.building; }
        } scope(*current_call);
        std::vector<gathered_partial>* gathered = nullptr;
        if constexpr (gathers_per_element<V>::value) {
            gathered = &current_call->gathered;
            gathered_begin = gathered->size();
        }
        const T sum = accumulate(v, fn, partials, totals, slot_totals, gathered);
        if constexpr (gathers_per_element<V>::value) gathered_end = gathered->size();
        return sum;
    }

    /// The loop over the elements, in a function of its own whose running totals are locals:
    /// inlined into the constructor, g++ keeps the sum in memory, adding a store and a load to
    /// every iteration's chain of additions. The partials are stored through pointers, which
    /// could alias members, so the totals are copied out only at the end.
    template <class Fn>
    [[gnu::noinline]] static T
    accumulate(const V& v, Fn& fn, const std::array<T*, arguments>& element_partials,
               std::array<T, arguments>& leaf_totals_out,
               std::array<slot_type, V::slots>& slot_totals_out,
               std::vector<detail::gathered_partial>* gathered) {
        T running{0};
        std::array<T, arguments> leaf_totals{};
        std::array<slot_type, V::slots> slot_sums{};
        const std::array<T*, arguments> partials_copy = element_partials;
        detail::preaccumulation_target<T, arguments> target{leaf_totals, partials_copy, gathered,
                                                            gathered ? gathered->size() : 0};
        for (std::size_t k = 0; k < v.size(); ++k) {
            const auto element = v.element(k, slot_sums.data());
            const auto y = call(fn, argument_for(element), k);
            running += y.value();
            sweep_into(y, target);
        }
        leaf_totals_out = leaf_totals;
        slot_totals_out = slot_sums;
        return running;
    }

    /// What fn receives for an element: a plain double from a constant vector, else the
    /// element's expression.
    template <class E>
    ZG_INLINE static constexpr auto argument_for(const E& element) {
        if constexpr (detail::is_constant<E>::value)
            return element.value;
        else
            return expression<E>{element, {}};
    }

    template <class Fn, class E>
    ZG_INLINE static auto call(Fn& fn, const E& element, std::size_t k) {
        if constexpr (std::is_invocable_v<Fn&, const E&, std::size_t>)
            return std::invoke(fn, element, k);
        else
            return std::invoke(fn, element);
    }

    template <class Bindings, class Sink>
    constexpr void backward(const V& v, const T& adjoint, Sink& sink) const {
        sweep<Bindings, false>(v, adjoint, sink);
    }
    /// backward for an infinite or NaN adjoint: each partial multiplies it as a strong zero.
    template <class Bindings, class Sink>
    constexpr void backward_strong(const V& v, const T& adjoint, Sink& sink) const {
        sweep<Bindings, true>(v, adjoint, sink);
    }

private:
    template <class Bindings, bool Strong, class Sink>
    ZG_INLINE constexpr void sweep(const V& v, const T& adjoint, Sink& sink) const {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (add<I, Strong>(adjoint, sink), ...);
        }(std::make_index_sequence<arguments>{});
        if constexpr (detail::gathers_per_element<V>::value) {
            const detail::gathered_partial* gathered = detail::current_call->gathered.data();
            for (std::size_t i = gathered_begin; i < gathered_end; ++i)
                *gathered[i].adjoint += detail::times<Strong>(adjoint, gathered[i].partial);
        }
        std::array<slot_type, V::slots> scaled = slot_totals;
        if constexpr (V::slots != 0)
            for (slot_type& s : scaled) s = detail::times<Strong>(slot_type(adjoint), s);
        if constexpr (Strong)
            detail::propagate_strong<Bindings>(v, scaled.data(), sink);
        else
            v.template propagate<Bindings>(scaled.data(), sink);
    }

    template <std::size_t I, bool Strong, class Sink>
    constexpr void add(const T& adjoint, Sink& sink) const {
        if constexpr (Leaves.scalars >> I & 1)
            sink.target.template add_leaf<I>(detail::times<Strong>(adjoint, totals[I]));
        if constexpr (element_vectors >> I & 1) {
            // Reached by the top-level sweep, a claimant's partials stay where they are.
            if constexpr (requires { std::remove_cvref_t<decltype(sink.target)>::finishes_claims; })
                if (claimed) {
                    detail::vector_gradient& gradient = detail::current_call->gradients[I];
                    gradient.scale += adjoint;
                    gradient.swept = true;
                    if constexpr (Strong) gradient.strong = true;
                    return;
                }
            const std::size_t n = detail::current_call->lengths[I];
            for (std::size_t k = 0; k < n; ++k)
                sink.target.template add_element<I>(k,
                                                    detail::times<Strong>(adjoint, partials[I][k]));
        }
    }
};

/// sum_k fn(v_k), with fn's local partials kept from when the node was built.
template <class T, detail::leaf_set Leaves, class V>
struct mapped_sum_expr {
    static constexpr std::string_view name = "sum(v, fn)";
    using value_type = T;
    using kept_type = preaccumulation<T, Leaves, V>;
    // The call's scratch arena holds it even for functions of numbers alone; a copy of the tree
    // then copies a pointer, not a record whose fields were just written one at a time (g++
    // copies such records in 16-byte moves, which stall on those 8-byte stores).
    static constexpr bool uses_scratch = true;
    V v; // for its broadcast scalars, swept with the totals kept in `kept`
    value_type value{0};
    const kept_type* kept;

    template <class Fn>
    mapped_sum_expr(const V& v, Fn& fn) : v(v) {
        if (detail::current_call == nullptr) detail::throw_outside_grad(name);
        kept_type* record = detail::current_call->make<kept_type>();
        record->claimed = kept_type::claim();
        value = record->build(v, fn);
        kept = record;
    }
    template <class Bindings, class Sink>
    constexpr void backward(const value_type& adjoint, Sink& sink) const {
        kept->template backward<Bindings>(v, adjoint, sink);
    }
    template <class Bindings, class Sink>
    constexpr void backward_strong(const value_type& adjoint, Sink& sink) const {
        kept->template backward_strong<Bindings>(v, adjoint, sink);
    }
};

/// The sum of a vector's elements. Built at the top level of the lambda, over scalar leaves and
/// constants, over a zg::scan, or as the first node to reach its vector arguments, it sums as
/// sum(v, fn) does, with fn the identity, and keeps what that leaves in the call's scratch
/// arena. Otherwise (inside sum(v, fn), or over a vector argument an earlier node reaches) it
/// only adds up the values, and its sweep visits every element's expression with the adjoint
/// that arrives.
template <class V>
struct sum_expr {
    static constexpr std::string_view name = "sum";
    using value_type = typename V::value_type;
    static constexpr detail::leaf_set leaves = detail::leaves_of<V>::value;
    using kept_type = preaccumulation<value_type, leaves, V>;
    V v;
    value_type value{0};
    const kept_type* kept = nullptr;

    explicit sum_expr(const V& v) : v(v) {
        using detail::current_call;
        if constexpr (!detail::is_constant<decltype(v.element(0, nullptr))>::value) {
            // Over a scan, what is kept spares the sweep evaluating every element again; over
            // vector arguments, only a sum that claims their gradients keeps its partials.
            constexpr bool keeps_unclaimed =
                leaves.vectors == 0 || detail::gathers_per_element<V>::value;
            if (current_call != nullptr && current_call->building == 0 &&
                (keeps_unclaimed || kept_type::claim())) {
                kept_type* record = current_call->make<kept_type>();
                record->claimed = !keeps_unclaimed;
                auto identity = [](const auto& element) { return element; };
                value = record->build(v, identity);
                kept = record;
                return;
            }
        }
        detail::touch_gradients(leaves.vectors);
        // A short vector (a row of a regression's design matrix, summed once per element of
        // zg::sum(v, fn)) is summed here: the call would cost more than its additions.
        if (v.size() <= 16) {
            value_type total{0};
            for (std::size_t k = 0; k < v.size(); ++k) total += detail::element_value(v, k);
            value = total;
        } else {
            value = detail::sum_of_elements(v);
        }
    }

    template <class Bindings, class Sink>
    constexpr void backward(const value_type& adjoint, Sink& sink) const {
        if (kept != nullptr)
            kept->template backward<Bindings>(v, adjoint, sink);
        else
            detail::sweep_elements<Bindings>(
                v, sink, [&](std::size_t, const value_type&) { return adjoint; });
    }
    template <class Bindings, class Sink>
    constexpr void backward_strong(const value_type& adjoint, Sink& sink) const {
        if (kept != nullptr)
            kept->template backward_strong<Bindings>(v, adjoint, sink);
        else
            detail::sweep_elements<Bindings, false, true>(
                v, sink, [&](std::size_t, const value_type&) { return adjoint; });
    }
};

namespace detail {
template <class T, leaf_set Leaves, class V>
struct leaves_of<mapped_sum_expr<T, Leaves, V>> {
    static constexpr leaf_set value = Leaves;
};
} // namespace detail

// ---- The user's verbs ---------------------------------------------------------------------------

namespace detail {

/// A vector expression of expression mode.
template <class A>
concept vector_expression =
    Expression<A> && vector_node<typename std::remove_cvref_t<A>::tree_type>;

/// A range of doubles the lambda holds: a constant vector.
template <class A>
concept double_range = std::ranges::contiguous_range<A> && std::ranges::sized_range<A> &&
                       std::is_same_v<std::remove_cvref_t<std::ranges::range_value_t<A>>, double>;

template <class A>
concept vector_operand = vector_expression<A> || double_range<A>;

/// sum(v, fn) belongs to expression mode when v is a vector expression, or when v is a range of
/// doubles and fn of a double gives an expression (it uses the lambda's leaves).
template <class V, class Fn>
concept expression_map =
    vector_expression<V> ||
    (double_range<V> && (Expression<std::invoke_result_t<Fn&, const double&>> ||
                         Expression<std::invoke_result_t<Fn&, const double&, std::size_t>>));

template <class A>
constexpr auto as_vector(const A& a) {
    if constexpr (Expression<A>)
        return a;
    else
        return expression<vector_constant_expr<double>>{
            vector_constant_expr<double>{std::span<const double>(a)}, {}};
}

template <template <class> class Reduction, class A>
constexpr auto reduce(const A& a) {
    const auto v = as_vector(a);
    using tree = std::remove_cvref_t<decltype(v.tree)>;
    return expression<Reduction<tree>, decltype(v.bindings)>{Reduction<tree>(v.tree), v.bindings};
}

} // namespace detail

namespace detail {
/// A range of doubles meets an expression of doubles: under zg::hessian the leaves are dual
/// numbers, and a vector node mixing the two is not supported.
template <class E>
constexpr void check_range_partner() {
    static_assert(std::is_same_v<typename std::remove_cvref_t<E>::tree_type::value_type, double>,
                  "zg::hessian: a captured range of doubles in an elementwise operation with a "
                  "leaf is supported by zg::grad only; write zg::sum(data, fn) instead");
}
} // namespace detail

// Elementwise operations between an expression (a vector, or a scalar broadcast over the range)
// and a range of doubles (a constant vector, such as data the lambda captured). The node keeps a
// span of the range, so the range must outlive the zg::grad call: a temporary is refused at
// compile time.
#define ZG_EXPR_RANGE_BINARY(name, fn)                                                             \
    template <Expression L, detail::double_range R>                                                \
    constexpr auto name(const L& l, R&& r) {                                                       \
        static_assert(std::is_lvalue_reference_v<R> || std::ranges::borrowed_range<R>,            \
                      "zg::expr: a range of doubles in an elementwise operation must outlive "     \
                      "the zg::grad call; name it outside the lambda instead of a temporary");     \
        detail::check_range_partner<L>();                                                          \
        return apply(fn##_op{}, l, detail::as_vector(r));                                          \
    }                                                                                              \
    template <detail::double_range L, Expression R>                                                \
    constexpr auto name(L&& l, const R& r) {                                                       \
        static_assert(std::is_lvalue_reference_v<L> || std::ranges::borrowed_range<L>,            \
                      "zg::expr: a range of doubles in an elementwise operation must outlive "     \
                      "the zg::grad call; name it outside the lambda instead of a temporary");     \
        detail::check_range_partner<R>();                                                          \
        return apply(fn##_op{}, detail::as_vector(l), r);                                          \
    }
#define ZG_EXPR_RANGE_OPERATOR(fn, symbol) ZG_EXPR_RANGE_BINARY(operator symbol, fn)
#define ZG_EXPR_RANGE_FUNCTION(fn) ZG_EXPR_RANGE_BINARY(fn, fn)
ZG_BINARY_OPERATORS(ZG_EXPR_RANGE_OPERATOR)
ZG_BINARY_FUNCTIONS(ZG_EXPR_RANGE_FUNCTION)
#undef ZG_EXPR_RANGE_FUNCTION
#undef ZG_EXPR_RANGE_OPERATOR
#undef ZG_EXPR_RANGE_BINARY

/// The sum of a vector's elements: `zg::sum(v)`, `zg::sum(2.0 * v + w)`.
template <detail::vector_expression V>
constexpr auto sum(const V& v) {
    return detail::reduce<sum_expr>(v);
}

/// sum_k fn(v_k): map and reduce in one pass. fn is a generic lambda of one element (or of the
/// element and its index k); it may capture the lambda's leaves by reference. A range of doubles
/// is a constant vector, so `zg::sum(data, [&](auto y) { return square((y - mu) / sigma); })`
/// differentiates by mu and sigma.
template <class V, class Fn>
    requires detail::expression_map<V, Fn>
auto sum(const V& v, Fn fn) {
    const auto vector = detail::as_vector(v);
    using tree = std::remove_cvref_t<decltype(vector.tree)>;
    using T = typename tree::value_type;
    using probe = preaccumulation<T, detail::leaf_set{}, tree>;
    using result = decltype(probe::call(fn, probe::argument_for(vector.tree.element(0, nullptr)), 0));
    if constexpr (std::is_arithmetic_v<result>) {
        // fn gives a number (a constant term, as tape and forward mode allow): a constant node.
        return sum(v, [fn](const auto& element, std::size_t k) mutable {
            return detail::constant<T>(probe::call(fn, element, k));
        });
    } else {
        static_assert(Expression<result>,
                      "zg::sum(v, fn): fn must return a scalar expression of the element");
        static_assert(!detail::gathers_per_element<tree>::value,
                      "zg::sum(v, fn): v holds a zg::scan, whose states cannot be mapped by fn; "
                      "write the terms with elementwise operations, zg::sum(g(states))");
        constexpr detail::leaf_set leaves =
            detail::leaves_of<result>::value | detail::leaves_of<tree>::value;
        // fn's scalar type: dual numbers over a constant vector of doubles under zg::hessian.
        using node = mapped_sum_expr<typename result::value_type, leaves, tree>;
        return expression<node, decltype(vector.bindings)>{node(vector.tree, fn), vector.bindings};
    }
}

/// The product of a vector's elements.
template <detail::vector_expression V>
constexpr auto prod(const V& v) {
    return detail::reduce<prod_expr>(v);
}

/// log(sum(exp(v))), stable for large elements.
template <detail::vector_expression V>
constexpr auto log_sum_exp(const V& v) {
    return detail::reduce<log_sum_exp_expr>(v);
}

/// sum_k v_k w_k; either side may be a range of doubles.
template <detail::vector_operand V, detail::vector_operand W>
    requires(detail::vector_expression<V> || detail::vector_expression<W>)
constexpr auto dot(const V& v, const W& w) {
    return sum(detail::as_vector(v) * detail::as_vector(w));
}

/// The mean of a vector's elements.
template <detail::vector_expression V>
constexpr auto mean(const V& v) {
    const auto vector = detail::as_vector(v);
    return sum(vector) / static_cast<double>(vector.tree.size());
}

/// The Euclidean norm, sqrt(sum(v^2)), scaled as zg::detail::norm_scaling says: no overflow or
/// underflow for elements near 1e200 or 1e-200, gradient 0 at the zero vector.
template <detail::vector_expression V>
auto norm(const V& v) {
    const auto vector = detail::as_vector(v);
    double largest = 0;
    for (std::size_t k = 0; k < vector.tree.size(); ++k)
        largest = std::max(largest,
                           std::abs(zg::detail::primal(detail::element_value(vector.tree, k))));
    const auto [scale, inverse, guard] = zg::detail::norm_scaling_for(largest);
    return scale * sqrt(sum(square(vector * inverse)) + guard);
}

namespace detail {

template <class Node>
constexpr Node slice_node(const Node& node, std::size_t offset, std::size_t count) {
    if constexpr (!vector_node<Node>) {
        return node; // a broadcast scalar
    } else if constexpr (requires { node.sliced(offset, count); }) {
        return node.sliced(offset, count);
    } else if constexpr (requires { node.values; }) {
        Node sliced = node;
        sliced.values = node.values.subspan(offset, count);
        if constexpr (requires { node.offset; }) sliced.offset = node.offset + offset;
        return sliced;
    } else if constexpr (requires { node.l; }) {
        return Node(node.op, slice_node(node.l, offset, count), slice_node(node.r, offset, count));
    } else {
        return Node(node.op, slice_node(node.v, offset, count));
    }
}

} // namespace detail

/// Elements offset, ..., offset + count - 1 of a vector expression: `zg::slice(x, 1, n - 1)`
/// is x shifted by one, for sums over neighbours such as x_i x_{i+1}.
template <detail::vector_expression V>
constexpr auto slice(const V& v, std::size_t offset, std::size_t count) {
    if (offset + count > v.tree.size())
        throw shape_error("zg::slice: elements " + std::to_string(offset) + " to " +
                          std::to_string(offset + count) + " of a vector of size " +
                          std::to_string(v.tree.size()));
    using tree = std::remove_cvref_t<decltype(v.tree)>;
    return expression<tree, decltype(v.bindings)>{detail::slice_node(v.tree, offset, count),
                                                  v.bindings};
}

/// The number of elements of a vector expression.
template <class Tree, class Bindings>
    requires vector_node<Tree>
constexpr std::size_t size(const expression<Tree, Bindings>& v) {
    return v.tree.size();
}

} // namespace zg::expr


namespace zg {
// Next to the reductions over ranges of core/reductions.hpp, for vector expressions.
using expr::dot;
using expr::log_sum_exp;
using expr::mean;
using expr::norm;
using expr::prod;
using expr::slice;
using expr::sum;
} // namespace zg
