// Each thread records on its own tape: threads differentiate at once and agree bit for bit.
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <thread>
#include <vector>

namespace {
double gradient_sum(int seed) {
    double total = 0;
    for (int i = 0; i < 2000; ++i) {
        const double x = 0.001 * (i + seed);
        const auto g = zg::tape::grad(
            [](auto a, auto b) {
                auto y = a;
                for (int k = 0; k < 20; ++k)
                    y = sin(y * b) + a * 0.5;
                return y;
            },
            x, 1.3);
        total += g[0] + g[1];
    }
    return total;
}
} // namespace

TEST_CASE("eight threads at once match the single-threaded results") {
    std::array<double, 8> expected{}, actual{};
    for (int t = 0; t < 8; ++t)
        expected[t] = gradient_sum(t);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] { actual[t] = gradient_sum(t); });
    for (auto& thread : threads)
        thread.join();
    CHECK(actual == expected);
}

TEST_CASE("mixing two threads' variables is an error") {
    zg::var here = 1.0;
    std::thread([&] {
        zg::var there = 2.0;
        CHECK_THROWS_AS(here * there, zg::error);
    }).join();
}
