// test/differential/vectors.hpp: random programs over a vector, for differential testing of the
// reductions. A program's shape is drawn from a seed at compile time, so that expression mode
// can build it as a type; one generic builder then runs it in every mode. The shape: two vector
// intermediates made from the input (an elementwise function, or the sum or product of two
// vectors), three reductions (sum, prod, log_sum_exp, dot) of any of the three vectors, each
// vector reused as a named intermediate wherever the draw repeats it, and scalar operations
// folding the reductions into the result. Inputs are drawn at run time: empty and short
// vectors, with 0, infinities and NaN among the elements.
#pragma once

#include "differential/program.hpp" // random

// Every mode's reductions, declared before the builder names them.
#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>
#include <zerograd/tensor.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace differential::vectors {

enum class kind : std::uint8_t {
    map, // of a vector: fn picks sin, tanh, x * x, x * 1.5, exp
    add, // of two vectors
    mul,
    sum, // reductions of a vector (dot: of two)
    prod,
    log_sum_exp,
    dot,
    plus,           // of two scalars (fn picks +, - or *)
    scalar_function // of one scalar: fn picks tanh, sin or none
};

struct step {
    kind op;
    int a = 0, b = 0; // operands: vectors 0 (the input), 1, 2, or scalars 0 to 4
    int fn = 0;
};

/// v1 = map(v0); v2 = map or add or mul of v0, v1; s0, s1, s2 = reductions of v0..v2;
/// s3 = s0 (op) s1; s4 = s3 (op) s2; result = fn(s4).
using shape = std::array<step, 8>;

/// splitmix64 at compile time (the runtime generator is differential::random).
constexpr std::uint64_t mix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

constexpr shape make_shape(std::uint64_t seed) {
    std::uint64_t state = seed * 7919 + 1;
    const auto below = [&](int n) { return int(mix(state) % std::uint64_t(n)); };
    shape s{};
    s[0] = {kind::map, 0, 0, below(5)};
    const int second = below(3);
    s[1] = {second == 0   ? kind::map
            : second == 1 ? kind::add
                          : kind::mul,
            below(2), below(2), below(5)};
    for (int r = 0; r < 3; ++r) {
        constexpr kind reductions[] = {kind::sum, kind::prod, kind::log_sum_exp, kind::dot};
        s[2 + r] = {reductions[below(4)], below(3), below(3), 0};
    }
    s[5] = {kind::plus, 0, 1, below(3)};
    s[6] = {kind::plus, 3, 2, below(3)};
    s[7] = {kind::scalar_function, 4, 0, below(3)};
    return s;
}

/// Whether a shape's reductions are all sums and dots (those tensors have).
constexpr bool sums_only(const shape& s) {
    for (int r = 2; r < 5; ++r)
        if (s[r].op == kind::prod || s[r].op == kind::log_sum_exp) return false;
    return true;
}

/// The operations a mode's reductions go through: zg's own, found for each mode's ranges.
struct zg_reductions {
    template <class V>
    static auto sum(const V& v) {
        return zg::sum(v);
    }
    template <class V>
    static auto prod(const V& v) {
        return zg::prod(v);
    }
    template <class V>
    static auto log_sum_exp(const V& v) {
        return zg::log_sum_exp(v);
    }
    template <class V, class W>
    static auto dot(const V& v, const W& w) {
        return zg::dot(v, w);
    }
};

