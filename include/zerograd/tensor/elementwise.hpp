// zerograd/tensor/elementwise.hpp: every elementary operation on tensors, applied per element with
// NumPy broadcasting; each element's value and partials come from the rules in core/rules.hpp.
#pragma once

#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp" // checked_value: checked builds' NaN and infinity report
#include "zerograd/tensor/tensor.hpp"

#include <algorithm> // min
#include <concepts>  // std::integral
#include <string>
#include <type_traits>

namespace zg {

namespace detail {

/// Whether a rule carries an integer `n` (pow with an integer exponent), which its node keeps.
template <class Op>
inline constexpr bool has_parameter = requires(const Op& op) { op.n; };

/// The rule object a node applies: a rule with a parameter made again from the node's, the others
/// default-constructed.
template <class Op>
Op rule_of(const tensor_node& node) {
    if constexpr (has_parameter<Op>)
        return Op{node.parameter};
    else
        return Op{};
}

/// How shape errors name an operation: "zg::operator+" for the arithmetic rules, "zg::atan2".
template <class Op>
std::string operation_name() {
    constexpr std::string_view name = Op::name;
    const bool symbol = name == "+" || name == "-" || name == "*" || name == "/";
    return (symbol ? "zg::operator" : "zg::") + std::string(name);
}

template <class Op>
void unary_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& x = tape.node(self.operands[0]);
    double* gx = tape.gradient_of(x);
    const Op op = rule_of<Op>(self);
    const double* xv = x.value.data();
    const double* y = self.value.data();
    const double* g = self.grad.data();
    for (std::size_t i = 0, n = self.value.size(); i < n; ++i)
        gx[i] += zg::detail::chain(g[i], op.dx(xv[i], y[i]));
}

/// Computes a new node's values; in checked builds a domain error reclaims the node on its way
/// out, so that a failed operation records nothing.
template <class Fill>
void fill_values(tensor_tape& tape, tensor_tape::index_type node, Fill&& fill) {
    if constexpr (config::checked) {
        try {
            fill();
        } catch (...) {
            tape.rewind(node);
            throw;
        }
    } else {
        fill();
    }
}

/// Records y = op(x) elementwise.
template <class Op>
tensor record_unary(const Op& op, const tensor& x) {
    tensor_tape& tape = tensor_access::tape(x, Op::name);
    const tensor_node& xn = tensor_access::node(x);
    const auto i = tape.push(xn.shape, xn.requires_grad, &unary_backward<Op>, Op::name);
    tensor_node& out = tape.node(i);
    out.operands[0] = tensor_access::index(x);
    if constexpr (has_parameter<Op>) out.parameter = op.n;
    const double* xv = xn.value.data();
    double* y = out.value.data();
    fill_values(tape, i, [&] {
        for (std::size_t k = 0, n = out.value.size(); k < n; ++k)
            y[k] = zg::detail::checked_value(op, xv[k]);
    });
    return tensor_access::make(tape, i);
}

template <class Op>
void binary_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& l = tape.node(self.operands[0]);
    tensor_node& r = tape.node(self.operands[1]);
    const Op op = rule_of<Op>(self);
    const double* lv = l.value.data();
    const double* rv = r.value.data();
    const double* y = self.value.data();
    const double* g = self.grad.data();
    // A broadcast operand's positions repeat, so += sums the gradient over the axes that
    // broadcasting inserted or stretched: a NumPy autograd engine's reduction, for free.
    if (l.requires_grad) {
        double* gl = tape.gradient_of(l);
        for_each_broadcast(self.shape, l.shape, r.shape,
                           [&](std::size_t i, std::size_t il, std::size_t ir) {
                               gl[il] += zg::detail::chain(g[i], op.dl(lv[il], rv[ir], y[i]));
                           });
    }
    if (r.requires_grad) {
        double* gr = tape.gradient_of(r);
        for_each_broadcast(self.shape, l.shape, r.shape,
                           [&](std::size_t i, std::size_t il, std::size_t ir) {
                               gr[ir] += zg::detail::chain(g[i], op.dr(lv[il], rv[ir], y[i]));
                           });
    }
}

/// Records y = op(l, r) elementwise, with l and r broadcast to a common shape. A failure while
/// computing the values reclaims the nodes from `first` on (the node of a constant operand
/// recorded for this operation, if any).
template <class Op>
tensor record_binary(const Op& op, const tensor& l, const tensor& r,
                     tensor_tape::index_type first = ~tensor_tape::index_type{0}) {
    tensor_tape& tape = common_tape(Op::name, l, r);
    const tensor_node& ln = tensor_access::node(l);
    const tensor_node& rn = tensor_access::node(r);
    tensor_shape shape;
    if (!broadcast_shape(ln.shape, rn.shape, shape)) [[unlikely]]
        throw shape_error(operation_name<Op>() + ": shapes " + ln.shape.to_string() + " and " +
                          rn.shape.to_string() + " do not broadcast");
    const auto i =
        tape.push(shape, ln.requires_grad || rn.requires_grad, &binary_backward<Op>, Op::name);
    tensor_node& out = tape.node(i);
    out.operands[0] = tensor_access::index(l);
    out.operands[1] = tensor_access::index(r);
    if constexpr (has_parameter<Op>) out.parameter = op.n;
    const double* lv = ln.value.data();
    const double* rv = rn.value.data();
    double* y = out.value.data();
    fill_values(tape, std::min(first, i), [&] {
        for_each_broadcast(shape, ln.shape, rn.shape,
                           [&](std::size_t k, std::size_t il, std::size_t ir) {
                               y[k] = zg::detail::checked_value(op, lv[il], rv[ir]);
                           });
    });
    return tensor_access::make(tape, i);
}

