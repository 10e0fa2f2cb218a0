// zerograd/tape/expression.hpp: formulas, what operations on tape variables return. A formula
// computes its value at once and keeps the variables it reads; when it becomes a variable it is
// recorded as one tape node, a statement: its value, and per operand read the partial derivative
// of the whole formula by it, taken through the shared rules of core/rules.hpp.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/elementwise.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/tape/statements.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace zg::tape {

namespace detail {

using index_type = std::uint32_t;
inline constexpr index_type unrecorded = std::numeric_limits<index_type>::max();

/// The parts of a formula. Each holds its value (`result()`) and states: `leaves`, how many
/// variables it reads (each read has a slot, left to right); `partials<At, Strong>(adjoint,
/// operands, partials)`, which writes the slots from At on: each variable's node, and adjoint
/// times the partial by it (Strong: with strong zeros, zg::detail::chain); `may_be_nonfinite`,
/// whether a rule in it may give an infinite partial at finite values or overflow
/// (zg::unbounded_partials, zg::overflowing_values), so that its value is checked when recorded;
/// `root`, its outermost operation; and `describe`, its text.

// Each part copies member by member (user-provided constructors): a defaulted copy of a nested
// part is one block move through the stack, whose wide load stalls on the narrow stores that
// just wrote the fields, where member-wise copies stay in registers.

/// A variable read by a formula: its node and its value.
template <class T>
struct read_node {
    static constexpr std::size_t leaves = 1;
    static constexpr bool may_be_nonfinite = false;
    static constexpr op_id root = op_id::leaf;
    index_type index;
    T value;

    read_node() : index(0), value(0) {}
    ZG_INLINE read_node(index_type i, const T& v) : index(i), value(v) {}
    ZG_INLINE read_node(const read_node& o) : index(o.index), value(o.value) {}
    ZG_INLINE const T& result() const { return value; }
    template <std::size_t At, bool Strong>
    ZG_INLINE void partials(const T& adjoint, index_type* operands, T* partials) const {
        operands[At] = index;
        partials[At] = adjoint;
    }
    static void describe(std::string& out, std::size_t& leaf) {
        out += 'x' + std::to_string(leaf++);
    }
};

/// The chain rule's product inside a formula: with strong zeros (zg::detail::chain) where a
/// partial may be infinite or NaN, as a tape's sweep then multiplies.
template <bool Strong, class T>
ZG_INLINE T times(const T& adjoint, const T& partial) {
    if constexpr (Strong)
        return zg::detail::chain(adjoint, partial);
    else
        return adjoint * partial;
}

template <class Op>
inline constexpr bool nonfinite_rule = unbounded_partials<Op> || overflowing_values<Op>;

inline constexpr bool infix(op_id id) {
    return id == op_id::add || id == op_id::sub || id == op_id::mul || id == op_id::div;
}

/// A part's text as an argument of a call or a whole formula: without the parentheses an infix
/// operation puts around itself.
template <class X>
void describe_bare(std::string& out, std::size_t& leaf) {
    if constexpr (infix(X::root)) {
        std::string text;
        X::describe(text, leaf);
        out.append(text, 1, text.size() - 2);
    } else {
        X::describe(out, leaf);
    }
}

/// op(x).
template <class T, class Op, class X>
struct unary_node {
    static constexpr std::size_t leaves = X::leaves;
    static constexpr bool may_be_nonfinite = X::may_be_nonfinite || nonfinite_rule<Op>;
    static constexpr op_id root = id_of<Op>;
    [[no_unique_address]] Op op;
    X x;
    T value;
    T dx; // computed with the value: sin and cos together are one sincos

