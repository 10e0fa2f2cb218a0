// Every way data that dies before the sweep can enter an expression: a container local to the
// lambda, to a helper that returns a vector expression over it, or a temporary, in every
// construct that reads it later (a sum outside the helper, a named intermediate, a map-reduce, an
// elementwise expression kept by a shared node, a sum inside an element function). Containers are
// copied into the call's frame; views (std::span) are read in place. Built under the sanitizers,
// these are the tests that a read after the data died would fail.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <ranges>
#include <span>
#include <vector>

namespace {

/// A helper that mixes data of its own into a vector expression and returns the expression.
template <class V>
auto weighted(const V& v) {
    std::vector<double> w = {1, 2, 3};
    return v * w;
}
template <class V>
auto weighted_by_array(const V& v) {
    const std::array<double, 3> w = {1, 2, 3};
    return w * v;
}
template <class S>
auto scaled_weights(const S& s) {
    std::vector<double> w = {1, 2, 3};
    return s * w; // a scalar broadcast over the helper's data
}

} // namespace

TEST_CASE("a vector expression over a helper's data, reduced after the helper returned") {
    const std::vector<double> ones{1.0, 1.0, 1.0};
    const std::vector<double> w{1.0, 2.0, 3.0};
    SUBCASE("std::vector and std::array, summed") {
        for (const auto& g : {std::get<0>(zg::grad([](auto v) { return zg::sum(weighted(v)); }, ones)),
                              std::get<0>(zg::grad(
                                  [](auto v) { return zg::sum(weighted_by_array(v)); }, ones))})
            CHECK(g == w);
    }
    SUBCASE("named, then used twice") {
        // f = sum(v * w) + dot(v * w, v): df/dv_k = w_k + 2 w_k v_k = 3 w_k at v = 1.
        const auto g = std::get<0>(zg::grad(
            [](auto v) {
                const auto e = weighted(v);
                return zg::sum(e) + zg::dot(e, v);
            },
            ones));
        CHECK(g == std::vector<double>{3.0, 6.0, 9.0});
    }
    SUBCASE("mapped over, and under a product the sweep reaches later") {
        // f = sum_k (v_k w_k)^2 * prod(v * w): at v = 1, sum = 14, prod = 6.
        const auto g = std::get<0>(zg::grad(
            [](auto v) {
                return zg::sum(weighted(v), [](auto x) { return square(x); }) *
                       zg::prod(weighted(v));
            },
            ones));
        const auto [t] = zg::tape::grad(
            [](std::span<const zg::var> v) {
                zg::var squares = 0.0, product = 1.0;
                for (std::size_t k = 0; k < 3; ++k) {
                    squares += square(v[k] * double(k + 1));
                    product *= v[k] * double(k + 1);
                }
                return squares * product;
            },
            ones);
        for (std::size_t k = 0; k < 3; ++k)
            CHECK(laws::close(g[k], t[k], 1e-13));
    }
    SUBCASE("a scalar leaf broadcast over the helper's data") {
        // f = sum(s * w) * s = 6 s^2: df/ds = 12 s.
        const auto g = zg::grad([](auto s) { return zg::sum(scaled_weights(s)) * s; }, 1.5);
        CHECK(g[0] == 18.0);
    }
    SUBCASE("inside an element function, kept for the enclosing element's sweep") {
        // f = sum_i log_sum_exp_j (v_j w_j i): the inner sums are kept (nested), their data
        // local to the element function.
        const auto f = [](auto v) {
            return zg::sum(std::views::iota(1, 4), [&](int i) {
                std::vector<double> scale{double(i), double(i), double(i)};
                return zg::log_sum_exp(weighted(v) * scale);
            });
        };
        const auto g = std::get<0>(zg::grad(f, ones));
        const auto [t] = zg::tape::grad(
            [](std::span<const zg::var> v) {
                zg::var total = 0.0;
                for (int i = 1; i < 4; ++i) {
                    zg::var s = 0.0;
                    for (std::size_t j = 0; j < 3; ++j)
                        s += exp(v[j] * double(j + 1) * double(i));
                    total += log(s);
                }
                return total;
            },
            ones);
        for (std::size_t k = 0; k < 3; ++k)
            CHECK(laws::close(g[k], t[k], 1e-13));
    }
}

TEST_CASE("a span is a promise that its data lives through the call: read in place") {
    const std::vector<double> data{1.0, 2.0, 3.0};
    const auto g = zg::grad(
        [&](auto s) { return zg::sum(s * std::span<const double>(data)) + zg::dot(std::span(data), s * data); },
        2.0);
    CHECK(g[0] == 6.0 + 14.0);
}
