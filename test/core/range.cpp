// zg::range: the integers [first, last) as a sized random-access range that zg::sum(range, fn),
// zg::log_sum_exp(range, fn) and zg::scan take in every mode and with every compiler.
#include <zerograd/core/range.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <iterator>
#include <ranges>
#include <type_traits>
#include <vector>

static_assert(std::ranges::random_access_range<zg::index_range<int>>);
static_assert(std::ranges::sized_range<zg::index_range<int>>);
static_assert(std::ranges::borrowed_range<zg::index_range<int>>);
static_assert(std::sized_sentinel_for<zg::index_range<int>::iterator, zg::index_range<int>::iterator>);
static_assert(std::is_same_v<std::ranges::range_value_t<zg::index_range<long>>, long>);
static_assert(std::is_same_v<decltype(zg::range(0, std::size_t{3})), zg::index_range<std::size_t>>);

TEST_CASE("zg::range counts from first up to, not including, last") {
    std::vector<int> seen;
    for (const int i : zg::range(4))
        seen.push_back(i);
    CHECK(seen == std::vector<int>{0, 1, 2, 3});
    const auto r = zg::range(2, 7);
    CHECK(r.size() == 5);
    CHECK(r[3] == 5);
    CHECK(*(r.begin() + 4) == 6);
    CHECK(r.end() - r.begin() == 5);
    CHECK(std::ranges::distance(r) == 5);
    CHECK(zg::range(3, 3).empty());
    CHECK(zg::range(0).size() == 0);
    std::size_t total = 0;
    for (const std::size_t k : zg::range(std::size_t{1}, std::size_t{4}))
        total += k;
    CHECK(total == 6);
    // Usable in constant expressions.
    static_assert(zg::range(5)[4] == 4 && zg::range(1, 3).size() == 2);
}

TEST_CASE("an end before the start is an error, not billions of elements") {
    CHECK_THROWS_WITH_AS(zg::range(5, 2), "zg::range(first, last): last (2) comes before first (5)",
                         zg::error);
    const int n = 0;
    CHECK_THROWS_AS(zg::range(0, n - 1), zg::error);
    CHECK_THROWS_AS(zg::range(-1), zg::error);
}