    unary_node() : op(), x(), value(0), dx(0) {}
    ZG_INLINE unary_node(const Op& o, X&& in)
        requires(!zg::detail::fused_rule<Op, T>)
        : op(o), x(std::move(in)), value(zg::detail::checked_value(o, x.result())),
          dx(o.dx(x.result(), value)) {}
    ZG_INLINE unary_node(const Op& o, X&& in) // value and partial from one call
        requires zg::detail::fused_rule<Op, T>
        : op(o), x(std::move(in)), value(0), dx(0) {
        const auto both = zg::detail::checked_value_and_dx(op, x.result());
        value = both.value;
        dx = both.dx;
    }
    ZG_INLINE unary_node(const unary_node& n) : op(n.op), x(n.x), value(n.value), dx(n.dx) {}
    ZG_INLINE const T& result() const { return value; }
    template <std::size_t At, bool Strong>
    ZG_INLINE void partials(const T& adjoint, index_type* operands, T* partials) const {
        x.template partials<At, Strong>(times<Strong>(adjoint, dx), operands, partials);
    }
    static void describe(std::string& out, std::size_t& leaf) {
        out += root == op_id::neg ? std::string("-(") : std::string(Op::name) + '(';
        describe_bare<X>(out, leaf);
        out += root == op_id::pown ? ", n)" : ")";
    }
};

/// op(l, r), with either side a constant (`constant_side<T>`) or a part that reads variables.
template <class T>
struct constant_side {
    static constexpr std::size_t leaves = 0;
    static constexpr bool may_be_nonfinite = false;
    static constexpr op_id root = op_id::leaf;
    T value;
    constant_side() : value(0) {}
    ZG_INLINE explicit constant_side(const T& v) : value(v) {}
    ZG_INLINE constant_side(const constant_side& o) : value(o.value) {}
    ZG_INLINE const T& result() const { return value; }
    template <std::size_t, bool>
    ZG_INLINE void partials(const T&, index_type*, T*) const {}
    static void describe(std::string& out, std::size_t&) { out += 'c'; }
};

template <class T, class Op, class L, class R>
struct binary_node {
    static constexpr std::size_t leaves = L::leaves + R::leaves;
    static constexpr bool may_be_nonfinite =
        L::may_be_nonfinite || R::may_be_nonfinite || nonfinite_rule<Op>;
    static constexpr op_id root = id_of<Op>;
    [[no_unique_address]] Op op;
    L l;
    R r;
    T value;

    binary_node() : op(), l(), r(), value(0) {}
    ZG_INLINE binary_node(const Op& o, L&& left, R&& right)
        : op(o), l(std::move(left)), r(std::move(right)),
          value(zg::detail::checked_value(o, l.result(), r.result())) {}
    ZG_INLINE binary_node(const binary_node& n) : op(n.op), l(n.l), r(n.r), value(n.value) {}
    ZG_INLINE const T& result() const { return value; }
    // Partials when recorded: mostly the operands themselves (+, -, *), which a stored copy would
    // only keep alive across the statement.
    template <std::size_t At, bool Strong>
    ZG_INLINE void partials(const T& adjoint, index_type* operands, T* partials) const {
        if constexpr (L::leaves != 0)
            l.template partials<At, Strong>(
                times<Strong>(adjoint, op.dl(l.result(), r.result(), value)), operands, partials);
        if constexpr (R::leaves != 0)
            r.template partials<At + L::leaves, Strong>(
                times<Strong>(adjoint, op.dr(l.result(), r.result(), value)), operands, partials);
    }
    static void describe(std::string& out, std::size_t& leaf) {
        if constexpr (infix(root)) {
            out += '(';
            L::describe(out, leaf);
            out += std::string(" ") + std::string(Op::name) + ' ';
            R::describe(out, leaf);
            out += ')';
        } else {
            out += std::string(Op::name) + '(';
            describe_bare<L>(out, leaf);
            out += ", ";
            describe_bare<R>(out, leaf);
            out += ')';
        }
    }
};

/// A formula used by a larger one, which holds it by value: its parts, or, once it was recorded
/// (a named formula moved, or rebound), its node in each of their slots (partial 0 after the
/// first).
template <class T, class Node>
struct formula_part {
    static constexpr std::size_t leaves = Node::leaves;
    static constexpr bool may_be_nonfinite = Node::may_be_nonfinite;
    static constexpr op_id root = Node::root;
    Node node;
    index_type index;

