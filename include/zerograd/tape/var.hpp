// zerograd/tape/var.hpp: basic_var, a handle to a node on a tape, and every elementary operation
// on it (recorded through the shared rules of core/rules.hpp).
#pragma once

#include "zerograd/core/elementwise.hpp"
#include "zerograd/core/error.hpp"
#include "zerograd/core/let.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"

#include <compare>
#include <concepts> // std::integral
#include <cstdint>
#include <ostream>
#include <string> // messages of errors
#include <string_view>
#include <type_traits>

namespace zg::tape {

namespace detail {
struct var_access;
} // namespace detail

/// A scalar whose operations are recorded on a tape, micrograd's Value grown up: `data()` and
/// `grad()` are the node's value and adjoint, `backward()` runs the reverse sweep.
///
/// A basic_var is a 16-byte handle: copying it names the same node, and `x += y` rebinds x to a
/// new node. Operations record on their operands' tape; a variable made from a number records
/// on the calling thread's tape, and each thread operates only on its own tape's variables (others
/// are a zg::error). The references from `data()` and `grad()` stay valid as long as the node
/// lives, however much the tape grows: its values and adjoints never move.
///
///     zg::var a = 2.0, b = -3.0;
///     zg::var d = tanh(a * b + pow(a, 2));
///     d.backward();   // a.grad() == 1 - tanh(-2)^2 = 0.0707, times b + 2a = 1: 0.0707
template <class T>
class basic_var {
public:
    using value_type = T;
    using tape_type = basic_tape<T>;
    using index_type = typename tape_type::index_type;

    /// A constant zero on the calling thread's tape.
    basic_var() : basic_var(T(0)) {}
    /// An input (leaf) holding `value`, on the calling thread's tape.
    basic_var(const T& value) : basic_var(this_thread_tape<T>(), value) {}
    template <class U>
    requires std::is_arithmetic_v<U> &&(!std::is_same_v<U, T>)basic_var(U value)
        : basic_var(T(value)) {}
    /// An input holding `value` on the given tape, which must be the calling thread's.
    basic_var(tape_type& tape, const T& value)
        : tape_(&tape), index_(this_threads(tape, "a leaf").record_leaf(value)),
          stamp_(tape.stamp()) {}

    /// The node's value; assigning to a leaf's data changes the input (a parameter update).
    T& data() const { return checked_tape().value(index_); }
    /// The node's adjoint, dL/d(this node) after L.backward().
    T& grad() const { return checked_tape().adjoint(index_); }
    /// The operation that produced this node (op_id::leaf for inputs).
    op_id op() const { return checked_tape().op(index_); }

    /// Seeds this node's gradient with 1 and accumulates (+=) into every ancestor, walking the
    /// tape in reverse recording order.
    void backward() const { recording_tape("backward").backward(index_); }

    /// The tape this node lives on, and its position there.
    tape_type& tape() const { return checked_tape(); }
    index_type index() const { return index_; }

    basic_var& operator+=(const basic_var& r) { return *this = *this + r; }
    basic_var& operator-=(const basic_var& r) { return *this = *this - r; }
    basic_var& operator*=(const basic_var& r) { return *this = *this * r; }
    basic_var& operator/=(const basic_var& r) { return *this = *this / r; }
    basic_var& operator+=(const T& r) { return *this = *this + r; }
    basic_var& operator-=(const T& r) { return *this = *this - r; }
    basic_var& operator*=(const T& r) { return *this = *this * r; }
    basic_var& operator/=(const T& r) { return *this = *this / r; }

    /// Records y = op(x); the rule gives the value and the local partial.
    template <class Op>
    friend basic_var record(const Op& op, const basic_var& x) {
        tape_type& tape = x.recording_tape(Op::name);
        make_room(tape, 1);
        const T xv = tape.value(x.index_);
        const T y = zg::detail::checked_value(op, xv);
        const T dx = op.dx(xv, y);
        return noted<Op>(tape, push_node(tape, Op::id, y, x.index_, dx), y, dx);
    }

    /// Records y = op(l, r) for two variables on the same tape.
    template <class Op>
    friend basic_var record(const Op& op, const basic_var& l, const basic_var& r) {
        tape_type& tape = l.recording_tape(Op::name);
        if (&tape != &r.checked_tape()) [[unlikely]]
            throw_two_tapes(Op::name);
        make_room(tape, 2);
        const T lv = tape.value(l.index_), rv = tape.value(r.index_);
        const T y = zg::detail::checked_value(op, lv, rv);
        const T dl = op.dl(lv, rv, y), dr = op.dr(lv, rv, y);
        return noted<Op>(tape, push_node(tape, Op::id, y, l.index_, dl, r.index_, dr), y, dl, dr);
    }

