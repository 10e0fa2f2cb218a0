// test/laws.hpp: the derivative laws every mode must obey, one entry per elementary operation:
// the rule, a generic lambda that applies the operation in any mode, the closed-form derivative
// and the domain to sample. test/core/rules.cpp holds each rule to finite differences and the
// closed form; each mode's laws test holds the mode to the closed form. The reductions' laws
// (value and gradient of sum, prod and log_sum_exp, infinities, NaN and empty ranges included)
// are at the end: test/core/reductions.cpp holds every mode to them. Two rules of a user's own
// (zg::function) stand beside the library's, so every mode is held to those too; an operation of
// the library without a law does not compile.
#pragma once

#include "user_rules.hpp"

#include <zerograd/core/rules.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace builtin {
/// The library's softplus, found by argument-dependent lookup for each mode's scalar: inside
/// namespace laws, softplus names the user's rule of user_rules.hpp.
template <class X>
auto softplus_of(const X& x) {
    return softplus(x);
}
} // namespace builtin

namespace laws {

/// |a - b| within `tolerance` relative to the larger magnitude (absolute below 1).
inline bool close(double a, double b, double tolerance) {
    if (a == b) return true;
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

/// Two vectors of one size whose elements are close (see close).
inline bool all_close(const std::vector<double>& a, const std::vector<double>& b,
                      double tolerance) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!close(a[i], b[i], tolerance)) return false;
    return true;
}

/// Central differences of f (a function of a std::span<const double>) by each coordinate of x.
template <class F>
std::vector<double> central_gradient(const F& f, const std::vector<double>& x,
                                     double h = 1e-6) {
    std::vector<double> gradient(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        auto up = x, down = x;
        up[i] += h;
        down[i] -= h;
        gradient[i] =
            (f(std::span<const double>(up)) - f(std::span<const double>(down))) / (2 * h);
    }
    return gradient;
}

/// Sample points: near zero, moderate and large magnitudes, both signs; never a kink.
inline const std::vector<double> points = {-300, -50, -3.7, -1.3, -0.7, -0.3, -1e-3,
                                           1e-3, 0.3, 0.7,  1.3,  3.7,  50,   300};

template <class Op, class F, class D, class Domain>
struct unary_law {
    std::string_view name;
    F apply;      // [](auto x) { return sin(x); }, for any mode's scalar
    D derivative; // closed form on doubles
    Domain in_domain;
};

template <class Op, class F, class DL, class DR, class Domain>
struct binary_law {
    std::string_view name;
    F apply;
    DL dl; // closed forms on doubles
    DR dr;
    Domain in_domain;
};

template <class Op, class F, class D, class Domain>
unary_law<Op, F, D, Domain> unary(std::string_view name, F f, D d, Domain domain) {
    return {name, f, d, domain};
}
template <class Op, class F, class DL, class DR, class Domain>
binary_law<Op, F, DL, DR, Domain> binary(std::string_view name, F f, DL dl, DR dr, Domain domain) {
    return {name, f, dl, dr, domain};
}

inline constexpr auto anywhere = [](auto...) { return true; };
inline constexpr auto positive = [](double x) { return x > 0; };
inline constexpr auto below_overflow = [](double x) { return x < 700; };
inline constexpr auto inside_unit = [](double x) { return std::abs(x) < 1; };
inline constexpr auto away_from_poles = [](double x) { return std::abs(std::cos(x)) > 0.1; };