    formula_part() : node(), index(unrecorded) {}
    ZG_INLINE formula_part(const Node& n, index_type i) : node(n), index(i) {}
    ZG_INLINE formula_part(const formula_part& o) : node(o.node), index(o.index) {}
    ZG_INLINE const T& result() const { return node.value; }
    template <std::size_t At, bool Strong>
    ZG_INLINE void partials(const T& adjoint, index_type* operands, T* partials) const {
        if (index == unrecorded) [[likely]] {
            node.template partials<At, Strong>(adjoint, operands, partials);
        } else {
            for (std::size_t k = 0; k < leaves; ++k) {
                operands[At + k] = index;
                partials[At + k] = k == 0 ? adjoint : T(0);
            }
        }
    }
    static void describe(std::string& out, std::size_t& leaf) { Node::describe(out, leaf); }
};

/// A formula's text, for drawing.
template <class Node>
std::string formula_text() {
    std::string text;
    std::size_t leaf = 0;
    describe_bare<Node>(text, leaf);
    return text;
}

/// Whether a node is one of the library's operations on variables and constants: recorded as that
/// operation. (A user's operation is recorded as a statement, whose text keeps the rule's name.)
template <class Node>
inline constexpr bool single_operation = false;
template <class T, class Op>
inline constexpr bool single_operation<unary_node<T, Op, read_node<T>>> =
    id_of<Op> != op_id::function;
template <class T, class Op, class L, class R>
inline constexpr bool single_operation<binary_node<T, Op, L, R>> =
    id_of<Op> != op_id::function &&
    (std::is_same_v<L, read_node<T>> || std::is_same_v<L, constant_side<T>>) &&
    (std::is_same_v<R, read_node<T>> || std::is_same_v<R, constant_side<T>>);

/// The op byte a node records: its operation's, or its statement kind's, registered when a
/// formula of its shape is first recorded.
template <class Node>
ZG_INLINE std::uint8_t statement_op() {
    if constexpr (single_operation<Node>) {
        return std::uint8_t(Node::root);
    } else {
        static const std::uint8_t kind = register_statement(formula_text<Node>(), Node::root);
        return kind;
    }
}

template <class X>
inline constexpr bool is_tape_scalar = false;
template <class T>
inline constexpr bool is_tape_scalar<basic_var<T>> = true;
template <class T, class Node>
inline constexpr bool is_tape_scalar<expression<T, Node>> = true;

} // namespace detail

/// A zg::var or a formula of them.
template <class X>
concept tape_scalar = detail::is_tape_scalar<std::remove_cvref_t<X>>;
/// Two of them of one scalar type.
template <class L, class R>
concept tape_scalars = tape_scalar<L> && tape_scalar<R> &&
                       std::is_same_v<typename std::remove_cvref_t<L>::value_type,
                                      typename std::remove_cvref_t<R>::value_type>;

/// What an operation on zg::var returns: a formula, the expression of a statement on its way to
/// the tape. It holds its value (so it can be compared, printed and branched on) and the variables
/// it reads; it is recorded as one node when it becomes a zg::var (assigned to one, passed as one,
/// or used by name in another formula) or when asked for what only a node has (data(), grad(),
/// backward()). Named with `auto`, it acts as a variable does: copies share its node, and `+=`
/// rebinds it.
template <class T, class Node>
class expression {
public:
    using value_type = T;
    using tape_type = basic_tape<T>;
    using index_type = detail::index_type;
    /// What it becomes when recorded.
    using recorded_type = basic_var<T>;
    static_assert(Node::leaves >= 1 && Node::leaves <= tape_type::max_arity,
                  "zg::var formula: one statement reads at most 255 variables; assign part of it "
                  "to a zg::var first");

    ZG_INLINE expression(Node&& node, tape_type* tape)
        : node_(std::move(node)), tape_(tape), stamp_(tape->stamp()) {}

    /// A number, as a formula (an input on the calling thread's tape): `c ? a * b : 0.0`.
    expression(const T& number) : node_(), tape_(&this_thread_tape<T>()) {
        *this = basic_var<T>(*tape_, number);
    }
    /// A formula of another shape, recorded: a function `T f(const T& x)` called with a formula
    /// returns another formula as T. (So a conditional of two shapes, `c ? a * b : sin(a)`, is
    /// ambiguous: make one side a zg::var, or use zg::select.)
    template <class Other>
    expression(const expression<T, Other>& other) : node_(), tape_(nullptr) {
        *this = other.as_var();
    }