/// Runs shape S on x in any mode: elementwise functions and reductions are called unqualified
/// or through Reductions, so each mode takes its own.
template <const shape& S, class Reductions = zg_reductions, class X>
auto build(const X& x) {
    // Each choice is made at compile time: expression mode's trees differ in type per choice.
    const auto apply = [](const auto& v, auto fn) {
        if constexpr (fn() == 0)
            return sin(v);
        else if constexpr (fn() == 1)
            return tanh(v);
        else if constexpr (fn() == 2)
            return v * v;
        else if constexpr (fn() == 3)
            return v * 1.5;
        else
            return exp(v);
    };
    const auto v1 = apply(x, std::integral_constant<int, S[0].fn>{});
    const auto v2 = [&] {
        const auto pick = [&](auto i) -> decltype(auto) {
            if constexpr (i() == 0)
                return (x);
            else
                return (v1);
        };
        constexpr int a = S[1].a, b = S[1].b;
        if constexpr (S[1].op == kind::map)
            return apply(pick(std::integral_constant<int, a>{}),
                         std::integral_constant<int, S[1].fn>{});
        else if constexpr (S[1].op == kind::add)
            return pick(std::integral_constant<int, a>{}) + pick(std::integral_constant<int, b>{});
        else
            return pick(std::integral_constant<int, a>{}) * pick(std::integral_constant<int, b>{});
    }();
    const auto vector = [&](auto i) -> decltype(auto) {
        if constexpr (i() == 0)
            return (x);
        else if constexpr (i() == 1)
            return (v1);
        else
            return (v2);
    };
    const auto reduce = [&](auto r) {
        constexpr step s = S[r()];
        const auto& v = vector(std::integral_constant<int, s.a>{});
        if constexpr (s.op == kind::sum)
            return Reductions::sum(v);
        else if constexpr (s.op == kind::prod)
            return Reductions::prod(v);
        else if constexpr (s.op == kind::log_sum_exp)
            return Reductions::log_sum_exp(v);
        else
            return Reductions::dot(v, vector(std::integral_constant<int, s.b>{}));
    };
    const auto s0 = reduce(std::integral_constant<int, 2>{});
    const auto s1 = reduce(std::integral_constant<int, 3>{});
    const auto s2 = reduce(std::integral_constant<int, 4>{});
    const auto combine = [](const auto& l, const auto& r, auto fn) {
        if constexpr (fn() == 0)
            return l + r;
        else if constexpr (fn() == 1)
            return l - r;
        else
            return l * r;
    };
    const auto s3 = combine(s0, s1, std::integral_constant<int, S[5].fn>{});
    const auto s4 = combine(s3, s2, std::integral_constant<int, S[6].fn>{});
    if constexpr (S[7].fn == 0)
        return tanh(s4);
    else if constexpr (S[7].fn == 1)
        return sin(s4);
    else
        return s4;
}

/// The text of a shape, for reports.
inline std::string describe(const shape& s) {
    static const char* maps[] = {"sin", "tanh", "square", "scale", "exp"};
    static const char* reductions[] = {"", "", "", "sum", "prod", "log_sum_exp", "dot"};
    static const char* combines[] = {"+", "-", "*"};
    static const char* finals[] = {"tanh", "sin", ""};
    const auto v = [](int i) { return "v" + std::to_string(i); };
    std::string text = "v1 = " + std::string(maps[s[0].fn]) + "(v0); v2 = ";
    if (s[1].op == kind::map)
        text += std::string(maps[s[1].fn]) + "(" + v(s[1].a) + ")";
    else
        text += v(s[1].a) + (s[1].op == kind::add ? " + " : " * ") + v(s[1].b);
    for (int r = 0; r < 3; ++r) {
        const step& st = s[2 + r];
        text += "; s" + std::to_string(r) + " = " + reductions[int(st.op)] + "(" + v(st.a) +
                (st.op == kind::dot ? ", " + v(st.b) : std::string()) + ")";
    }
    text += "; y = " + std::string(finals[s[7].fn]) + "((s0 " + combines[s[5].fn] + " s1) " +
            combines[s[6].fn] + " s2)";
    return text;
}

/// An input: empty or short, each element ordinary (in (-2, 2)) or now and then 0, an infinity,
/// NaN or large (where exp and products overflow).
inline std::vector<double> draw_input(random& rng) {
    constexpr int lengths[] = {0, 1, 2, 2, 3, 3, 4, 5};
    const auto length = static_cast<std::size_t>(lengths[rng.below(8)]);
    std::vector<double> x(length);
    for (double& e : x) {
        const int k = rng.below(100);
        e = k < 78   ? rng.uniform(-2, 2)
            : k < 84 ? 0.0
            : k < 88 ? std::numeric_limits<double>::infinity()
            : k < 92 ? -std::numeric_limits<double>::infinity()
            : k < 95 ? std::numeric_limits<double>::quiet_NaN()
                     : (rng.chance(0.5) ? 800.0 : -800.0);
    }
    return x;
}

} // namespace differential::vectors