// clang-format off
inline const auto unary_laws = std::tuple{
    unary<zg::neg_op>("neg", [](auto x) { return -x; }, [](double) { return -1.0; }, anywhere),
    unary<zg::square_op>("square", [](auto x) { return square(x); },
        [](double x) { return 2 * x; }, anywhere),
    unary<zg::sqrt_op>("sqrt", [](auto x) { return sqrt(x); },
        [](double x) { return 0.5 / std::sqrt(x); }, positive),
    unary<zg::cbrt_op>("cbrt", [](auto x) { return cbrt(x); },
        [](double x) { return 1 / (3 * std::pow(std::abs(x), 2.0 / 3)); }, anywhere),
    unary<zg::exp_op>("exp", [](auto x) { return exp(x); },
        [](double x) { return std::exp(x); }, below_overflow),
    unary<zg::expm1_op>("expm1", [](auto x) { return expm1(x); },
        [](double x) { return std::exp(x); }, below_overflow),
    unary<zg::log_op>("log", [](auto x) { return log(x); },
        [](double x) { return 1 / x; }, positive),
    unary<zg::log1p_op>("log1p", [](auto x) { return log1p(x); },
        [](double x) { return 1 / (1 + x); }, [](double x) { return x > -1; }),
    unary<zg::sin_op>("sin", [](auto x) { return sin(x); },
        [](double x) { return std::cos(x); }, anywhere),
    unary<zg::cos_op>("cos", [](auto x) { return cos(x); },
        [](double x) { return -std::sin(x); }, anywhere),
    unary<zg::tan_op>("tan", [](auto x) { return tan(x); },
        [](double x) { return 1 / (std::cos(x) * std::cos(x)); }, away_from_poles),
    unary<zg::asin_op>("asin", [](auto x) { return asin(x); },
        [](double x) { return 1 / std::sqrt(1 - x * x); }, inside_unit),
    unary<zg::acos_op>("acos", [](auto x) { return acos(x); },
        [](double x) { return -1 / std::sqrt(1 - x * x); }, inside_unit),
    unary<zg::atan_op>("atan", [](auto x) { return atan(x); },
        [](double x) { return 1 / (1 + x * x); }, anywhere),
    unary<zg::sinh_op>("sinh", [](auto x) { return sinh(x); },
        [](double x) { return std::cosh(x); }, below_overflow),
    unary<zg::cosh_op>("cosh", [](auto x) { return cosh(x); },
        [](double x) { return std::sinh(x); }, below_overflow),
    unary<zg::tanh_op>("tanh", [](auto x) { return tanh(x); },
        [](double x) { return 1 / (std::cosh(x) * std::cosh(x)); }, anywhere),
    unary<zg::sigmoid_op>("sigmoid", [](auto x) { return sigmoid(x); },
        [](double x) { return std::exp(-x) / ((1 + std::exp(-x)) * (1 + std::exp(-x))); },
        [](double x) { return std::abs(x) < 700; }),
    unary<zg::softplus_op>("softplus", [](auto x) { return builtin::softplus_of(x); },
        [](double x) { return 1 / (1 + std::exp(-x)); }, anywhere),
    unary<zg::log_sigmoid_op>("log_sigmoid", [](auto x) { return log_sigmoid(x); },
        [](double x) { return 1 / (1 + std::exp(x)); }, anywhere),
    unary<zg::relu_op>("relu", [](auto x) { return relu(x); },
        [](double x) { return x > 0 ? 1.0 : 0.0; }, anywhere),
    unary<zg::abs_op>("abs", [](auto x) { return abs(x); },
        [](double x) { return x > 0 ? 1.0 : -1.0; }, anywhere),
    unary<zg::erf_op>("erf", [](auto x) { return erf(x); },
        [](double x) { return 2 / std::sqrt(std::numbers::pi) * std::exp(-x * x); }, anywhere),
    unary<softplus_rule>("softplus", [](auto x) { return softplus(x); },
        [](double x) { return 1 / (1 + std::exp(-x)); }, anywhere),
    unary<softplus_together_rule>("softplus, value_and_dx", [](auto x) { return softplus_together(x); },
        [](double x) { return 1 / (1 + std::exp(-x)); }, anywhere),
};