    /// Copies share one node: the formula is recorded first.
    expression(const expression& other) : node_(other.node_), tape_(other.tape_) {
        index_ = other.recorded_index();
        stamp_ = other.stamp_;
        rebound_ = other.rebound_;
    }
    ZG_INLINE expression(expression&& other) noexcept
        : node_(other.node_), tape_(other.tape_), index_(other.index_), stamp_(other.stamp_),
          rebound_(other.rebound_) {}
    /// As a part of a larger formula, once operand_tape() has checked it.
    ZG_INLINE detail::formula_part<T, Node> as_part() const {
        return detail::formula_part<T, Node>(node_, index_);
    }
    /// Rebinding, as a zg::var rebinds: the formula names the node given from now on (and its
    /// parts no longer compute it).
    expression& operator=(const basic_var<T>& v) {
        tape_ = &v.tape(); // throws zg::dangling_var for a reclaimed node
        index_ = v.index();
        stamp_ = detail::var_access::stamp(v);
        node_.value = tape_->value(index_);
        rebound_ = true;
        return *this;
    }
    expression& operator=(const expression& other) { return *this = basic_var<T>(other); }
    template <class Other>
    expression& operator=(const expression<T, Other>& other) {
        return *this = basic_var<T>(other);
    }
    expression& operator=(const T& value) { return *this = basic_var<T>(value); }

    /// The value it computed, without recording; data() is its node's, a reference.
    ZG_INLINE const T& value() const { return node_.value; }
    T& data() const { return as_var().data(); }
    T& grad() const { return as_var().grad(); }
    op_id op() const { return as_var().op(); }
    void backward() const { as_var().backward(); }
    tape_type& tape() const { return as_var().tape(); }
    index_type index() const { return recorded_index(); }

    template <class R>
    expression& operator+=(R&& r) {
        return *this = basic_var<T>(*this + std::forward<R>(r));
    }
    template <class R>
    expression& operator-=(R&& r) {
        return *this = basic_var<T>(*this - std::forward<R>(r));
    }
    template <class R>
    expression& operator*=(R&& r) {
        return *this = basic_var<T>(*this * std::forward<R>(r));
    }
    template <class R>
    expression& operator/=(R&& r) {
        return *this = basic_var<T>(*this / std::forward<R>(r));
    }

    /// Records the formula (once) and names its node.
    ZG_INLINE basic_var<T> as_var() const {
        const index_type i = recorded_index();
        return detail::var_access::at(*tape_, i, stamp_);
    }

    /// The tape it reads from, as an operand of another formula: what it reads, or its node, must
    /// still be there (a formula may outlive the scope it was recorded in).
    ZG_INLINE tape_type* operand_tape() const {
        if (stamp_ != tape_->stamp()) [[unlikely]]
            refresh();
        return tape_;
    }

    /// Its node, recorded now if it was not yet.
    ZG_INLINE index_type recorded_index() const {
        if (index_ != detail::unrecorded && stamp_ != tape_->stamp()) [[unlikely]]
            refresh();
        if (index_ == detail::unrecorded) index_ = record(); // record() checks stamp_ itself
        return index_;
    }

private:
    /// After a rewind: a recorded node that was reclaimed is recorded again from the formula's
    /// parts (as a formula named outside a scope and first recorded inside it is, step after
    /// step); a rebound one, whose parts no longer compute it, is dangling; the variables an
    /// unrecorded one reads must be alive.
    [[gnu::cold, gnu::noinline]] void refresh() const {
        if (index_ != detail::unrecorded && !tape_->holds(index_, stamp_)) {
            if (rebound_) detail::var_access::throw_dangling<T>(index_);
            index_ = detail::unrecorded;
        }
        if (index_ == detail::unrecorded) check_leaves_alive();
        stamp_ = tape_->stamp();
    }

    /// Records the formula as one node: each slot's partial, computed back from the root.
    ZG_INLINE index_type record() const {
        tape_type& tape = *tape_;
        if (!tape.on_this_thread()) [[unlikely]]
            detail::var_access::throw_other_thread<T>("=");
        constexpr std::size_t n = Node::leaves;
        index_type operands[n];
        T partials[n];
        // Plain products: where the partials and the value all come out finite, they are what
        // strong zeros (zg::detail::chain, as the sweep multiplies across nodes) give, up to the
        // sign of a zero; otherwise record_apart() computes them again with strong zeros.
        node_.template partials<0, false>(T(1), operands, partials);
        // The rare cases (growing, a rewind since the formula was made, a partial or a value that
        // is not finite: 1 / 0, an infinite input) in a call after which nothing is left to do:
        // on the common path the values stay in registers instead of being saved around a call.
        if (stamp_ != tape.stamp() || !tape.has_room(n) || !all_finite(partials) ||
            (Node::may_be_nonfinite && !zg::detail::is_finite(node_.value))) [[unlikely]]
            return record_apart();
        return push(operands, partials);
    }

