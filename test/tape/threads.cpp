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

TEST_CASE("a variable that outlives its thread reports dangling_var") {
    // The thread's tape is retired when the thread ends, not freed: the handle reads no freed
    // memory, and a later thread that takes the tape over does not revive it.
    zg::var left, parameter;
    std::thread([&] {
        zg::var x = 3.0;
        left = x * x;
        CHECK(left.data() == 9.0);
    }).join();
    CHECK_THROWS_AS((void)left.data(), zg::dangling_var);
    CHECK_THROWS_AS(left + 1.0, zg::dangling_var);
    std::thread([&] {
        // Likely on the retired tape: its first nodes take the indices `left` named.
        zg::var a = 5.0, b = 7.0;
        zg::var c = a * b;
        CHECK_THROWS_AS(left.backward(), zg::dangling_var);
        c.backward();
        CHECK(a.grad() == 7.0);
        // A parameter made before the steps of a training loop lives across their rewinds.
        zg::var w = 0.5;
        for (int step = 0; step < 3; ++step) {
            zg::tape::scope step_scope;
            zg::var loss = square(w * 3.0 - 1.0);
            loss.backward();
            w.data() -= 0.1 * w.grad();
            w.grad() = 0;
        }
        double expected = 0.5; // the same steps by hand: d/dw (3w - 1)^2 = 6 (3w - 1)
        for (int step = 0; step < 3; ++step) expected -= 0.1 * 6 * (3 * expected - 1);
        CHECK(w.data() == doctest::Approx(expected).epsilon(1e-15));
        CHECK(w.data() == doctest::Approx(0.248));
        parameter = w;
    }).join();
    CHECK_THROWS_AS((void)parameter.grad(), zg::dangling_var);
    CHECK_THROWS_AS((void)left.data(), zg::dangling_var);
}