inline const auto binary_laws = std::tuple{
    binary<zg::add_op>("+", [](auto x, auto y) { return x + y; },
        [](double, double) { return 1.0; }, [](double, double) { return 1.0; }, anywhere),
    binary<zg::sub_op>("-", [](auto x, auto y) { return x - y; },
        [](double, double) { return 1.0; }, [](double, double) { return -1.0; }, anywhere),
    binary<zg::mul_op>("*", [](auto x, auto y) { return x * y; },
        [](double, double y) { return y; }, [](double x, double) { return x; }, anywhere),
    binary<zg::div_op>("/", [](auto x, auto y) { return x / y; },
        [](double, double y) { return 1 / y; }, [](double x, double y) { return -x / (y * y); },
        anywhere),
    binary<zg::pow_op>("pow", [](auto x, auto y) { return pow(x, y); },
        [](double x, double y) { return y * std::pow(x, y - 1); },
        [](double x, double y) { return std::pow(x, y) * std::log(x); },
        [](double x, double y) { return x > 0 && std::abs(y * std::log(x)) < 300; }),
    binary<zg::atan2_op>("atan2", [](auto x, auto y) { return atan2(x, y); },
        [](double x, double y) { return y / (x * x + y * y); },
        [](double x, double y) { return -x / (x * x + y * y); }, anywhere),
    binary<zg::hypot_op>("hypot", [](auto x, auto y) { return hypot(x, y); },
        [](double x, double y) { return x / std::sqrt(x * x + y * y); },
        [](double x, double y) { return y / std::sqrt(x * x + y * y); }, anywhere),
    binary<zg::min_op>("min", [](auto x, auto y) { return min(x, y); },
        [](double x, double y) { return x < y ? 1.0 : 0.0; },
        [](double x, double y) { return y < x ? 1.0 : 0.0; }, anywhere),
    binary<zg::max_op>("max", [](auto x, auto y) { return max(x, y); },
        [](double x, double y) { return x > y ? 1.0 : 0.0; },
        [](double x, double y) { return y > x ? 1.0 : 0.0; }, anywhere),
    binary<logaddexp_rule>("logaddexp", [](auto x, auto y) { return logaddexp(x, y); },
        [](double x, double y) { return std::exp(x) / (std::exp(x) + std::exp(y)); },
        [](double x, double y) { return std::exp(y) / (std::exp(x) + std::exp(y)); }, anywhere),
};
// clang-format on

template <class Law, class Check>
void for_points(const Law& law, Check& check) {
    for (double x : points)
        if (law.in_domain(x)) check(law, x);
}
template <class Law, class Check>
void for_pairs(const Law& law, Check& check) {
    for (double x : points)
        for (double y : points)
            if (x != y && law.in_domain(x, y)) check(law, x, y);
}

/// Calls check(law, x) for every unary law and every sample point in its domain.
template <class Check>
void for_each_unary_point(Check check) {
    std::apply([&](const auto&... law) { (for_points(law, check), ...); }, unary_laws);
}

/// Calls check(law, x, y) for every binary law and every pair of distinct sample points (ties
/// are kinks of min and max) in its domain.
template <class Check>
void for_each_binary_point(Check check) {
    std::apply([&](const auto&... law) { (for_pairs(law, check), ...); }, binary_laws);
}

/// The rule type behind a law.
template <class Law>
struct rule_of;
template <class Op, class F, class D, class Domain>
struct rule_of<unary_law<Op, F, D, Domain>> {
    using type = Op;
};
template <class Op, class F, class DL, class DR, class Domain>
struct rule_of<binary_law<Op, F, DL, DR, Domain>> {
    using type = Op;
};
template <class Law>
using rule_t = typename rule_of<std::remove_cvref_t<Law>>::type;

/// Whether a tuple of laws holds one for rule Op.
template <class Op, class Laws>
inline constexpr bool has_law = false;
template <class Op, class... Law>
inline constexpr bool has_law<Op, std::tuple<Law...>> = (std::is_same_v<Op, rule_t<Law>> || ...);