    /// record()'s rare cases: checks what a rewind may have reclaimed, makes room, and multiplies
    /// with strong zeros, so that a zero inside the formula is not lost to an infinite partial
    /// (relu(-1 / x) at x = 0 has derivative 0, as across separate nodes, where the sweep skips a
    /// zero adjoint), and notes what is not finite for the sweep.
    [[gnu::noinline, gnu::cold]] index_type record_apart() const {
        tape_type& tape = *tape_;
        if (stamp_ != tape.stamp()) {
            check_leaves_alive();
            stamp_ = tape.stamp();
        }
        tape.make_room(Node::leaves);
        index_type operands[Node::leaves];
        T partials[Node::leaves];
        node_.template partials<0, true>(T(1), operands, partials);
        const index_type i = push(operands, partials);
        tape.note_nonfinite(i, node_.value);
        for (const T& partial : partials)
            tape.note_nonfinite(i, partial);
        return i;
    }

    ZG_INLINE static bool all_finite(const T (&partials)[Node::leaves]) {
        bool finite = true;
        for (const T& partial : partials)
            finite &= zg::detail::is_finite(partial);
        return finite;
    }

    ZG_INLINE index_type push(const index_type (&operands)[Node::leaves],
                              const T (&partials)[Node::leaves]) const {
        tape_type& tape = *tape_;
        return tape.template record_statement<Node::leaves>(detail::statement_op<Node>(),
                                                            node_.value, operands, partials);
    }

    // A rewind since the formula was made may have reclaimed a variable it reads.
    [[gnu::cold, gnu::noinline]] void check_leaves_alive() const {
        constexpr std::size_t n = Node::leaves;
        index_type operands[n];
        T partials[n];
        node_.template partials<0, false>(T(1), operands, partials);
        for (index_type i : operands)
            if (!tape_->holds(i, stamp_))
                detail::var_access::throw_dangling<T>(i);
    }

    Node node_;
    tape_type* tape_;
    mutable index_type index_ = detail::unrecorded;
    mutable std::uint32_t stamp_ = 0;
    bool rebound_ = false; // named another node by assignment: node_ no longer computes it
};

namespace detail {

/// The tape an operand is recorded on, checked: a variable's must be alive (and, for the first
/// operand, the calling thread's); a formula's was checked when it was made.
template <bool First, class X>
ZG_INLINE auto* operand_tape(const X& x, std::string_view operation) {
    if constexpr (requires { x.operand_tape(); })
        return x.operand_tape();
    else if constexpr (First)
        return &var_access::recording_tape(x, operation);
    else
        return &var_access::checked_tape(x);
}

/// An operand as a part of a formula: a variable, or a formula named elsewhere (recorded now),
/// is read; a formula made for this one is taken in whole.
template <class X>
ZG_INLINE auto part(X&& x) {
    using D = std::remove_cvref_t<X>;
    using T = typename D::value_type;
    if constexpr (requires { x.operand_tape(); } && !std::is_lvalue_reference_v<X>) {
        return x.as_part();
    } else if constexpr (requires { x.operand_tape(); }) {
        const auto i = x.recorded_index();
        return read_node<T>(i, x.value());
    } else {
        return read_node<T>(x.index(), var_access::value(x));
    }
}

template <class T, class Node>
ZG_INLINE auto formula(Node&& node, basic_tape<T>* tape) {
    return expression<T, Node>(std::move(node), tape);
}

template <class Op, class X>
ZG_INLINE auto apply(const Op& op, X&& x) {
    using T = typename std::remove_cvref_t<X>::value_type;
    basic_tape<T>* tape = operand_tape<true>(x, Op::name);
    auto p = part(std::forward<X>(x));
    return formula<T>(unary_node<T, Op, decltype(p)>(op, std::move(p)), tape);
}

template <class Op, class L, class R>
ZG_INLINE auto apply(const Op& op, L&& l, R&& r) {
    using T = typename std::remove_cvref_t<L>::value_type;
    basic_tape<T>* tape = operand_tape<true>(l, Op::name);
    if (operand_tape<false>(r, Op::name) != tape) [[unlikely]]
        var_access::throw_two_tapes<T>(Op::name);
    auto lp = part(std::forward<L>(l));
    auto rp = part(std::forward<R>(r));
    return formula<T>(binary_node<T, Op, decltype(lp), decltype(rp)>(op, std::move(lp),
                                                                     std::move(rp)),
                      tape);
}

template <class Op, class L, class T>
ZG_INLINE auto apply_constant_right(const Op& op, L&& l, const T& r) {
    basic_tape<T>* tape = operand_tape<true>(l, Op::name);
    auto lp = part(std::forward<L>(l));
    return formula<T>(binary_node<T, Op, decltype(lp), constant_side<T>>(op, std::move(lp),
                                                                         constant_side<T>(r)),
                      tape);
}

template <class Op, class T, class R>
ZG_INLINE auto apply_constant_left(const Op& op, const T& l, R&& r) {
    basic_tape<T>* tape = operand_tape<true>(r, Op::name);
    auto rp = part(std::forward<R>(r));
    return formula<T>(binary_node<T, Op, constant_side<T>, decltype(rp)>(op, constant_side<T>(l),
                                                                         std::move(rp)),
                      tape);
}

template <class X>
using scalar_of = typename std::remove_cvref_t<X>::value_type;

} // namespace detail

