// test/differential/program.hpp: random scalar programs for differential testing. A seeded
// generator builds expressions over every elementary operation, each chosen where its value and
// partials are finite and moderate at the program's point (inside its domain, away from poles and
// kinks); an interpreter runs a program on any scalar type (double through the rules, zg::var,
// zg::dual); a printer writes it as the C++ generic lambda a regression test would hold.
#pragma once

#include <zerograd/core/rules.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

namespace differential {

/// splitmix64: the same numbers on every compiler and library, unlike std's distributions.
class random {
public:
    explicit random(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n).
    int below(int n) { return int(next() % std::uint64_t(n)); }
    /// Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1p-53; }
    bool chance(double p) { return uniform(0, 1) < p; }

private:
    std::uint64_t state_;
};

/// Where the constant of a mixed binary operation sits.
enum class side { none, right, left };

struct node {
    zg::op_id op = zg::op_id::leaf;
    int input = -1;          // leaves: which input
    int l = -1, r = -1;      // operands (nodes before this one); -1 on the constant's side
    side constant_side = side::none;
    double constant = 0;     // the plain number of `x * 2.5` or `pow(2.5, x)`
    int power = 0;           // pown's integer exponent
    double value = 0;        // at the program's point
};

/// A program: its nodes in evaluation order (operands first), the last one the result.
struct program {
    std::vector<double> point;
    std::vector<node> nodes;
};

// ---- The rules on plain doubles: the interpreter's double evaluation ----------------------------

namespace plain {
#define ZG_PLAIN_UNARY(fn)                                                                         \
    inline double fn(double x) { return zg::fn##_op{}.value(x); }
ZG_UNARY_FUNCTIONS(ZG_PLAIN_UNARY)
#undef ZG_PLAIN_UNARY
#define ZG_PLAIN_BINARY(fn)                                                                        \
    inline double fn(double l, double r) { return zg::fn##_op{}.value(l, r); }
ZG_BINARY_FUNCTIONS(ZG_PLAIN_BINARY)
#undef ZG_PLAIN_BINARY
inline double pow(double x, int n) { return zg::pown_op{n}.value(x); }

/// Runs a program on any scalar type: functions are called unqualified, so zg::var and zg::dual
/// reach their own overloads by argument-dependent lookup and double reaches the ones above.
template <class T>
T evaluate(const program& p, std::span<const T> inputs) {
    std::vector<T> values;
    values.reserve(p.nodes.size());
    for (const node& n : p.nodes) {
        const auto operand = [&](int i) -> const T& { return values[std::size_t(i)]; };
        switch (n.op) {
        case zg::op_id::leaf: values.push_back(inputs[std::size_t(n.input)]); break;
        case zg::op_id::neg: values.push_back(-operand(n.l)); break;
        case zg::op_id::pown: values.push_back(pow(operand(n.l), n.power)); break;
#define ZG_CASE_UNARY(fn)                                                                          \
    case zg::op_id::fn: values.push_back(fn(operand(n.l))); break;
            ZG_UNARY_FUNCTIONS(ZG_CASE_UNARY)
#undef ZG_CASE_UNARY
#define ZG_CASE_BINARY(fn, ...)                                                                    \
    case zg::op_id::fn:                                                                            \
        if (n.constant_side == side::right)                                                        \
            values.push_back(__VA_ARGS__(operand(n.l), n.constant));                               \
        else if (n.constant_side == side::left)                                                    \
            values.push_back(__VA_ARGS__(n.constant, operand(n.r)));                               \
        else                                                                                       \
            values.push_back(__VA_ARGS__(operand(n.l), operand(n.r)));                             \
        break;
#define ZG_FUNCTION_CASE(fn) ZG_CASE_BINARY(fn, fn)
            ZG_BINARY_FUNCTIONS(ZG_FUNCTION_CASE)
#undef ZG_FUNCTION_CASE
#define ZG_OPERATOR_CASE(fn, symbol) ZG_CASE_BINARY(fn, [](const auto& a, const auto& b) { return a symbol b; })
            ZG_BINARY_OPERATORS(ZG_OPERATOR_CASE)
#undef ZG_OPERATOR_CASE
#undef ZG_CASE_BINARY
        case zg::op_id::sum: // reductions over ranges: the generator makes none
        case zg::op_id::dot:
        case zg::op_id::prod:
        case zg::op_id::log_sum_exp:
        case zg::op_id::external:
        case zg::op_id::function:
            break;
        }
    }
    return values.back();
}
} // namespace plain

using plain::evaluate;

// ---- Generation ---------------------------------------------------------------------------------

namespace detail {

/// An operation is usable at a point when its value and partials there are finite and moderate:
/// that keeps it inside its domain and away from poles (tan), from the edges of asin's domain and
/// from sqrt and cbrt at 0; kinks (abs, relu, min, max) need a margin of their own.
inline bool moderate(double value, double partial) {
    return std::isfinite(value) && std::isfinite(partial) && std::abs(value) <= 1e4 &&
           std::abs(partial) <= 1e3;
}
inline bool moderate(double value, double dl, double dr) {
    return moderate(value, dl) && moderate(value, dr);
}

template <class Op>
bool usable(const Op& op, double x) {
    const double y = op.value(x);
    return moderate(y, op.dx(x, y));
}

template <class Op>
bool usable(const Op& op, double l, double r, side constant_side) {
    const double y = op.value(l, r);
    const double dl = constant_side == side::left ? 0.0 : op.dl(l, r, y);
    const double dr = constant_side == side::right ? 0.0 : op.dr(l, r, y);
    return moderate(y, dl, dr);
}

inline constexpr zg::op_id unary_ops[] = {
    zg::op_id::neg,
#define ZG_LIST(fn) zg::op_id::fn,
    ZG_UNARY_FUNCTIONS(ZG_LIST)
#undef ZG_LIST
};
inline constexpr zg::op_id binary_ops[] = {
#define ZG_LIST(fn, ...) zg::op_id::fn,
    ZG_BINARY_FUNCTIONS(ZG_LIST) ZG_BINARY_OPERATORS(ZG_LIST)
#undef ZG_LIST
};

class generator {
public:
    generator(random& rng, program& p) : rng_(rng), p_(p) {}

    /// A subexpression of depth at most `depth`; on the spine, exactly `depth`.
    int expression(int depth, bool spine) {
        if (depth == 0 || (!spine && rng_.chance(0.45))) return leaf();
        // Now and then an operand is an earlier node (a leaf or a small subexpression), so
        // adjoints must accumulate over several paths.
        const int kind = rng_.below(100);
        if (kind < 40) return unary(expression(depth - 1, spine));
        if (kind < 70) {
            const int a = expression(depth - 1, spine);
            const int b = (p_.nodes.size() > 1 && rng_.chance(0.2)) ? reuse()
                                                                     : expression(rng_.below(std::min(depth, 3)), false);
            return rng_.chance(0.5) ? binary(a, b) : binary(b, a);
        }
        return mixed(expression(depth - 1, spine));
    }

private:
    int push(node n) {
        p_.nodes.push_back(n);
        return int(p_.nodes.size()) - 1;
    }
    double value(int i) const { return p_.nodes[std::size_t(i)].value; }

    int leaf() {
        node n;
        n.input = rng_.below(int(p_.point.size()));
        n.value = p_.point[std::size_t(n.input)];
        return push(n);
    }

    /// A leaf or a node of a small subexpression already built (small, so that the printed
    /// tree stays small).
    int reuse() {
        const int i = rng_.below(int(p_.nodes.size()));
        return (p_.nodes[std::size_t(i)].op == zg::op_id::leaf || rng_.chance(0.3)) ? i : leaf();
    }

    int unary(int x) {
        const double v = value(x);
        for (int attempt = 0; attempt < 24; ++attempt) {
            node n;
            n.l = x;
            if (rng_.chance(0.08)) {
                n.op = zg::op_id::pown;
                n.power = rng_.below(7) - 2; // -2 to 4
                if (!usable(zg::pown_op{n.power}, v)) continue;
                n.value = zg::pown_op{n.power}.value(v);
                return push(n);
            }
            n.op = unary_ops[rng_.below(int(std::size(unary_ops)))];
            if ((n.op == zg::op_id::abs || n.op == zg::op_id::relu) && std::abs(v) < 1e-3)
                continue;
            if (!usable_unary(n.op, v, n.value)) continue;
            return push(n);
        }
        node n; // tanh is defined everywhere, with partials in (0, 1]
        n.op = zg::op_id::tanh;
        n.l = x;
        n.value = zg::tanh_op{}.value(v);
        return push(n);
    }

    int binary(int a, int b) {
        for (int attempt = 0; attempt < 24; ++attempt) {
            node n;
            n.op = binary_ops[rng_.below(int(std::size(binary_ops)))];
            n.l = a;
            n.r = b;
            if (kink(n.op, value(a), value(b))) continue;
            if (!usable_binary(n.op, value(a), value(b), side::none, n.value)) continue;
            return push(n);
        }
        node n; // a + b: always usable
        n.op = zg::op_id::add;
        n.l = a;
        n.r = b;
        n.value = value(a) + value(b);
        return push(n);
    }

    int mixed(int x) {
        for (int attempt = 0; attempt < 24; ++attempt) {
            node n;
            n.op = binary_ops[rng_.below(int(std::size(binary_ops)))];
            n.constant = std::round(rng_.uniform(-3, 3) * 8) / 8; // short, exact in print
            if (n.constant == 0) n.constant = 0.5;
            n.constant_side = rng_.chance(0.5) ? side::right : side::left;
            const bool right = n.constant_side == side::right;
            (right ? n.l : n.r) = x;
            const double l = right ? value(x) : n.constant, r = right ? n.constant : value(x);
            if (kink(n.op, l, r)) continue;
            if (!usable_binary(n.op, l, r, n.constant_side, n.value)) continue;
            return push(n);
        }
        return unary(x);
    }

    /// Kinks of min and max, and atan2's branch cut (y = 0 for x < 0, where the value jumps
    /// from pi to -pi while the partials stay finite).
    static bool kink(zg::op_id op, double l, double r) {
        if (op == zg::op_id::min || op == zg::op_id::max) return std::abs(l - r) < 1e-3;
        if (op == zg::op_id::atan2) return r < 0 && std::abs(l) < 1e-3;
        return false;
    }

    static bool usable_unary(zg::op_id op, double x, double& y) {
        switch (op) {
        case zg::op_id::neg: y = -x; return true;
#define ZG_USABLE(fn)                                                                              \
    case zg::op_id::fn: y = zg::fn##_op{}.value(x); return usable(zg::fn##_op{}, x);
            ZG_UNARY_FUNCTIONS(ZG_USABLE)
#undef ZG_USABLE
        default: return false;
        }
    }

    static bool usable_binary(zg::op_id op, double l, double r, side s, double& y) {
        switch (op) {
#define ZG_USABLE(fn, ...)                                                                         \
    case zg::op_id::fn: y = zg::fn##_op{}.value(l, r); return usable(zg::fn##_op{}, l, r, s);
            ZG_BINARY_FUNCTIONS(ZG_USABLE)
            ZG_BINARY_OPERATORS(ZG_USABLE)
#undef ZG_USABLE
        default: return false;
        }
    }

    random& rng_;
    program& p_;
};

} // namespace detail

/// Program number `index` of the sequence seeded by `seed`: 1 to 4 inputs in (-2, 2), depth 1
/// to 12. The same seed and index give the same program on every machine.
inline program generate(std::uint64_t seed, std::uint64_t index) {
    random rng(seed * 0x2545f4914f6cdd1dULL + index);
    program p;
    p.point.resize(std::size_t(1 + rng.below(4)));
    for (double& x : p.point) {
        x = std::round(rng.uniform(-2, 2) * 64) / 64; // exact in print
        if (x == 0) x = 0.25;
    }
    detail::generator(rng, p).expression(1 + rng.below(12), true);
    return p;
}

/// Relative agreement with a floor of 1 on the scale; never for infinities or NaN.
inline bool close(double a, double b, double tolerance) {
    return std::isfinite(a) && std::isfinite(b) &&
           std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

// ---- Printing -----------------------------------------------------------------------------------

inline std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", x);
    std::string s = text;
    if (s.find_first_of(".en") == std::string::npos) s += ".0"; // a double literal, never an int
    return x < 0 ? "(" + s + ")" : s;
}

inline std::string print(const program& p, int i) {
    const node& n = p.nodes[std::size_t(i)];
    const auto operand = [&](int k) { return k < 0 ? number(n.constant) : print(p, k); };
    switch (n.op) {
    case zg::op_id::leaf: return "x" + std::to_string(n.input);
    case zg::op_id::neg: return "(-" + print(p, n.l) + ")";
    case zg::op_id::pown: return "pow(" + print(p, n.l) + ", " + std::to_string(n.power) + ")";
#define ZG_PRINT_UNARY(fn)                                                                         \
    case zg::op_id::fn: return #fn "(" + print(p, n.l) + ")";
        ZG_UNARY_FUNCTIONS(ZG_PRINT_UNARY)
#undef ZG_PRINT_UNARY
#define ZG_PRINT_FUNCTION(fn)                                                                      \
    case zg::op_id::fn: return #fn "(" + operand(n.l) + ", " + operand(n.r) + ")";
        ZG_BINARY_FUNCTIONS(ZG_PRINT_FUNCTION)
#undef ZG_PRINT_FUNCTION
#define ZG_PRINT_OPERATOR(fn, symbol)                                                              \
    case zg::op_id::fn: return "(" + operand(n.l) + " " #symbol " " + operand(n.r) + ")";
        ZG_BINARY_OPERATORS(ZG_PRINT_OPERATOR)
#undef ZG_PRINT_OPERATOR
    case zg::op_id::sum: // reductions over ranges: the generator makes none
    case zg::op_id::dot:
    case zg::op_id::prod:
    case zg::op_id::log_sum_exp:
    case zg::op_id::external:
    case zg::op_id::function:
        break;
    }
    return "?";
}

/// The program as a C++ generic lambda: `[](auto x0, auto x1) { return ...; }`.
inline std::string print(const program& p) {
    std::string parameters;
    for (std::size_t k = 0; k < p.point.size(); ++k)
        parameters += (k ? ", [[maybe_unused]] auto x" : "[[maybe_unused]] auto x") + std::to_string(k);
    return "[](" + parameters + ") { return " + print(p, int(p.nodes.size()) - 1) + "; }";
}

/// The point as a C++ initializer: `{0.5, -1.25}`.
inline std::string print_point(const program& p) {
    std::string s = "{";
    for (std::size_t k = 0; k < p.point.size(); ++k)
        s += (k ? ", " : "") + number(p.point[k]);
    return s + "}";
}

} // namespace differential
