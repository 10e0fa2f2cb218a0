// zerograd/core/rules.hpp: every elementary operation's value and local partial derivatives,
// written once and used by every mode (expression nodes, tape records, duals, tensor kernels).
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/scalar.hpp"

#include <cfloat> // DBL_MIN, DBL_MAX
#include <cmath>  // the elementary functions on double
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <numbers> // pi, for erf's derivative
#include <string_view>

/// The operations every mode provides, as X-macro lists, so that each mode spells out its overloads
/// from one list instead of thirty hand-written copies.
/// Unary: `name(x)`; each has a rule `name_op` below.
#define ZG_UNARY_FUNCTIONS(X)                                                                      \
    X(square)                                                                                      \
    X(sqrt) X(cbrt) X(exp) X(expm1) X(log) X(log1p) X(sin) X(cos) X(tan) X(asin) X(acos) X(atan)   \
        X(sinh) X(cosh) X(tanh) X(sigmoid) X(softplus) X(log_sigmoid) X(relu) X(abs) X(erf)
/// Binary: `name(x, y)`, either side may be a plain number.
#define ZG_BINARY_FUNCTIONS(X) X(pow) X(atan2) X(hypot) X(min) X(max)
/// Binary operators: `x OP y`, either side may be a plain number; the rule is `name_op`.
#define ZG_BINARY_OPERATORS(X) X(add, +) X(sub, -) X(mul, *) X(div, /)
/// The functions above that <cmath> also has in namespace std. (Not min and max: std's return a
/// reference to an operand, which generic code may keep, and take any type.)
#define ZG_STD_FUNCTIONS(X)                                                                        \
    X(sqrt) X(cbrt) X(exp) X(expm1) X(log) X(log1p) X(sin) X(cos) X(tan) X(asin) X(acos) X(atan)   \
        X(sinh) X(cosh) X(tanh) X(abs) X(erf) X(pow) X(atan2) X(hypot)