    /// Records y = op(l, r) with r a constant: only dy/dl is computed.
    template <class Op>
    friend basic_var record(const Op& op, const basic_var& l, const T r) {
        tape_type& tape = l.recording_tape(Op::name);
        make_room(tape, 1);
        const T lv = tape.value(l.index_);
        const T y = zg::detail::checked_value(op, lv, r);
        const T dl = op.dl(lv, r, y);
        return noted<Op>(tape, push_node(tape, Op::id, y, l.index_, dl), y, dl);
    }

    /// Records y = op(l, r) with l a constant: only dy/dr is computed.
    template <class Op>
    friend basic_var record(const Op& op, const T l, const basic_var& r) {
        tape_type& tape = r.recording_tape(Op::name);
        make_room(tape, 1);
        const T rv = tape.value(r.index_);
        const T y = zg::detail::checked_value(op, l, rv);
        const T dr = op.dr(l, rv, y);
        return noted<Op>(tape, push_node(tape, Op::id, y, r.index_, dr), y, dr);
    }

private:
    basic_var(tape_type& tape, index_type index)
        : tape_(&tape), index_(index), stamp_(tape.stamp()) {}

    friend struct detail::var_access;

    // The tape's recording of one node, which needs room made first (see basic_tape).
    static void make_room(tape_type& tape, std::size_t arity) { tape.make_room(arity); }
    template <class... Node>
    static index_type push_node(tape_type& tape, const Node&... node) {
        return tape.record(node...);
    }

    /// The variable of node i, just recorded by rule Op with value y and these partials: the
    /// tape notes, for its sweeps, the partials of a rule whose partials may be infinite at
    /// finite values (zg::unbounded_partials) and the value of one that overflows
    /// (zg::overflowing_values): the partials of its users may be infinite too.
    template <class Op, class... Partials>
    static basic_var noted(tape_type& tape, index_type i, const T& y, const Partials&... partials) {
        if constexpr (unbounded_partials<Op>) tape.note_nonfinite(i, partials...);
        if constexpr (overflowing_values<Op>) tape.note_nonfinite(i, y);
        return basic_var(tape, i);
    }

    // Variables recorded since the tape's last rewind are alive without looking at their node;
    // older ones (a model's parameters) compare their stamp with the node's.
    tape_type& checked_tape() const {
        if (stamp_ != tape_->stamp() && !tape_->holds(index_, stamp_)) [[unlikely]]
            throw_dangling(index_);
        return *tape_;
    }

    // The tape an operation on this variable records on: its own, which must be the calling
    // thread's (another thread's tape would be written by two threads at once).
    tape_type& recording_tape(std::string_view operation) const {
        return this_threads(checked_tape(), operation);
    }
    static tape_type& this_threads(tape_type& tape, std::string_view operation) {
        if (!tape.on_this_thread()) [[unlikely]]
            throw_other_thread(operation);
        return tape;
    }

    // The error paths, cold and out of line: every operation checks, and carries only a call.
    [[noreturn, gnu::cold, gnu::noinline]] static void throw_other_thread(std::string_view op) {
        tape_type::throw_other_thread("zg::tape: operation " + std::string(op) +
                                      " on a variable of");
    }

    [[noreturn, gnu::cold, gnu::noinline]] static void throw_dangling(index_type index) {
        throw dangling_var("zg::dangling_var: this zg::var names node " + std::to_string(index) +
                           ", which was reclaimed when its zg::tape::scope or its thread ended");
    }

    [[noreturn, gnu::cold, gnu::noinline]] static void throw_two_tapes(std::string_view op) {
        throw error("zg::tape: operation " + std::string(op) +
                    " mixes variables of two tapes (two threads?); each thread must make its own "
                    "variables");
    }

