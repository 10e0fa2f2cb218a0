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

TEST_CASE("every operation on another live thread's variable is an error naming it") {
    auto& main_tape = zg::tape::this_thread_tape();
    zg::var a = 0.5, b = 2.0;
    const std::vector<zg::var> range{a, b};
    const auto main_size = main_tape.size();
    std::thread([&] {
        auto& own = zg::tape::this_thread_tape();
        zg::var mine = 1.0;
        const auto own_size = own.size();
        using doctest::Contains;
        CHECK_THROWS_WITH_AS(sin(a),
                             "zg::tape: operation sin on a variable of another thread's tape; each "
                             "thread records on its own tape: give each thread variables made "
                             "there (from the values, data())",
                             zg::error);
        CHECK_THROWS_WITH_AS(a * 2.0, Contains("operation * on a variable of another thread's"),
                             zg::error);
        CHECK_THROWS_WITH_AS(2.0 - a, Contains("operation - on"), zg::error);
        CHECK_THROWS_WITH_AS(pow(a, 3), Contains("operation pow on"), zg::error);
        CHECK_THROWS_WITH_AS(a + b, Contains("operation + on"), zg::error);
        CHECK_THROWS_AS(a * mine, zg::error);
        CHECK_THROWS_AS(mine * a, zg::error);
        zg::var copy = a;
        CHECK_THROWS_AS(copy += 1.0, zg::error);
        CHECK(copy.index() == a.index());
        CHECK_THROWS_WITH_AS(a.backward(), Contains("operation backward on"), zg::error);
        CHECK_THROWS_WITH_AS(zg::sum(range), Contains("zg::sum: the variables are on another"),
                             zg::error);
        CHECK_THROWS_WITH_AS(zg::log_sum_exp(range), Contains("another thread's tape"),
                             zg::error);
        CHECK_THROWS_AS(zg::dot(range, range), zg::error);
        CHECK_THROWS_AS(zg::sum(range, [](const zg::var& x) { return x * x; }), zg::error);
        CHECK_THROWS_AS(zg::to_dot(a), zg::error);
        CHECK_THROWS_AS(zg::tape::grad([&](auto x) { return x * a; }, 1.0), zg::error);
        CHECK_THROWS_AS(zg::var(main_tape, 1.0), zg::error);
        CHECK(own.size() == own_size);
        // Values may be read, to make this thread's own variables from them.
        zg::var local = a.data();
        CHECK(zg::tape::grad([&](auto x) { return x * local; }, 3.0)[0] == 0.5);
    }).join();
    CHECK(main_tape.size() == main_size);
    const zg::var y = a * b; // the main thread's variables still work where they were made
    y.backward();
    CHECK(a.grad() == 2.0);
}

TEST_CASE("eight threads training one model made on the main thread are refused, not raced") {
    zg::var w = 0.5, bias = -0.25;
    std::array<int, 8> refused{};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int step = 0; step < 100; ++step) {
                try {
                    zg::tape::scope step_scope;
                    zg::var loss = square(w * 3.0 + bias);
                    loss.backward();
                } catch (const zg::error&) {
                    ++refused[t];
                }
            }
        });
    for (auto& thread : threads)
        thread.join();
    for (const int count : refused)
        CHECK(count == 100);
    CHECK(w.grad() == 0.0);
    zg::var loss = square(w * 3.0 + bias);
    loss.backward();
    CHECK(w.grad() == 6 * 1.25);
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

TEST_CASE("a scope ended on another thread is an error, and both tapes are left as they were") {
    zg::var x = 2.0;
    auto& tape = zg::tape::this_thread_tape();
    auto* step_scope = new zg::tape::scope;
    zg::var y = x * x * 3.0;
    const auto size = tape.size();
    std::thread([&] {
        zg::var own = 5.0; // this thread's tape, which the misplaced end must not touch
        zg::var own_square = own * own;
        const auto own_size = zg::tape::this_thread_tape().size();
        CHECK_THROWS_WITH_AS(delete step_scope, doctest::Contains("ended on a thread other than"),
                             zg::error);
        CHECK(zg::tape::this_thread_tape().size() == own_size);
        own_square.backward();
        CHECK(own.grad() == 10.0);
    }).join();
    CHECK(tape.size() == size);
    y.backward();
    CHECK(x.grad() == 12.0);
    {
        zg::tape::scope later; // the tape still rewinds as before
        zg::var z = y * x;
        CHECK(z.data() == 24.0);
    }
    CHECK(tape.size() == size);
}

TEST_CASE("a scope that outlives its thread is an error on the thread that takes its tape over") {
    zg::tape::scope* left = nullptr;
    std::thread([&] {
        zg::var x = 1.0;
        left = new zg::tape::scope;
        const zg::var y = x * 2.0 + 1.0;
        CHECK(y.data() == 3.0);
    }).join();
    std::thread([&] {
        // Likely on the retired tape, whose old mark and operand count the scope holds.
        zg::var a = 2.0, c = 3.0;
        zg::var cube = a * a * a;
        auto& tape = zg::tape::this_thread_tape();
        const auto size = tape.size();
        const auto operands = tape.operand_count();
        CHECK_THROWS_WITH_AS(delete left, doctest::Contains("ended on a thread other than"),
                             zg::error);
        CHECK(tape.size() == size);
        CHECK(tape.operand_count() == operands);
        zg::var p = cube * c;
        p.backward();
        CHECK(a.grad() == 3 * 4.0 * 3.0);
    }).join();
}