namespace zg {

/// Which rule produced a value; tapes store it (one byte) so graphs can be drawn and checked.
enum class op_id : std::uint8_t {
    leaf,
    neg,
    pown,
#define ZG_ENUMERATE(fn, ...) fn,
    ZG_UNARY_FUNCTIONS(ZG_ENUMERATE) ZG_BINARY_FUNCTIONS(ZG_ENUMERATE)
        ZG_BINARY_OPERATORS(ZG_ENUMERATE)
#undef ZG_ENUMERATE
    // Reductions a tape records as one node (core/reductions.hpp, reduction_rules).
    sum,
    dot,
    prod,
    log_sum_exp,
    // A black box whose adjoints a function of the user's passes on (zg::tape::external).
    external,
    // An operation of the user's own rule (zg::function); its name is the rule's.
    function,
};

/// The op_id a rule records: its own for the library's rules, op_id::function for a user's.
template <class Op>
inline constexpr op_id id_of = op_id::function;
template <class Op>
    requires requires { Op::id; }
inline constexpr op_id id_of<Op> = Op::id;

/// Whether a rule's partial may be infinite or NaN where its value is finite or its operand's
/// adjoint is zero (sqrt at 0, log at 0, pow at a negative base): from such an operation down,
/// expression mode's sweep multiplies by zg::detail::chain, whose zeros are strong.
template <class Op>
inline constexpr bool unbounded_partials = requires { Op::unbounded_partials; };

/// Whether a rule's value overflows to infinity at moderate finite inputs (exp(800)), its
/// partial with it: a tape notes such a value, as it notes infinite inputs, so that its sweep
/// keeps zeros strong. (Arithmetic that overflows, 1e200 * 1e200, is not looked for.)
template <class Op>
inline constexpr bool overflowing_values = requires { Op::overflowing_values; };

/// Whether a rule's value and partials cost a few additions or multiplications, where the others
/// cost tens of cycles (a division, a root, an exponential, a sine): expression mode evaluates such
/// a node again in each use rather than keeping it once.
template <class Op>
inline constexpr bool cheap_rule = requires { Op::cheap; };

/// Whether a rule computes with + - * / alone, so that it runs on two lanes at once (expression
/// mode sweeps two elements of a map-reduce together).
template <class Op>
inline constexpr bool lane_rule = requires { Op::lane_arithmetic; };

/// A rule of one argument states `value(x)` and `dx(x, y)`, the partial at x given y = value(x);
/// a rule of two states `value(l, r)`, `dl(l, r, y)` and `dr(l, r, y)`. T is double or any
/// scalar that behaves like one (a dual number, for derivatives of derivatives): functions are
/// called unqualified after `using std::f`, so argument-dependent lookup finds T's own overloads.
/// Rules are empty structs except pown_op, which carries its exponent.

// Small helpers shared by several rules.
namespace detail {

/// x^m by repeated squaring: exact for small m and usable in constant expressions.
template <class T>
constexpr T ipow(T x, std::uint64_t m) {
    T result(1);
    while (m != 0) {
        if (m & 1) result = result * x;
        m >>= 1;
        if (m != 0) x = x * x;
    }
    return result;
}

/// |n| as an unsigned number: -n would overflow for the most negative n.
constexpr std::uint64_t magnitude(std::int64_t n) {
    return n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
}

/// atan2's partials: numerator / (l^2 + r^2), scaled through hypot where the squares would
/// overflow or underflow (a point near 1e-200 or 1e200).
template <class T>
T atan2_partial(const T& numerator, const T& l, const T& r) {
    const T squares = l * l + r * r;
    if (primal(squares) >= DBL_MIN && primal(squares) <= DBL_MAX) [[likely]]
        return numerator / squares;
    using std::hypot;
    const T h = hypot(l, r);
    return numerator / h / h;
}

} // namespace detail

// ---- Arithmetic --------------------------------------------------------------------------------

struct add_op {
    static constexpr op_id id = op_id::add;
    static constexpr bool lane_arithmetic = true;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "+";
    template <class T>
    constexpr T value(const T& l, const T& r) const {
        return l + r;
    }
    template <class T>
    constexpr T dl(const T&, const T&, const T&) const {
        return T(1);
    }
    template <class T>
    constexpr T dr(const T&, const T&, const T&) const {
        return T(1);
    }
};

struct sub_op {
    static constexpr op_id id = op_id::sub;
    static constexpr bool lane_arithmetic = true;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "-";
    template <class T>
    constexpr T value(const T& l, const T& r) const {
        return l - r;
    }
    template <class T>
    constexpr T dl(const T&, const T&, const T&) const {
        return T(1);
    }
    template <class T>
    constexpr T dr(const T&, const T&, const T&) const {
        return T(-1);
    }
};

struct mul_op {
    static constexpr op_id id = op_id::mul;
    static constexpr bool lane_arithmetic = true;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "*";
    template <class T>
    constexpr T value(const T& l, const T& r) const {
        return l * r;
    }
    template <class T>
    constexpr T dl(const T&, const T& r, const T&) const {
        return r;
    }
    template <class T>
    constexpr T dr(const T& l, const T&, const T&) const {
        return l;
    }
};

// A direct rule rather than l * pow(r, -1): one division instead of a power, and exact.
struct div_op {
    static constexpr op_id id = op_id::div;
    static constexpr bool lane_arithmetic = true;
    static constexpr std::string_view name = "/";
    template <class T>
    constexpr T value(const T& l, const T& r) const {
        return l / r;
    }
    template <class T>
    constexpr T dl(const T&, const T& r, const T&) const {
        return T(1) / r;
    }
    template <class T>
    constexpr T dr(const T&, const T& r, const T& y) const {
        return -y / r;
    }
};

struct neg_op {
    static constexpr op_id id = op_id::neg;
    static constexpr bool lane_arithmetic = true;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "neg";
    template <class T>
    constexpr T value(const T& x) const {
        return -x;
    }
    template <class T>
    constexpr T dx(const T&, const T&) const {
        return T(-1);
    }
};

// ---- Powers and roots --------------------------------------------------------------------------

/// x^y with both sides differentiable (either may be held constant by the mode).
struct pow_op {
    static constexpr op_id id = op_id::pow;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "pow";
    template <class T>
    T value(const T& l, const T& r) const {
        using std::pow;
        return pow(l, r);
    }
    // r == 0 is special-cased so that d/dx x^0 is 0 at x = 0 rather than 0 * inf; only an r
    // that is zero in every derivative part too (on duals, r == 0 looks at the value alone, and
    // the Hessian needs d/dr of this partial, l^(r-1) at r = 0).
    template <class T>
    T dl(const T& l, const T& r, const T&) const {
        using std::pow;
        return detail::is_zero(r) ? T(0) : r * pow(l, r - T(1));
    }
    // l == 0 with r >= 0 is special-cased to 0, as PyTorch does: the limit for r > 0 (not
    // 0 * log 0), and 0 rather than log 0 at 0^0. Comparisons look at values alone.
    template <class T>
    T dr(const T& l, const T& r, const T& y) const {
        using std::log;
        return l == T(0) && r >= T(0) ? T(0) : y * log(l);
    }
};

/// x^n for an integer n: exact repeated multiplication, usable in constant expressions.
struct pown_op {
    std::int64_t n;
    static constexpr op_id id = op_id::pown;
    static constexpr std::string_view name = "pow";