// A plain number becomes a one-element constant node: broadcasting then covers it, and its
// slot is reused after a scope like any other.
template <class Op>
tensor record_binary(const Op& op, const tensor& l, double r) {
    const auto first = tensor_access::tape(l, Op::name).mark();
    return record_binary(op, l, constant_like(l, r), first);
}
template <class Op>
tensor record_binary(const Op& op, double l, const tensor& r) {
    const auto first = tensor_access::tape(r, Op::name).mark();
    return record_binary(op, constant_like(r, l), r, first);
}

/// l = op(l, r) for `l += r` and its kin: as NumPy's in-place operators, r must broadcast to l's
/// own shape; one that would change it is a shape_error, and l is left as it was.
template <class Op>
tensor& assign_binary(const Op& op, tensor& l, const tensor& r) {
    const tensor_shape& ls = tensor_access::node(l).shape;
    const tensor_shape& rs = tensor_access::node(r).shape;
    tensor_shape shape;
    if (!broadcast_shape(ls, rs, shape) || !(shape == ls)) [[unlikely]]
        throw shape_error(operation_name<Op>() + "=: shape " + rs.to_string() +
                          " does not broadcast to the left side's shape " + ls.to_string());
    return l = record_binary(op, l, r);
}

} // namespace detail

// ---- Operators and functions, each from its rule in core/rules.hpp -----------------------------
// Plain numbers are double parameters, so `2 * t + 1` converts the ints. tensor has no implicit
// constructor, so these overloads never capture calls on plain numbers (`tanh(1.0)`).

/// A rule per element: every operation below, and a user's (zg::function, core/function.hpp).
template <class Rule>
tensor apply_rule(const Rule& rule, const tensor& x) {
    return detail::record_unary(rule, x);
}
template <class Rule>
tensor apply_rule(const Rule& rule, const tensor& l, const tensor& r) {
    return detail::record_binary(rule, l, r);
}
template <class Rule>
tensor apply_rule(const Rule& rule, const tensor& l, double r) {
    return detail::record_binary(rule, l, r);
}
template <class Rule>
tensor apply_rule(const Rule& rule, double l, const tensor& r) {
    return detail::record_binary(rule, l, r);
}

inline tensor operator+(const tensor& x) { return x; }
inline tensor operator-(const tensor& x) { return apply_rule(neg_op{}, x); }

#define ZG_TENSOR_BINARY_OPERATOR(fn, symbol)                                                      \
    inline tensor operator symbol(const tensor& l, const tensor& r) {                              \
        return apply_rule(fn##_op{}, l, r);                                             \
    }                                                                                              \
    inline tensor operator symbol(const tensor& l, double r) {                                     \
        return apply_rule(fn##_op{}, l, r);                                             \
    }                                                                                              \
    inline tensor operator symbol(double l, const tensor& r) {                                     \
        return apply_rule(fn##_op{}, l, r);                                             \
    }                                                                                              \
    /** Rebinds l to the new node, as `l = l symbol r`; r must broadcast to l's shape. */          \
    inline tensor& operator symbol##=(tensor& l, const tensor& r) {                                \
        return detail::assign_binary(fn##_op{}, l, r);                                             \
    }                                                                                              \
    inline tensor& operator symbol##=(tensor& l, double r) { return l = l symbol r; }
ZG_BINARY_OPERATORS(ZG_TENSOR_BINARY_OPERATOR)
#undef ZG_TENSOR_BINARY_OPERATOR

#define ZG_TENSOR_UNARY_FUNCTION(fn)                                                               \
    inline tensor fn(const tensor& x) { return apply_rule(fn##_op{}, x); }
ZG_UNARY_FUNCTIONS(ZG_TENSOR_UNARY_FUNCTION)
#undef ZG_TENSOR_UNARY_FUNCTION

#define ZG_TENSOR_BINARY_FUNCTION(fn)                                                              \
    inline tensor fn(const tensor& l, const tensor& r) {                                           \
        return apply_rule(fn##_op{}, l, r);                                             \
    }                                                                                              \
    inline tensor fn(const tensor& l, double r) { return apply_rule(fn##_op{}, l, r); } \
    inline tensor fn(double l, const tensor& r) { return apply_rule(fn##_op{}, l, r); }
ZG_BINARY_FUNCTIONS(ZG_TENSOR_BINARY_FUNCTION)
#undef ZG_TENSOR_BINARY_FUNCTION

/// x^n per element for an integer n: exact repeated multiplication (the rule pown_op), and the
/// exponent is not a variable. `pow(t, 0.5)` takes the double overload above.
template <std::integral I>
tensor pow(const tensor& x, I n) {
    return apply_rule(pown_op::of(n), x);
}

} // namespace zg