    tape_type* tape_;
    index_type index_;
    std::uint32_t stamp_;
};

using var = basic_var<double>;

namespace detail {
/// Lets zg::tape::grad make its leaves in one recording instead of one at a time.
struct var_access {
    template <class T>
    static basic_var<T> at(basic_tape<T>& tape, typename basic_tape<T>::index_type index) {
        return basic_var<T>(tape, index);
    }
};
} // namespace detail

// ---- Operations, each from its rule in core/rules.hpp -----------------------------------------
// The plain-number side is std::type_identity_t<T> so that it takes part in no deduction and
// converts (2 * x + 1 works with int literals).

template <class T>
basic_var<T> operator+(const basic_var<T>& x) {
    return x;
}
template <class T>
basic_var<T> operator-(const basic_var<T>& x) {
    return record(neg_op{}, x);
}

#define ZG_TAPE_BINARY_OPERATOR(fn, symbol)                                                        \
    template <class T>                                                                             \
    basic_var<T> operator symbol(const basic_var<T>& l, const basic_var<T>& r) {                   \
        return record(fn##_op{}, l, r);                                                            \
    }                                                                                              \
    template <class T>                                                                             \
    basic_var<T> operator symbol(const basic_var<T>& l, const std::type_identity_t<T>& r) {        \
        return record(fn##_op{}, l, r);                                                            \
    }                                                                                              \
    template <class T>                                                                             \
    basic_var<T> operator symbol(const std::type_identity_t<T>& l, const basic_var<T>& r) {        \
        return record(fn##_op{}, l, r);                                                            \
    }
ZG_BINARY_OPERATORS(ZG_TAPE_BINARY_OPERATOR)
#undef ZG_TAPE_BINARY_OPERATOR

#define ZG_TAPE_UNARY_FUNCTION(fn)                                                                 \
    template <class T>                                                                             \
    basic_var<T> fn(const basic_var<T>& x) {                                                       \
        return record(fn##_op{}, x);                                                               \
    }
ZG_UNARY_FUNCTIONS(ZG_TAPE_UNARY_FUNCTION)
#undef ZG_TAPE_UNARY_FUNCTION

#define ZG_TAPE_BINARY_FUNCTION(fn)                                                                \
    template <class T>                                                                             \
    basic_var<T> fn(const basic_var<T>& l, const basic_var<T>& r) {                                \
        return record(fn##_op{}, l, r);                                                            \
    }                                                                                              \
    template <class T>                                                                             \
    basic_var<T> fn(const basic_var<T>& l, const std::type_identity_t<T>& r) {                     \
        return record(fn##_op{}, l, r);                                                            \
    }                                                                                              \
    template <class T>                                                                             \
    basic_var<T> fn(const std::type_identity_t<T>& l, const basic_var<T>& r) {                     \
        return record(fn##_op{}, l, r);                                                            \
    }
ZG_BINARY_FUNCTIONS(ZG_TAPE_BINARY_FUNCTION)
#undef ZG_TAPE_BINARY_FUNCTION

/// x^n for an integer n: exact, and the exponent is not a variable. A template on the integer
/// type, so that `pow(x, 0.5)` on a basic_var<zg::dual> takes the overload above (converting 0.5
/// to the dual) instead of this one (converting 0.5 to int, a standard conversion).
template <class T, std::integral I>
basic_var<T> pow(const basic_var<T>& x, I n) {
    return record(pown_op::of(n), x);
}

// ---- Comparisons look at data, so branches and loops work -------------------------------------

template <class T>
bool operator==(const basic_var<T>& l, const basic_var<T>& r) {
    return l.data() == r.data();
}
template <class T>
auto operator<=>(const basic_var<T>& l, const basic_var<T>& r) {
    return l.data() <=> r.data();
}
template <class T>
bool operator==(const basic_var<T>& l, const std::type_identity_t<T>& r) {
    return l.data() == r;
}
template <class T>
auto operator<=>(const basic_var<T>& l, const std::type_identity_t<T>& r) {
    return l.data() <=> r;
}

/// Prints like micrograd's Value: `var(data=-8, grad=1)`.
template <class T>
std::ostream& operator<<(std::ostream& out, const basic_var<T>& x) {
    return out << "var(data=" << x.data() << ", grad=" << x.grad() << ')';
}

// Elementwise operations on a std::span or std::vector of variables (core/elementwise.hpp).
ZG_ELEMENTWISE_ON_RANGES

} // namespace zg::tape

namespace zg::elementwise {
template <class T>
inline constexpr bool enabled<tape::basic_var<T>> = true;
} // namespace zg::elementwise

namespace zg {
using tape::var;
// zg::sin(x) works too, beside sin(x) found by argument-dependent lookup.
#define ZG_USING_TAPE_FUNCTION(fn) using tape::fn;
ZG_UNARY_FUNCTIONS(ZG_USING_TAPE_FUNCTION)
ZG_BINARY_FUNCTIONS(ZG_USING_TAPE_FUNCTION)
#undef ZG_USING_TAPE_FUNCTION
} // namespace zg