    friend constexpr bool operator==(const pown_op&, const pown_op&) = default;

    /// The rule for an exponent of any integer type; an unsigned one beyond the int64 range is
    /// refused rather than wrapped.
    template <std::integral I>
    static constexpr pown_op of(I n) {
        if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t))
            if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                throw error("zg: pow(x, " + std::to_string(n) +
                            "): an integer exponent must fit in std::int64_t");
        return {static_cast<std::int64_t>(n)};
    }

    template <class T>
    constexpr T value(const T& x) const {
        const T power = detail::ipow(x, detail::magnitude(n));
        return n < 0 ? T(1) / power : power;
    }
    // n x^(n-1), as n / x^(|n|+1) for negative n (n - 1 would overflow at the lowest n).
    template <class T>
    constexpr T dx(const T& x, const T&) const {
        const T factor(static_cast<double>(n));
        if (n > 0) return factor * detail::ipow(x, detail::magnitude(n) - 1);
        if (n < 0) return factor / detail::ipow(x, detail::magnitude(n) + 1);
        return T(0);
    }
    /// adjoint times dx, the factor n on the adjoint's side where that gives the same bits (n a
    /// power of two): a constant adjoint (the 100 of 100 * pow(t, 2)) then folds with it, one
    /// multiplication fewer.
    template <class T>
    constexpr T times_dx(const T& adjoint, const T& x, const T& y) const {
        if (n > 0 && (n & (n - 1)) == 0)
            return adjoint * T(static_cast<double>(n)) * detail::ipow(x, detail::magnitude(n) - 1);
        return adjoint * dx(x, y);
    }
};

struct square_op {
    static constexpr op_id id = op_id::square;
    static constexpr bool lane_arithmetic = true;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "square";
    template <class T>
    constexpr T value(const T& x) const {
        return x * x;
    }
    template <class T>
    constexpr T dx(const T& x, const T&) const {
        return T(2) * x;
    }
    /// adjoint times dx, the 2 on the adjoint's side (see pown_op::times_dx).
    template <class T>
    constexpr T times_dx(const T& adjoint, const T& x, const T&) const {
        return adjoint * T(2) * x;
    }
};

struct sqrt_op {
    static constexpr op_id id = op_id::sqrt;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "sqrt";
    template <class T>
    T value(const T& x) const {
        using std::sqrt;
        return sqrt(x);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return T(0.5) / y;
    }
};

struct cbrt_op {
    static constexpr op_id id = op_id::cbrt;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "cbrt";
    template <class T>
    T value(const T& x) const {
        using std::cbrt;
        return cbrt(x);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return T(1) / (T(3) * y * y);
    }
};

struct hypot_op {
    static constexpr op_id id = op_id::hypot;
    static constexpr std::string_view name = "hypot";
    template <class T>
    T value(const T& l, const T& r) const {
        using std::hypot;
        return hypot(l, r);
    }
    // At the origin any unit vector is a subgradient; 0 keeps sums of hypots finite there.
    template <class T>
    T dl(const T& l, const T&, const T& y) const {
        return y == T(0) ? T(0) : l / y;
    }
    template <class T>
    T dr(const T&, const T& r, const T& y) const {
        return y == T(0) ? T(0) : r / y;
    }
};

// ---- Exponentials and logarithms ---------------------------------------------------------------

struct exp_op {
    static constexpr bool overflowing_values = true; // see zg::overflowing_values
    static constexpr op_id id = op_id::exp;
    static constexpr std::string_view name = "exp";
    template <class T>
    T value(const T& x) const {
        using std::exp;
        return exp(x);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return y;
    }
};

struct expm1_op {
    static constexpr bool overflowing_values = true; // see zg::overflowing_values
    static constexpr op_id id = op_id::expm1;
    static constexpr std::string_view name = "expm1";
    template <class T>
    T value(const T& x) const {
        using std::expm1;
        return expm1(x);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return y + T(1);
    }
};