// ---- Operations, each from its rule in core/rules.hpp -----------------------------------------
// On variables and formulas; the plain-number side is std::type_identity_t of the scalar type so
// that it takes part in no deduction and converts (2 * x + 1 works with int literals).

/// A rule on variables and formulas: every operation below, and a user's (zg::function,
/// core/function.hpp).
template <class Rule, tape_scalar X>
ZG_INLINE auto apply_rule(const Rule& rule, X&& x) {
    return detail::apply(rule, std::forward<X>(x));
}
template <class Rule, class L, class R>
    requires tape_scalars<L, R>
ZG_INLINE auto apply_rule(const Rule& rule, L&& l, R&& r) {
    return detail::apply(rule, std::forward<L>(l), std::forward<R>(r));
}
template <class Rule, tape_scalar L>
ZG_INLINE auto apply_rule(const Rule& rule, L&& l,
                          const std::type_identity_t<detail::scalar_of<L>>& r) {
    return detail::apply_constant_right(rule, std::forward<L>(l), r);
}
template <class Rule, tape_scalar R>
ZG_INLINE auto apply_rule(const Rule& rule, const std::type_identity_t<detail::scalar_of<R>>& l,
                          R&& r) {
    return detail::apply_constant_left(rule, l, std::forward<R>(r));
}

template <tape_scalar X>
auto operator+(X&& x) {
    return std::remove_cvref_t<X>(std::forward<X>(x));
}
template <tape_scalar X>
auto operator-(X&& x) {
    return apply_rule(neg_op{}, std::forward<X>(x));
}

