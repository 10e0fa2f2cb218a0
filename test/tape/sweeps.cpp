// Sweeps over a recording that earlier sweeps left behind, as a training loop without a scope
// makes: each sweep walks only the blocks of the tape that hold adjoints to pass on, and must
// still reach old intermediate nodes that new ones use.
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

using zg::var;

namespace {

constexpr std::size_t parameters = 4;
using tangent = std::array<double, parameters>;

/// A variable with its gradient by the parameters, carried forward by hand (the reference).
struct tracked {
    var v;
    tangent d;
};

tracked add(const tracked& x, const tracked& y) {
    tangent d;
    for (std::size_t k = 0; k < parameters; ++k) d[k] = x.d[k] + y.d[k];
    return {x.v + y.v, d};
}
tracked multiply(const tracked& x, const tracked& y) {
    tangent d;
    for (std::size_t k = 0; k < parameters; ++k)
        d[k] = x.d[k] * y.v.data() + x.v.data() * y.d[k];
    return {x.v * y.v, d};
}
tracked sine(const tracked& x) {
    tangent d;
    for (std::size_t k = 0; k < parameters; ++k) d[k] = std::cos(x.v.data()) * x.d[k];
    return {sin(x.v), d};
}

struct generator { // a small deterministic LCG, the same on every platform
    std::uint64_t state = 12345;
    std::size_t below(std::size_t n) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        return std::size_t(state >> 33) % n;
    }
};

} // namespace

TEST_CASE("sweeps from new and old roots over a recording of many blocks") {
    zg::tape::scope whole_test; // reclaims everything below at the end
    std::vector<tracked> pool;
    std::vector<var> w;
    for (std::size_t k = 0; k < parameters; ++k) {
        w.push_back(0.3 + 0.1 * double(k));
        tangent d{};
        d[k] = 1;
        pool.push_back({w.back(), d});
    }
    generator random;
    const std::size_t start = zg::tape::this_thread_tape().size();
    for (int step = 0; step < 4000; ++step) {
        // A few operations on random earlier variables: new nodes that use old intermediates.
        tracked x = pool[random.below(pool.size())];
        for (int op = 0; op < 6; ++op) {
            const tracked& y = pool[random.below(pool.size())];
            switch (random.below(3)) {
            case 0: x = add(x, y); break;
            case 1: x = multiply(sine(x), sine(y)); break;
            default: x = sine(add(x, y)); break;
            }
        }
        if (random.below(4) == 0) pool.push_back(x);
        // Sweep from the new node, or now and then from an old one.
        const tracked& root = random.below(8) == 0 ? pool[random.below(pool.size())] : x;
        for (var& p : w) p.grad() = 0;
        root.v.backward();
        for (std::size_t k = 0; k < parameters; ++k)
            REQUIRE(w[k].grad() == doctest::Approx(root.d[k]).epsilon(1e-12));
    }
    // The recording spans many of the sweep's blocks of 4,096 nodes.
    CHECK(zg::tape::this_thread_tape().size() - start > 10 * 4096);
}

TEST_CASE("an intermediate's gradient is the latest sweep's, however old the node") {
    zg::tape::scope whole_test;
    var a = 1.5, b = -2.0;
    var y = a * b; // an intermediate node, soon far below the newest
    var filler = a;
    for (int i = 0; i < 3 * 4096; ++i) filler = filler * 1.0;
    var z = y * 3.0;
    z.backward();
    CHECK(y.grad() == 3.0);
    CHECK(a.grad() == 3.0 * -2.0);
    for (int i = 0; i < 3 * 4096; ++i) filler = filler * 1.0;
    var u = y + 1.0;
    u.backward(); // y's adjoint starts again from zero; the leaves accumulate
    CHECK(y.grad() == 1.0);
    CHECK(a.grad() == 3.0 * -2.0 + -2.0);
    CHECK(b.grad() == 3.0 * 1.5 + 1.5);
    CHECK(z.grad() == 0.0); // its own sweep's adjoint is cleared: u does not use z
    z.backward(); // an old root again
    CHECK(y.grad() == 3.0);
    CHECK(u.grad() == 0.0); // recorded after z: its earlier sweep's adjoint is cleared too
    CHECK(a.grad() == 3.0 * -2.0 * 2 + -2.0);
}

TEST_CASE("a training loop without a scope, rewinding now and then") {
    zg::tape::scope whole_test;
    var w = 0.5;
    for (int step = 0; step < 3000; ++step) {
        std::optional<zg::tape::scope> sometimes;
        if (step % 7 == 0) sometimes.emplace();
        var loss = 0.0;
        for (int k = 0; k < 5; ++k) loss = loss + square(w * double(k) - 1.0);
        w.grad() = 0;
        loss.backward();
        // d/dw sum_k (w k - 1)^2 = sum_k 2 k (w k - 1)
        double expected = 0;
        for (int k = 0; k < 5; ++k) expected += 2 * k * (w.data() * k - 1);
        REQUIRE(w.grad() == doctest::Approx(expected).epsilon(1e-14));
        w.data() -= 0.01 * w.grad();
    }
    CHECK(w.data() == doctest::Approx(10.0 / 30.0).epsilon(1e-9)); // sum k / sum k^2
}

TEST_CASE("a sweep that skips blocks recorded again after a rewind") {
    zg::tape::scope whole_test;
    var a = 0.7;
    var h = a * a; // an intermediate below the blocks recorded and rewound
    const auto sweep_through = [&](auto step) {
        zg::tape::scope recording;
        var x = h;
        for (int i = 0; i < 3 * 4096; ++i) x = step(x);
        x.backward();
        var y = h * 3.0; // its sweep skips x's blocks, with their operand positions
        a.grad() = 0;
        y.backward();
        CHECK(a.grad() == doctest::Approx(3.0 * 2 * 0.7).epsilon(1e-15));
    };
    sweep_through([&](const var& x) { return x * a; }); // two operands a node
    sweep_through([](const var& x) { return x * 1.0; }); // one operand a node
    sweep_through([&](const var& x) { return x * a; });
}