struct log_op {
    static constexpr op_id id = op_id::log;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "log";
    template <class T>
    T value(const T& x) const {
        using std::log;
        return log(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        return T(1) / x;
    }
};

struct log1p_op {
    static constexpr op_id id = op_id::log1p;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "log1p";
    template <class T>
    T value(const T& x) const {
        using std::log1p;
        return log1p(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        return T(1) / (T(1) + x);
    }
};

// ---- Trigonometric -----------------------------------------------------------------------------

struct sin_op {
    static constexpr op_id id = op_id::sin;
    static constexpr std::string_view name = "sin";
    template <class T>
    T value(const T& x) const {
        using std::sin;
        return sin(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::cos;
        return cos(x);
    }
};

struct cos_op {
    static constexpr op_id id = op_id::cos;
    static constexpr std::string_view name = "cos";
    template <class T>
    T value(const T& x) const {
        using std::cos;
        return cos(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::sin;
        return -sin(x);
    }
};

struct tan_op {
    static constexpr op_id id = op_id::tan;
    static constexpr std::string_view name = "tan";
    template <class T>
    T value(const T& x) const {
        using std::tan;
        return tan(x);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return T(1) + y * y;
    }
};

// (1 - x)(1 + x) instead of 1 - x^2: no cancellation near |x| = 1, where the derivative is large.
struct asin_op {
    static constexpr op_id id = op_id::asin;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "asin";
    template <class T>
    T value(const T& x) const {
        using std::asin;
        return asin(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::sqrt;
        return T(1) / sqrt((T(1) - x) * (T(1) + x));
    }
};

struct acos_op {
    static constexpr op_id id = op_id::acos;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "acos";
    template <class T>
    T value(const T& x) const {
        using std::acos;
        return acos(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::sqrt;
        return T(-1) / sqrt((T(1) - x) * (T(1) + x));
    }
};

struct atan_op {
    static constexpr op_id id = op_id::atan;
    static constexpr std::string_view name = "atan";
    template <class T>
    T value(const T& x) const {
        using std::atan;
        return atan(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        return T(1) / (T(1) + x * x);
    }
};

struct atan2_op {
    static constexpr op_id id = op_id::atan2;
    static constexpr bool unbounded_partials = true; // see zg::unbounded_partials
    static constexpr std::string_view name = "atan2";
    template <class T>
    T value(const T& l, const T& r) const {
        using std::atan2;
        return atan2(l, r);
    }
    template <class T>
    T dl(const T& l, const T& r, const T&) const {
        return detail::atan2_partial(r, l, r);
    }
    template <class T>
    T dr(const T& l, const T& r, const T&) const {
        return detail::atan2_partial(-l, l, r);
    }
};

// ---- Hyperbolic and activations ----------------------------------------------------------------

struct sinh_op {
    static constexpr bool overflowing_values = true; // see zg::overflowing_values
    static constexpr op_id id = op_id::sinh;
    static constexpr std::string_view name = "sinh";
    template <class T>
    T value(const T& x) const {
        using std::sinh;
        return sinh(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::cosh;
        return cosh(x);
    }
};

struct cosh_op {
    static constexpr bool overflowing_values = true; // see zg::overflowing_values
    static constexpr op_id id = op_id::cosh;
    static constexpr std::string_view name = "cosh";
    template <class T>
    T value(const T& x) const {
        using std::cosh;
        return cosh(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::sinh;
        return sinh(x);
    }
};

struct tanh_op {
    static constexpr op_id id = op_id::tanh;
    static constexpr std::string_view name = "tanh";
    template <class T>
    T value(const T& x) const {
        using std::tanh;
        return tanh(x);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return T(1) - y * y;
    }
};

// Two branches so that exp never overflows: 1/(1+e^-x) for x >= 0, e^x/(1+e^x) below.
struct sigmoid_op {
    static constexpr op_id id = op_id::sigmoid;
    static constexpr std::string_view name = "sigmoid";
    template <class T>
    T value(const T& x) const {
        using std::exp;
        if (x >= T(0)) return T(1) / (T(1) + exp(-x));
        const T e = exp(x);
        return e / (T(1) + e);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return y * (T(1) - y);
    }
};

// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|): e^-|x| never overflows, and for large
// |x| the value is x (or e^x) to the last bit, where log1p(exp(x)) is inf at x = 710.
struct softplus_op {
    static constexpr op_id id = op_id::softplus;
    static constexpr std::string_view name = "softplus";
    template <class T>
    T value(const T& x) const {
        using std::exp, std::log1p;
        if (x >= T(0)) return x + log1p(exp(-x));
        return log1p(exp(x));
    }
    template <class T>
    T dx(const T& x, const T&) const {
        return sigmoid_op{}.value(x);
    }
};

// log(sigmoid(x)) = -softplus(-x): finite (x itself) far below zero, where log(sigmoid(x)) is
// log(0) = -inf from x = -746 on.
struct log_sigmoid_op {
    static constexpr op_id id = op_id::log_sigmoid;
    static constexpr std::string_view name = "log_sigmoid";
    template <class T>
    T value(const T& x) const {
        return -softplus_op{}.value(-x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        return sigmoid_op{}.value(-x);
    }
};

struct relu_op {
    static constexpr op_id id = op_id::relu;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "relu";
    template <class T>
    constexpr T value(const T& x) const {
        return x > T(0) ? x : T(0);
    }
    template <class T>
    constexpr T dx(const T& x, const T&) const {
        return x > T(0) ? T(1) : T(0);
    }
};

// The derivative at 0 is 0, the subgradient PyTorch and most peers choose; the value there is
// a plain 0, so that on duals it carries no derivative either (a Hessian's two levels agree).
struct abs_op {
    static constexpr op_id id = op_id::abs;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "abs";
    template <class T>
    constexpr T value(const T& x) const {
        return x == T(0) ? T(0) : x < T(0) ? -x : x;
    }
    template <class T>
    constexpr T dx(const T& x, const T&) const {
        return x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0);
    }
};

struct erf_op {
    static constexpr op_id id = op_id::erf;
    static constexpr std::string_view name = "erf";
    template <class T>
    T value(const T& x) const {
        using std::erf;
        return erf(x);
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::exp;
        return T(2 * std::numbers::inv_sqrtpi) * exp(-x * x);
    }
};

// On a tie each side gets half the adjoint (as PyTorch's minimum and maximum do), so that
// min(x, x) and max(x, x) have derivative 1; the value at a tie is the midpoint, equal to both
// sides but on duals carrying the mean of their derivatives, as the partials say.
namespace detail {
template <class T>
constexpr T tie_value(const T& l, const T& r) {
    if constexpr (carries_derivative<T>) {
        T tie = l;
        tie.value = tie_value(l.value, r.value);
        using D = decltype(tie.deriv);
        tie.deriv = l.deriv + (r.deriv - l.deriv) * D(0.5);
        return tie;
    } else {
        return l; // equal (or both NaN)
    }
}
} // namespace detail

struct min_op {
    static constexpr op_id id = op_id::min;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "min";
    template <class T>
    constexpr T value(const T& l, const T& r) const {
        return r < l ? r : l < r ? l : detail::tie_value(l, r);
    }
    template <class T>
    constexpr T dl(const T& l, const T& r, const T&) const {
        return l < r ? T(1) : r < l ? T(0) : T(0.5);
    }
    template <class T>
    constexpr T dr(const T& l, const T& r, const T&) const {
        return r < l ? T(1) : l < r ? T(0) : T(0.5);
    }
};

struct max_op {
    static constexpr op_id id = op_id::max;
    static constexpr bool cheap = true;
    static constexpr std::string_view name = "max";
    template <class T>
    constexpr T value(const T& l, const T& r) const {
        return l < r ? r : r < l ? l : detail::tie_value(l, r);
    }
    template <class T>
    constexpr T dl(const T& l, const T& r, const T&) const {
        return r < l ? T(1) : l < r ? T(0) : T(0.5);
    }
    template <class T>
    constexpr T dr(const T& l, const T& r, const T&) const {
        return l < r ? T(1) : r < l ? T(0) : T(0.5);
    }
};

/// The printable name of an operation ("leaf" for inputs and constants).
constexpr std::string_view name_of(op_id id) {
    switch (id) {
    case op_id::leaf:
        return "leaf";
    case op_id::neg:
        return neg_op::name;
    case op_id::pown:
        return pown_op::name;
#define ZG_NAME_CASE(fn, ...)                                                                      \
    case op_id::fn:                                                                                \
        return fn##_op::name;
        ZG_UNARY_FUNCTIONS(ZG_NAME_CASE)
        ZG_BINARY_FUNCTIONS(ZG_NAME_CASE)
        ZG_BINARY_OPERATORS(ZG_NAME_CASE)
#undef ZG_NAME_CASE
    case op_id::sum:
        return "sum";
    case op_id::dot:
        return "dot";
    case op_id::prod:
        return "prod";
    case op_id::log_sum_exp:
        return "log_sum_exp";
    case op_id::external:
        return "external";
    case op_id::function:
        return "function";
    }
    return "?";
}

} // namespace zg
