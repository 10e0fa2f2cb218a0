// zg::parallel::exact_sum: the exact sum rounded once, whatever the order of the terms or the
// way they were split and merged; checked against IEEE addition of two terms (itself correctly
// rounded), against cancellations floating point loses, and at the edges (subnormals, the largest
// doubles, infinities, NaN).
#include <zerograd/parallel/exact_sum.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

using zg::parallel::exact_sum;
using zg::parallel::exact_sums;

namespace {

double sum_of(const std::vector<double>& terms) {
    exact_sum s;
    for (double x : terms)
        s.add(x);
    return s.value();
}

// Doubles of every magnitude and sign, subnormals included: random bit patterns, NaN and
// infinities skipped; with `max_exponent`, their binary exponents folded into
// [-max_exponent, max_exponent].
std::vector<double> random_doubles(std::size_t count, std::uint64_t seed, int max_exponent = 0) {
    std::mt19937_64 generator(seed);
    std::vector<double> out;
    while (out.size() < count) {
        double x = std::bit_cast<double>(generator());
        if (!std::isfinite(x)) continue;
        if (max_exponent != 0) {
            int exponent = 0;
            const double fraction = std::frexp(x, &exponent);
            x = std::ldexp(fraction, exponent % (max_exponent + 1));
        }
        out.push_back(x);
    }
    return out;
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

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
    std::vector<double> terms = random_doubles(3000, 3, 60); // terms that interact
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

TEST_CASE("exact_sums: many sums in one window, each the same bits as its own exact_sum") {
    // Three sums of terms within 2^±40 of each other, and one whose terms span every magnitude,
    // which widens the window in steps.
    const std::vector<double> narrow = random_doubles(3000, 5, 40);
    const std::vector<double> wide = random_doubles(300, 6);
    exact_sums sums(4);
    std::vector<exact_sum> each(4);
    for (std::size_t k = 0; k < narrow.size(); ++k) {
        sums.add(k % 3, narrow[k]);
        each[k % 3].add(narrow[k]);
    }
    for (double x : wide) {
        sums.add(3, x);
        each[3].add(x);
    }
    for (std::size_t i = 0; i < 4; ++i)
        CHECK(bits(sums.value(i)) == bits(each[i].value()));
    const auto [first, last] = sums.window();
    CHECK(last - first >= 60); // widened to the wide terms' every magnitude
    exact_sums narrow_only(1);
    for (double x : narrow)
        narrow_only.add(0, x);
    // 2^±40 and a significand span 5 limbs; a few more for carries and room below.
    CHECK(narrow_only.window().second - narrow_only.window().first <= 9);
}

TEST_CASE("exact_sums: merged, or their limbs added as integers across processes, any split") {
    std::vector<double> terms = random_doubles(2000, 7, 60);
    terms.push_back(-0x1p-1074);
    exact_sum reference_even, reference_odd;
    for (std::size_t k = 0; k < terms.size(); ++k)
        (k % 2 == 0 ? reference_even : reference_odd).add(terms[k]);
    for (std::size_t parts : {1, 2, 5, 16}) {
        INFO(parts, " parts");
        std::vector<exact_sums> partial(parts, exact_sums(2));
        for (std::size_t k = 0; k < terms.size(); ++k)
            partial[(k * 31) % parts].add(k % 2, terms[k]);
        exact_sums merged(2);
        for (const exact_sums& p : partial)
            merged.merge(p);
        CHECK(bits(merged.value(0)) == bits(reference_even.value()));
        CHECK(bits(merged.value(1)) == bits(reference_odd.value()));
        // As a reduction across processes adds them: each part normalized and over the union
        // of the windows, its limbs added as integers.
        std::size_t first = 68, last = 0;
        for (const exact_sums& p : partial) {
            first = std::min(first, p.window().first);
            last = std::max(last, p.window().second);
        }
        for (exact_sums& p : partial) {
            p.normalize();
            p.cover(first, last);
        }
        exact_sums& added = partial[0];
        for (std::size_t part = 1; part < parts; ++part)
            for (std::size_t k = 0; k < added.limbs().size(); ++k)
                added.limbs()[k] += partial[part].limbs()[k];
        added.normalize();
        CHECK(bits(added.value(0)) == bits(reference_even.value()));
        CHECK(bits(added.value(1)) == bits(reference_odd.value()));
    }
}

TEST_CASE("exact_sums: negative totals, special values, and sums no term reached") {
    const double inf = std::numeric_limits<double>::infinity();
    exact_sums s(4);
    s.add(0, 3.0);
    s.add(0, -5.5);
    s.add(1, inf);
    s.add(1, 1.0);
    s.add(2, std::nan(""));
    CHECK(s.value(0) == -2.5);
    CHECK(s.value(1) == inf);
    CHECK(std::isnan(s.value(2)));
    CHECK(bits(s.value(3)) == bits(0.0));
    CHECK(s.special_counts()[3] == 0); // sum 1: no NaN, one +infinity, no -infinity
    CHECK(s.special_counts()[4] == 1);
    CHECK(s.special_counts()[5] == 0);
    exact_sums other(4);
    other.add(1, -inf);
    other.add(3, -0.25);
    s.merge(other);
    CHECK(std::isnan(s.value(1)));
    CHECK(s.value(3) == -0.25);
    // An empty window is the neutral element of the union: the least first, the greatest last.
    CHECK(exact_sums(3).window() == std::pair<std::size_t, std::size_t>{68, 0});
    CHECK_THROWS_WITH_AS(s.merge(exact_sums(3)),
                         "zg::parallel::exact_sums::merge: 3 sums merged into 4", zg::shape_error);
    CHECK(bits(exact_sums(3).value(1)) == bits(0.0));
}
