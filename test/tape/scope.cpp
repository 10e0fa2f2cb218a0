// Reclaiming a finished step: parameters live on, memory stays flat, dangling use is reported.
#include "allocation_counter.hpp"

#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <vector>

TEST_CASE("a step's nodes are reclaimed, parameters live on") {
    zg::var w = 0.5;
    zg::var outside = 2 * w;
    zg::var inside_copy;
    {
        zg::tape::scope step;
        zg::var loss = square(w * 3.0 - 1.0) + outside;
        loss.backward();
        inside_copy = loss;
        CHECK(w.grad() == 2 * (1.5 - 1.0) * 3.0 + 2.0);
    }
    CHECK(w.data() == 0.5);
    CHECK(outside.data() == 1.0);
    CHECK_THROWS_AS(inside_copy.data(), zg::dangling_var);
    CHECK_THROWS_AS(inside_copy.grad(), zg::dangling_var);
    CHECK_THROWS_AS(inside_copy.backward(), zg::dangling_var);
    CHECK_THROWS_AS(inside_copy + 1.0, zg::dangling_var);
    CHECK_THROWS_WITH_AS(w * inside_copy, doctest::Contains("reclaimed"), zg::dangling_var);

    SUBCASE("a reused slot is still detected") {
        zg::var reused = w * 4.0; // lands where the step's first node was
        CHECK(reused.data() == 2.0);
        CHECK_THROWS_AS(inside_copy.data(), zg::dangling_var);
    }
    SUBCASE("after the error the tape is usable and correct") {
        w.grad() = 0;
        zg::var y = w * w;
        y.backward();
        CHECK(w.grad() == 1.0);
    }
}

TEST_CASE("nested scopes") {
    zg::var x = 1.0;
    zg::tape::scope outer;
    zg::var a = x * 2;
    zg::var b;
    {
        zg::tape::scope inner;
        b = a * 3;
        CHECK(b.data() == 6.0);
    }
    CHECK(a.data() == 2.0);
    CHECK_THROWS_AS(b.data(), zg::dangling_var);
}

TEST_CASE("a training loop of 100,000 steps keeps memory flat") {
    zg::var w = 0.0, bias = 0.0;
    auto& tape = zg::tape::this_thread_tape();
    const auto parameters_end = tape.size();
    const auto step = [&](int i) {
        zg::tape::scope step_scope;
        const double x = (i % 7) * 0.25, target = 3 * x - 1;
        zg::var loss = square(w * x + bias - target);
        loss.backward();
        w.data() -= 0.05 * w.grad();
        bias.data() -= 0.05 * bias.grad();
        w.grad() = 0;
        bias.grad() = 0;
    };
    for (int i = 0; i < 100; ++i)
        step(i); // warm-up
    const long allocations_before = test::allocation_count();
    const auto bytes_before = tape.capacity_bytes();
    for (int i = 100; i < 100'000; ++i)
        step(i);
    CHECK(test::allocation_count() == allocations_before);
    CHECK(tape.capacity_bytes() == bytes_before);
    CHECK(tape.size() == parameters_end);
    CHECK(w.data() == doctest::Approx(3.0).epsilon(1e-6));
    CHECK(bias.data() == doctest::Approx(-1.0).epsilon(1e-6));
}

TEST_CASE("dangling handles are told apart from live ones across rewinds to many marks") {
    // A model of the tape: a handle is dead once a rewind went back to or below its node.
    // Random recordings and rewinds (to marks above, at and below earlier ones) against it.
    auto& tape = zg::tape::this_thread_tape();
    zg::tape::scope everything;
    struct handle {
        zg::var x;
        bool alive;
    };
    std::vector<handle> handles;
    std::vector<zg::tape::basic_tape<double>::mark_type> marks{tape.mark()};
    std::uint64_t state = 12345;
    const auto next = [&state](std::uint64_t n) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        return (state >> 33) % n;
    };
    int mismatches = 0;
    for (int step = 0; step < 10'000; ++step) {
        const auto choice = next(10);
        if (choice < 6) {
            handles.push_back({zg::var(double(step)) * 2.0, true});
        } else if (choice < 8) {
            marks.push_back(tape.mark());
        } else {
            const auto mark = marks[next(marks.size())];
            tape.rewind(mark);
            for (handle& h : handles)
                if (h.x.index() >= mark.nodes) h.alive = false;
            std::erase_if(marks, [&](const auto& m) { return m.nodes > mark.nodes; });
        }
        if (step % 61 == 0)
            for (const handle& h : handles) {
                bool threw = false;
                try {
                    (void)h.x.data();
                } catch (const zg::dangling_var&) {
                    threw = true;
                }
                mismatches += threw == h.alive;
            }
    }
    CHECK(mismatches == 0);
}

TEST_CASE("references from data() and grad() stay valid however much the tape grows") {
    // An optimizer that keeps references to its parameters' numbers, as PyTorch's and
    // micrograd's parameters let it.
    std::vector<zg::var> parameters{zg::var(0.5), zg::var(-1.5)};
    std::vector<std::reference_wrapper<double>> values, grads;
    for (const zg::var& p : parameters) {
        values.emplace_back(p.data());
        grads.emplace_back(p.grad());
    }
    const double* first_value = &parameters[0].data();
    for (int step = 0; step < 3; ++step) {
        zg::tape::scope step_scope;
        // Millions of nodes: the tape grows many times over within the step.
        zg::var loss = parameters[0] * parameters[1];
        for (int k = 0; k < 2'000'000; ++k)
            loss = loss + parameters[0] * 1e-9;
        loss.backward();
        for (std::size_t i = 0; i < values.size(); ++i) {
            values[i].get() -= 0.1 * grads[i].get();
            grads[i].get() = 0;
        }
    }
    CHECK(&parameters[0].data() == first_value);
    // By hand: d/da (a b + 2e-3 a) = b + 2e-3, d/db = a, three steps of 0.1.
    double a = 0.5, b = -1.5;
    for (int step = 0; step < 3; ++step) {
        const double ga = b + 2'000'000 * 1e-9, gb = a;
        a -= 0.1 * ga;
        b -= 0.1 * gb;
    }
    CHECK(parameters[0].data() == doctest::Approx(a).epsilon(1e-12));
    CHECK(parameters[1].data() == doctest::Approx(b).epsilon(1e-12));
    CHECK(parameters[0].grad() == 0.0);
}
