// zerograd/tape/var.hpp: basic_var, a handle to a node on a tape. The operations on it, which
// build formulas recorded as one node each, are in tape/expression.hpp, included at the end.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/error.hpp"
#include "zerograd/core/let.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"

#include <cstdint>
#include <string> // messages of errors
#include <string_view>
#include <type_traits>
#include <utility>

namespace zg::tape {

template <class T, class Node>
class expression;

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
    /// The operation that produced this node, a statement's outermost (op_id::leaf for inputs).
    op_id op() const { return checked_tape().op(index_); }

    /// Seeds this node's gradient with 1 and accumulates (+=) into every ancestor, walking the
    /// tape in reverse recording order.
    void backward() const { recording_tape("backward").backward(index_); }

    /// The tape this node lives on, and its position there.
    tape_type& tape() const { return checked_tape(); }
    index_type index() const { return index_; }

    /// A formula becomes a variable: it is recorded as one node (see expression).
    template <class Node>
    ZG_INLINE basic_var(const expression<T, Node>& formula) : basic_var(formula.as_var()) {}

    template <class R>
    ZG_INLINE basic_var& operator+=(R&& r) {
        return *this = *this + std::forward<R>(r);
    }
    template <class R>
    ZG_INLINE basic_var& operator-=(R&& r) {
        return *this = *this - std::forward<R>(r);
    }
    template <class R>
    ZG_INLINE basic_var& operator*=(R&& r) {
        return *this = *this * std::forward<R>(r);
    }
    template <class R>
    ZG_INLINE basic_var& operator/=(R&& r) {
        return *this = *this / std::forward<R>(r);
    }

private:
    basic_var(tape_type& tape, index_type index)
        : tape_(&tape), index_(index), stamp_(tape.stamp()) {}
    basic_var(tape_type& tape, index_type index, std::uint32_t stamp)
        : tape_(&tape), index_(index), stamp_(stamp) {}

    friend struct detail::var_access;

    // Variables recorded since the tape's last rewind are alive without looking at their node;
    // older ones (a model's parameters) compare their stamp with the node's.
    ZG_INLINE tape_type& checked_tape() const {
        if (stamp_ != tape_->stamp() && !tape_->holds(index_, stamp_)) [[unlikely]]
            throw_dangling(index_);
        return *tape_;
    }

    // The tape an operation on this variable records on: its own, which must be the calling
    // thread's (another thread's tape would be written by two threads at once).
    ZG_INLINE tape_type& recording_tape(std::string_view operation) const {
        return this_threads(checked_tape(), operation);
    }
    ZG_INLINE static tape_type& this_threads(tape_type& tape, std::string_view operation) {
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

namespace detail {
/// What zg::tape::grad and formulas (tape/expression.hpp) need of a variable beyond its public
/// face: making one for a node, and its checks.
struct var_access {
    template <class T>
    static basic_var<T> at(basic_tape<T>& tape, typename basic_tape<T>::index_type index) {
        return basic_var<T>(tape, index);
    }
    template <class T>
    static basic_var<T> at(basic_tape<T>& tape, typename basic_tape<T>::index_type index,
                           std::uint32_t stamp) {
        return basic_var<T>(tape, index, stamp);
    }
    template <class T>
    static std::uint32_t stamp(const basic_var<T>& x) {
        return x.stamp_;
    }
    template <class T>
    ZG_INLINE static basic_tape<T>& recording_tape(const basic_var<T>& x,
                                                   std::string_view operation) {
        return x.recording_tape(operation);
    }
    template <class T>
    ZG_INLINE static basic_tape<T>& checked_tape(const basic_var<T>& x) {
        return x.checked_tape();
    }
    /// The value of a variable whose tape was checked.
    template <class T>
    ZG_INLINE static const T& value(const basic_var<T>& x) {
        return x.tape_->value(x.index_);
    }
    /// The adjoint of a variable whose tape was checked.
    template <class T>
    ZG_INLINE static const T& adjoint(const basic_var<T>& x) {
        return x.tape_->adjoint(x.index_);
    }
    template <class T>
    [[noreturn]] static void throw_other_thread(std::string_view operation) {
        basic_var<T>::throw_other_thread(operation);
    }
    template <class T>
    [[noreturn]] static void throw_two_tapes(std::string_view operation) {
        basic_var<T>::throw_two_tapes(operation);
    }
    template <class T>
    [[noreturn]] static void throw_dangling(typename basic_tape<T>::index_type index) {
        basic_var<T>::throw_dangling(index);
    }
};
} // namespace detail

using var = basic_var<double>;

} // namespace zg::tape

namespace zg {
using tape::var;
} // namespace zg

#include "zerograd/tape/expression.hpp" // the operations on variables
