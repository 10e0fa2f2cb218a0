// zg::parallel::exact_sum: the exact sum rounded once, whatever the order of the terms or the
// way they were split and merged; checked against IEEE addition of two terms (itself correctly
// rounded), against cancellations floating point loses, and at the edges (subnormals, the largest
// doubles, infinities, NaN).
#include <zerograd/parallel/exact_sum.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using zg::parallel::exact_sum;

namespace {

double sum_of(const std::vector<double>& terms) {
    exact_sum s;
    for (double x : terms)
        s.add(x);
    return s.value();
}

// Doubles of every magnitude and sign, subnormals included: random bit patterns, NaN and
// infinities skipped.
std::vector<double> random_doubles(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 generator(seed);
    std::vector<double> out;
    while (out.size() < count) {
        const double x = std::bit_cast<double>(generator());
        if (std::isfinite(x)) out.push_back(x);
    }
    return out;
}

} // namespace

TEST_CASE("two terms: the same as IEEE addition, which rounds the exact sum once") {
    const std::vector<double> a = random_doubles(20000, 1), b = random_doubles(20000, 2);
    const double tiny = std::numeric_limits<double>::denorm_min();
    std::size_t disagreements = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        // Pairs of close magnitudes too, where the low digits decide the rounding.
        const double near = std::ldexp(b[i] - std::trunc(b[i]), std::ilogb(a[i]) + 1);
        for (const double other : {b[i], std::isfinite(near) ? near : 1.0, -a[i] * 0.75, tiny}) {
            const double expected = a[i] + other;
            if (!std::isfinite(expected)) continue;
            const double got = sum_of({a[i], other});
            disagreements += std::bit_cast<std::uint64_t>(got) !=
                             std::bit_cast<std::uint64_t>(expected == 0.0 ? 0.0 : expected);
        }
    }
    CHECK(disagreements == 0);
}

TEST_CASE("cancellations that floating-point addition loses") {
    CHECK(sum_of({1e100, 1.0, -1e100}) == 1.0);
    CHECK(sum_of({1.0, 1e100, -1e100}) == 1.0);
    CHECK(sum_of({0x1p-1074, 1.0, -1.0}) == 0x1p-1074);
    CHECK(sum_of({0x1p1023, 0x1p1023, -0x1p1023}) == 0x1p1023); // past the largest double midway
    // 0.1 ten times is 1.0000000000000000555..., which rounds to 1.
    CHECK(sum_of(std::vector<double>(10, 0.1)) == 1.0);
    // 1 + 2^-53 + 2^-53 is 1 + 2^-52 exactly; adding from the left rounds to 1 twice.
    CHECK(sum_of({1.0, 0x1p-53, 0x1p-53}) == 1.0 + 0x1p-52);
    // A tie (1 + 2^-53) rounds to even; a bit far below breaks it upward.
    CHECK(sum_of({1.0, 0x1p-53}) == 1.0);
    CHECK(sum_of({1.0, 0x1p-53, 0x1p-1000}) == 1.0 + 0x1p-52);
    CHECK(sum_of({-1.0, -0x1p-53, -0x1p-1000}) == -1.0 - 0x1p-52);
    CHECK(sum_of({}) == 0.0);
    CHECK(sum_of({3.5, -3.5}) == 0.0);
}

TEST_CASE("any order and any split give the same bits") {
    std::vector<double> terms = random_doubles(3000, 3);
    for (double& x : terms) { // magnitudes from 2^-60 to 2^60, so that they interact
        int exponent = 0;
        const double fraction = std::frexp(x, &exponent);
        x = std::ldexp(fraction, exponent % 61);
    }
    const double reference = sum_of(terms);
    std::mt19937_64 generator(4);
    for (int trial = 0; trial < 5; ++trial) {
        std::shuffle(terms.begin(), terms.end(), generator);
        const std::size_t parts = 1 + static_cast<std::size_t>(trial) * 3;
        std::vector<exact_sum> partial(parts);
        for (std::size_t i = 0; i < terms.size(); ++i)
            partial[(i * 7919) % parts].add(terms[i]);
        exact_sum total;
        for (const exact_sum& p : partial)
            total.merge(p);
        CHECK(std::bit_cast<std::uint64_t>(total.value()) ==
              std::bit_cast<std::uint64_t>(reference));
    }
    // A long double or a sorted sum does not give the same bits; the exact sum is within half a
    // unit in the last place of a careful one.
    std::vector<double> sorted = terms;
    std::sort(sorted.begin(), sorted.end(),
              [](double a, double b) { return std::abs(a) < std::abs(b); });
    long double careful = 0.0L;
    for (double x : sorted)
        careful += x;
    CHECK(std::abs(reference - static_cast<double>(careful)) <=
          std::abs(reference) * std::numeric_limits<double>::epsilon());
}

TEST_CASE("the edges: the largest doubles, overflow, infinities and NaN") {
    const double big = std::numeric_limits<double>::max();
    CHECK(sum_of({big, big, -big}) == big);
    CHECK(sum_of({big, big}) == std::numeric_limits<double>::infinity());
    CHECK(sum_of({-big, -big}) == -std::numeric_limits<double>::infinity());
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(sum_of({1.0, inf, 2.0}) == inf);
    CHECK(sum_of({-inf, 1.0}) == -inf);
    CHECK(std::isnan(sum_of({inf, -inf})));
    CHECK(std::isnan(sum_of({1.0, std::nan("")})));
    exact_sum with_infinity, with_nan;
    with_infinity.add(inf);
    with_nan.add(std::nan(""));
    with_infinity.merge(with_nan);
    CHECK(std::isnan(with_infinity.value()));
}

TEST_CASE("carries: many large terms of one sign, then their cancellation") {
    exact_sum s;
    for (int i = 0; i < 1'000'000; ++i)
        s.add(0x1.fffffffffffffp+1000);
    for (int i = 0; i < 1'000'000; ++i)
        s.add(-0x1.fffffffffffffp+1000);
    s.add(0.5);
    CHECK(s.value() == 0.5);
}
