// zg::let: one forward value, one adjoint and one local backward for every use.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <thread>

namespace {
template <int N>
constexpr auto chain(auto w, auto x) {
    if constexpr (N == 0)
        return w;
    else
        return chain<N - 1>(zg::let(w * w * 0.5 + x), x);
}

auto bound_scaled(auto x, double c) { return zg::let(x * c); }
} // namespace

TEST_CASE("a bound subexpression used several times") {
    const auto f = [](auto x, auto y) {
        const auto s = zg::let(sin(x) * y);
        return s * s + s / y + exp(s);
    };
    const auto g = zg::grad(f, 0.5, 2.0);
    const auto t = zg::tape::grad(f, 0.5, 2.0);
    CHECK(laws::close(g[0], t[0], 1e-14));
    CHECK(laws::close(g[1], t[1], 1e-14));
}

TEST_CASE("lets that use lets") {
    const auto f = [](auto x) {
        const auto a = zg::let(x * x);
        const auto b = zg::let(a + sin(a));
        return a * b + b * b;
    };
    CHECK(laws::close(zg::grad(f, 0.7)[0], zg::tape::grad(f, 0.7)[0], 1e-14));
}

TEST_CASE("a chain of 60 lets, each using the previous one twice") {
    // Copying the tree instead of binding would make 2^60 copies.
    const auto [value, grad] = zg::value_and_grad([](auto x) { return chain<60>(x, x); }, 0.3);
    double w = 0.3, dw = 1;
    for (int i = 0; i < 60; ++i) {
        dw = w * dw + 1;
        w = w * w * 0.5 + 0.3;
    }
    CHECK(value == w);
    CHECK(laws::close(grad[0], dw, 1e-14));
}

TEST_CASE("one helper binding two different subexpressions gives each its own node") {
    // d/dx of (2x)(3x) = 12x, of (2x)^2 = 8x
    const auto two = [](auto x) { return bound_scaled(x, 2.0) * bound_scaled(x, 3.0); };
    CHECK(zg::grad(two, 1.5)[0] == 12 * 1.5);
    const auto same = [](auto x) { return bound_scaled(x, 2.0) * bound_scaled(x, 2.0); };
    CHECK(zg::grad(same, 1.5)[0] == 2 * 4 * 1.5);
    // Built on two threads: still two nodes of one call.
    const auto across_threads = [](auto x) {
        std::optional<decltype(bound_scaled(x, 1.0))> a, b;
        std::thread([&] { a.emplace(bound_scaled(x, 2.0)); }).join();
        std::thread([&] { b.emplace(bound_scaled(x, 3.0)); }).join();
        return *a * *b;
    };
    CHECK(zg::grad(across_threads, 1.5)[0] == 12 * 1.5);
}