#define ZG_TAPE_BINARY_OPERATOR(fn, symbol)                                                        \
    template <class L, class R>                                                                    \
        requires tape_scalars<L, R>                                                                \
    ZG_INLINE auto operator symbol(L&& l, R&& r) {                                                 \
        return apply_rule(fn##_op{}, std::forward<L>(l), std::forward<R>(r));                      \
    }                                                                                              \
    template <tape_scalar L>                                                                       \
    ZG_INLINE auto operator symbol(L&& l, const std::type_identity_t<detail::scalar_of<L>>& r) {   \
        return apply_rule(fn##_op{}, std::forward<L>(l), r);                                       \
    }                                                                                              \
    template <tape_scalar R>                                                                       \
    ZG_INLINE auto operator symbol(const std::type_identity_t<detail::scalar_of<R>>& l, R&& r) {   \
        return apply_rule(fn##_op{}, l, std::forward<R>(r));                                       \
    }
ZG_BINARY_OPERATORS(ZG_TAPE_BINARY_OPERATOR)
#undef ZG_TAPE_BINARY_OPERATOR

// The named functions take their operands by type: a variable, a formula named elsewhere, a
// formula made for the call. Partial ordering then prefers them to a user's unconstrained
// function template of the same name (`template <class T> T sigmoid(T x)` in generic code
// written for any scalar type), which a forwarding reference would tie with: the call is not
// ambiguous, and the library's rule computes it.
#define ZG_TAPE_PARAMETERS_var(N)
#define ZG_TAPE_PARAMETERS_named(N) , class N
#define ZG_TAPE_PARAMETERS_made(N) , class N
#define ZG_TAPE_OPERAND_var(N) const basic_var<T>&
#define ZG_TAPE_OPERAND_named(N) const expression<T, N>&
#define ZG_TAPE_OPERAND_made(N) expression<T, N>&&
#define ZG_TAPE_FORMS(X, ...) X(var, __VA_ARGS__) X(named, __VA_ARGS__) X(made, __VA_ARGS__)
// (a second name for nesting: a macro does not expand inside its own expansion)
#define ZG_TAPE_RIGHT_FORMS(X, ...) X(var, __VA_ARGS__) X(named, __VA_ARGS__) X(made, __VA_ARGS__)

#define ZG_TAPE_UNARY_FORM(form, fn)                                                               \
    template <class T ZG_TAPE_PARAMETERS_##form(N)>                                                \
    ZG_INLINE auto fn(ZG_TAPE_OPERAND_##form(N) x) {                                               \
        return apply_rule(fn##_op{}, std::forward<ZG_TAPE_OPERAND_##form(N)>(x));                  \
    }
#define ZG_TAPE_UNARY_FUNCTION(fn) ZG_TAPE_FORMS(ZG_TAPE_UNARY_FORM, fn)
ZG_UNARY_FUNCTIONS(ZG_TAPE_UNARY_FUNCTION)
#undef ZG_TAPE_UNARY_FUNCTION
#undef ZG_TAPE_UNARY_FORM

#define ZG_TAPE_BINARY_FORMS(right, left, fn)                                                      \
    template <class T ZG_TAPE_PARAMETERS_##left(L) ZG_TAPE_PARAMETERS_##right(R)>                  \
    ZG_INLINE auto fn(ZG_TAPE_OPERAND_##left(L) l, ZG_TAPE_OPERAND_##right(R) r) {                 \
        return apply_rule(fn##_op{}, std::forward<ZG_TAPE_OPERAND_##left(L)>(l),                   \
                          std::forward<ZG_TAPE_OPERAND_##right(R)>(r));                            \
    }
#define ZG_TAPE_BINARY_WITH_NUMBER(form, fn)                                                       \
    template <class T ZG_TAPE_PARAMETERS_##form(N)>                                                \
    ZG_INLINE auto fn(ZG_TAPE_OPERAND_##form(N) l, const std::type_identity_t<T>& r) {             \
        return apply_rule(fn##_op{}, std::forward<ZG_TAPE_OPERAND_##form(N)>(l), r);               \
    }                                                                                              \
    template <class T ZG_TAPE_PARAMETERS_##form(N)>                                                \
    ZG_INLINE auto fn(const std::type_identity_t<T>& l, ZG_TAPE_OPERAND_##form(N) r) {             \
        return apply_rule(fn##_op{}, l, std::forward<ZG_TAPE_OPERAND_##form(N)>(r));               \
    }
// Two formulas of one shape: more specialized than a user's `template <class T> T max(T, T)`,
// which ties with the forms above, each of which is more specialized in another operand.
#define ZG_TAPE_SAME_SHAPE(right, left, fn)                                                        \
    template <class T, class N>                                                                    \
    ZG_INLINE auto fn(ZG_TAPE_OPERAND_##left(N) l, ZG_TAPE_OPERAND_##right(N) r) {                 \
        return apply_rule(fn##_op{}, std::forward<ZG_TAPE_OPERAND_##left(N)>(l),                   \
                          std::forward<ZG_TAPE_OPERAND_##right(N)>(r));                            \
    }
#define ZG_TAPE_SAME_SHAPE_LEFT(left, fn)                                                          \
    ZG_TAPE_SAME_SHAPE(named, left, fn) ZG_TAPE_SAME_SHAPE(made, left, fn)
#define ZG_TAPE_BINARY_LEFT(left, fn) ZG_TAPE_RIGHT_FORMS(ZG_TAPE_BINARY_FORMS, left, fn)
#define ZG_TAPE_BINARY_FUNCTION(fn)                                                                \
    ZG_TAPE_FORMS(ZG_TAPE_BINARY_LEFT, fn) ZG_TAPE_FORMS(ZG_TAPE_BINARY_WITH_NUMBER, fn)            \
    ZG_TAPE_SAME_SHAPE_LEFT(named, fn) ZG_TAPE_SAME_SHAPE_LEFT(made, fn)
ZG_BINARY_FUNCTIONS(ZG_TAPE_BINARY_FUNCTION)
#undef ZG_TAPE_BINARY_FUNCTION
#undef ZG_TAPE_BINARY_LEFT
#undef ZG_TAPE_SAME_SHAPE_LEFT
#undef ZG_TAPE_SAME_SHAPE
#undef ZG_TAPE_BINARY_WITH_NUMBER
#undef ZG_TAPE_BINARY_FORMS

/// x^n for an integer n: exact, and the exponent is not a variable. A template on the integer
/// type, so that `pow(x, 0.5)` on a basic_var<zg::dual> takes the overload above (converting 0.5
/// to the dual) instead of this one (converting 0.5 to int, a standard conversion).
#define ZG_TAPE_INTEGER_POWER(form, ...)                                                           \
    template <class T ZG_TAPE_PARAMETERS_##form(N), std::integral I>                               \
    ZG_INLINE auto pow(ZG_TAPE_OPERAND_##form(N) x, I n) {                                         \
        return apply_rule(pown_op::of(n), std::forward<ZG_TAPE_OPERAND_##form(N)>(x));             \
    }
ZG_TAPE_FORMS(ZG_TAPE_INTEGER_POWER, )
#undef ZG_TAPE_INTEGER_POWER
#undef ZG_TAPE_RIGHT_FORMS
#undef ZG_TAPE_FORMS
#undef ZG_TAPE_OPERAND_made
#undef ZG_TAPE_OPERAND_named
#undef ZG_TAPE_OPERAND_var
#undef ZG_TAPE_PARAMETERS_made
#undef ZG_TAPE_PARAMETERS_named
#undef ZG_TAPE_PARAMETERS_var

// ---- Comparisons look at values, so branches and loops work -----------------------------------

namespace detail {
template <class X>
ZG_INLINE auto compared_value(const X& x) {
    if constexpr (requires { x.operand_tape(); })
        return x.value();
    else
        return x.data();
}
} // namespace detail

template <class L, class R>
    requires tape_scalars<L, R>
bool operator==(const L& l, const R& r) {
    return detail::compared_value(l) == detail::compared_value(r);
}
template <class L, class R>
    requires tape_scalars<L, R>
auto operator<=>(const L& l, const R& r) {
    return detail::compared_value(l) <=> detail::compared_value(r);
}
template <tape_scalar L>
bool operator==(const L& l, const std::type_identity_t<detail::scalar_of<L>>& r) {
    return detail::compared_value(l) == r;
}
template <tape_scalar L>
auto operator<=>(const L& l, const std::type_identity_t<detail::scalar_of<L>>& r) {
    return detail::compared_value(l) <=> r;
}

/// Prints like micrograd's Value: `var(data=-8, grad=1)`; a formula is recorded first.
template <tape_scalar X>
std::ostream& operator<<(std::ostream& out, const X& x) {
    return out << "var(data=" << x.data() << ", grad=" << x.grad() << ')';
}

/// A formula bound to a name once: as a zg::var, so every use reads its one node.
template <class T, class Node>
basic_var<T> let(const expression<T, Node>& e) {
    return e.as_var();
}

// Elementwise operations on a std::span or std::vector of variables (core/elementwise.hpp).
ZG_ELEMENTWISE_ON_RANGES

} // namespace zg::tape

namespace zg::elementwise {
template <class T>
inline constexpr bool enabled<tape::basic_var<T>> = true;
} // namespace zg::elementwise

namespace zg {
// zg::sin(x) works too, beside sin(x) found by argument-dependent lookup.
#define ZG_USING_TAPE_FUNCTION(fn) using ::zg::tape::fn;
ZG_UNARY_FUNCTIONS(ZG_USING_TAPE_FUNCTION)
ZG_BINARY_FUNCTIONS(ZG_USING_TAPE_FUNCTION)
using tape::let;
} // namespace zg

// std::exp(x) works too: generic code written for any scalar type calls the elementary functions
// qualified as often as not (ADBench's objectives do), and the taping libraries make it work the
// same way, by adding their overloads to namespace std (which the standard does not sanction, and
// every compiler takes). A qualified name is looked up where a template is defined: generic code
// sees these if it comes after a zerograd header.
namespace std {
ZG_STD_FUNCTIONS(ZG_USING_TAPE_FUNCTION)
} // namespace std
#undef ZG_USING_TAPE_FUNCTION