#define ZG_REQUIRE_UNARY_LAW(fn)                                                                   \
    static_assert(has_law<zg::fn##_op, std::remove_cvref_t<decltype(unary_laws)>>,                 \
                  "test/laws.hpp: the operation " #fn " has no law; add one to unary_laws");
#define ZG_REQUIRE_BINARY_LAW(fn, ...)                                                             \
    static_assert(has_law<zg::fn##_op, std::remove_cvref_t<decltype(binary_laws)>>,                \
                  "test/laws.hpp: the operation " #fn " has no law; add one to binary_laws");
ZG_UNARY_FUNCTIONS(ZG_REQUIRE_UNARY_LAW)
ZG_REQUIRE_UNARY_LAW(neg)
ZG_BINARY_FUNCTIONS(ZG_REQUIRE_BINARY_LAW)
ZG_BINARY_OPERATORS(ZG_REQUIRE_BINARY_LAW)
#undef ZG_REQUIRE_BINARY_LAW
#undef ZG_REQUIRE_UNARY_LAW

// ---- Reductions -------------------------------------------------------------------------------

/// A reduction's value and gradient at a point.
struct reduced {
    double value;
    std::vector<double> gradient;
};

inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// Points for the reductions: ordinary ones, the empty range, and every edge of the policy.
inline const std::vector<std::vector<double>> reduction_points = {
    {0.5, -1.25, 2.0},  {1000.0, 999.0, -1000.0}, {}, {3.0}, {-inf, -inf}, {-inf, 0.0, 1.0},
    {inf, 0.0},         {inf, inf, -2.0},         {inf, -inf}, {nan, 1.0}, {nan, inf},
    {0.0, inf, 2.0},    {0.0, 0.0, 4.0},          {-0.0, 1e308, 1e308}};

/// The policy for log_sum_exp, from its statement in core/reductions.hpp (not from the code
/// that implements it): shift by the largest element; no elements: -inf; every element -inf:
/// -inf with partials 0; some +inf: +inf with 1/m on the m infinite elements; NaN: NaN all over.
inline reduced log_sum_exp_law(const std::vector<double>& x) {
    const std::size_t n = x.size();
    if (std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); }))
        return {nan, std::vector<double>(n, nan)};
    const auto infinite = std::count(x.begin(), x.end(), inf);
    if (infinite > 0) {
        std::vector<double> g(n);
        for (std::size_t k = 0; k < n; ++k)
            g[k] = x[k] == inf ? 1.0 / static_cast<double>(infinite) : 0.0;
        return {inf, g};
    }
    if (std::all_of(x.begin(), x.end(), [](double v) { return v == -inf; }))
        return {-inf, std::vector<double>(n, 0.0)};
    const double shift = *std::max_element(x.begin(), x.end());
    double total = 0;
    for (double v : x)
        total += std::exp(v - shift);
    std::vector<double> g(n);
    for (std::size_t k = 0; k < n; ++k)
        g[k] = std::exp(x[k] - shift) / total;
    return {shift + std::log(total), g};
}

/// sum: IEEE's sum from first to last (0 when empty); every partial 1, whatever the values.
inline reduced sum_law(const std::vector<double>& x) {
    double total = 0;
    for (double v : x)
        total += v;
    return {total, std::vector<double>(x.size(), 1.0)};
}

/// prod: IEEE's product from first to last (1 when empty); the partial by x_k is the product of
/// the others, the ones before k times the ones after it.
inline reduced prod_law(const std::vector<double>& x) {
    double product = 1;
    for (double v : x)
        product *= v;
    std::vector<double> g(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
        double before = 1, after = 1;
        for (std::size_t j = 0; j < k; ++j)
            before *= x[j];
        for (std::size_t j = x.size(); j-- > k + 1;)
            after *= x[j];
        g[k] = before * after;
    }
    return {product, g};
}

/// Whether two numbers agree: both NaN, or equal to `tolerance` (0: to the bit).
inline bool agree(double a, double b, double tolerance = 0) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b) || tolerance == 0) return a == b;
    return close(a, b, tolerance);
}

} // namespace laws
