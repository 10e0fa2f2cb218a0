// Backward through ten million nodes: no recursion, and the memory it takes.
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>

TEST_CASE("a chain of 10,000,000 nodes") {
    constexpr int n = 10'000'000;
    zg::tape::scope chain;
    auto& tape = zg::tape::this_thread_tape();
    zg::var x = 1.0;
    zg::var y = x;
    const auto before = tape.size();
    for (int i = 0; i < n; ++i)
        y = y * 0.9999999;
    CHECK(tape.size() - before == n);
    y.backward();
    CHECK(std::abs(x.grad() / std::pow(0.9999999, n) - 1) < 1e-8);
    // A unary node: value (8), operation and arity (2), adjoint (8), and one operand: partial
    // (8) and index (4). The leaf has no operand.
    CHECK(tape.bytes_used() == 30 * std::size_t(tape.size()) - 12);
    MESSAGE("bytes per unary node: 30; arena capacity per node: ",
            double(tape.capacity_bytes()) / tape.size());
}

TEST_CASE("values read from the tape while the tape grows") {
    // zg::var(b.data()) hands the recording a reference into the arena that growing moves.
    // So do b * one.data() and one.data() * b, whose constant is read after making room.
    zg::tape::scope step;
    zg::var b = 0.25;
    const zg::var one = 1.0;
    int wrong = 0;
    for (int i = 0; i < 100'000; ++i) {
        b = zg::var(b.data());
        b = one.data() * (b * one.data());
        wrong += b.data() != 0.25;
    }
    CHECK(wrong == 0);
}
