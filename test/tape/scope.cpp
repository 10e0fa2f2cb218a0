// Reclaiming a finished step: parameters live on, memory stays flat, dangling use is reported.
#include "allocation_counter.hpp"

#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <optional>
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

TEST_CASE("scopes ended out of order: the inner one reclaims what was recorded since it began") {
    // Two scopes held in optionals, the outer reset first: the inner one's mark is above where
    // the tape now ends, and nodes recorded after the outer's end lie across it.
    zg::var x = 2.0;
    auto& tape = zg::tape::this_thread_tape();
    std::optional<zg::tape::scope> outer, inner;
    outer.emplace();
    const auto outer_mark = tape.mark();
    zg::var before_inner = x + 1.0;
    inner.emplace();
    zg::var inside_both = x + 1.0;
    outer.reset();
    CHECK_THROWS_AS((void)before_inner.data(), zg::dangling_var);
    zg::var after_outer = x * x; // binary nodes, where unary ones stood
    zg::var more = after_outer * 1.0;
    CHECK(more.data() == 4.0);
    inner.reset();
    CHECK(tape.size() == outer_mark.nodes);
    CHECK(tape.operand_count() == outer_mark.operands);
    CHECK_THROWS_AS((void)after_outer.data(), zg::dangling_var);
    CHECK_THROWS_AS((void)inside_both.data(), zg::dangling_var);
    // What is recorded next sweeps right.
    zg::var z = x * 5.0 + 7.0;
    zg::var u = x * x * x;
    u.backward();
    CHECK(x.grad() == 12.0);
    CHECK(z.data() == 17.0);

    SUBCASE("in order, as before") {
        zg::var w = 1.5;
        std::optional<zg::tape::scope> first, second;
        first.emplace();
        zg::var a = w * 2.0;
        second.emplace();
        zg::var b = a * 3.0;
        second.reset();
        CHECK(a.data() == 3.0);
        CHECK_THROWS_AS((void)b.data(), zg::dangling_var);
        first.reset();
        CHECK_THROWS_AS((void)a.data(), zg::dangling_var);
    }
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

namespace {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
constexpr bool sanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
constexpr bool sanitized = false;
#endif

/// In a child process: reclaims the tape's arrays (so that they are reserved again under the
/// limit), limits the address space to what the process uses then and 256 MiB more, records
/// until the tape cannot grow, and returns 0 if that was a zg::error saying what to do, with the
/// tape left as it was and usable; another number says what went wrong.
int record_until_full() {
    auto& tape = zg::tape::this_thread_tape();
    tape.retire();
    tape.adopt();
    std::size_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t limit = pages * ::sysconf(_SC_PAGESIZE) + (rlim_t(256) << 20);
    const rlimit address_space{limit, limit};
    if (::setrlimit(RLIMIT_AS, &address_space) != 0) return 10;
    {
        zg::tape::scope recording;
        std::size_t size = 0;
        try {
            for (;;) {
                size = tape.size();
                (void)zg::var(1.0); // leaves only: the values' reservation runs out
            }
        } catch (const zg::error& e) {
            const std::string what = e.what();
            if (what.find("reserved address space") == what.npos ||
                what.find("zg::tape::scope") == what.npos ||
                what.find("unchanged and usable") == what.npos)
                return 2;
            if (tape.size() != size) return 3;
        } catch (const std::bad_alloc&) {
            return 4;
        }
    }
    zg::var x = 1.0;
    zg::var z = x * x * 3.0;
    z.backward();
    return x.grad() == 6.0 ? 0 : 5;
}
} // namespace

TEST_CASE("recording past an address-space limit is a zg::error, and the tape stays usable") {
    // Sanitizers reserve terabytes of shadow memory, which no such limit admits.
    if (sanitized) return;
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) ::_exit(record_until_full());
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
