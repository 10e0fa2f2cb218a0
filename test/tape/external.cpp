// zg::tape::external: a black box with the user's vector-Jacobian product, against the same
// function recorded operation by operation; a vjp that cannot be copied; sweeps retried after a
// black box threw; infinite adjoints from a vjp. (docs/examples/linear_solve.cpp checks a
// solver's.)
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using vars = std::vector<zg::var>;

/// y = (x0 x1, sin x0 + x2^2) and its vector-Jacobian product.
const auto value = [](auto x) { return std::vector{x[0] * x[1], sin(x[0]) + x[2] * x[2]}; };
const auto vjp = [](auto x, auto, auto ybar, auto xbar) {
    xbar[0] += x[1] * ybar[0] + cos(x[0]) * ybar[1];
    xbar[1] += x[0] * ybar[0];
    xbar[2] += 2 * x[2] * ybar[1];
};

} // namespace

TEST_CASE("a black box's gradient is its vjp, mixed with recorded operations") {
    zg::tape::scope scope;
    const zg::var a = 0.7, b = -1.3, c = 2.1;
    const vars y = zg::tape::external(vars{a, b * c, c}, value, vjp);
    REQUIRE(y.size() == 2);
    CHECK(y[0].data() == 0.7 * (-1.3 * 2.1));
    CHECK(y[1].data() == std::sin(0.7) + 2.1 * 2.1);
    CHECK(y[0].op() == zg::op_id::external);
    const zg::var loss = y[0] * y[1] + exp(y[1] * 0.1);
    loss.backward();
    const double y0_grad = y[0].grad(); // the next sweep, from another root, zeroes it
    // The same function recorded operation by operation.
    zg::tape::scope plain_scope;
    const zg::var pa = 0.7, pb = -1.3, pc = 2.1;
    const zg::var bc = pb * pc;
    const zg::var y0 = pa * bc, y1 = sin(pa) + pc * pc;
    const zg::var plain = y0 * y1 + exp(y1 * 0.1);
    plain.backward();
    CHECK(loss.data() == plain.data());
    CHECK(a.grad() == doctest::Approx(pa.grad()).epsilon(1e-14));
    CHECK(b.grad() == doctest::Approx(pb.grad()).epsilon(1e-14));
    CHECK(c.grad() == doctest::Approx(pc.grad()).epsilon(1e-14));
    CHECK(y0_grad == doctest::Approx(y0.grad()).epsilon(1e-14));
}

TEST_CASE("sweeps again, in scopes and under zg::tape::grad") {
    SUBCASE("a second backward() accumulates in the inputs as recorded operations do") {
        zg::tape::scope scope;
        const zg::var a = 0.3, b = 0.9, c = -0.4;
        const zg::var loss = sum(zg::tape::external(vars{a, b, c}, value, vjp));
        loss.backward();
        const double first = a.grad();
        loss.backward();
        CHECK(a.grad() == 2 * first);
        CHECK(first == doctest::Approx(0.9 + std::cos(0.3)).epsilon(1e-15));
    }
    SUBCASE("a scope ending drops the black box; the tape records and sweeps on") {
        const zg::var a = 1.5;
        const auto nodes = a.tape().size();
        {
            zg::tape::scope scope;
            const zg::var y = zg::tape::external(vars{a, a, a}, value, vjp)[0];
            y.backward();
            CHECK(a.grad() == 3.0);
        }
        CHECK(a.tape().size() == nodes);
        a.grad() = 0;
        zg::tape::scope scope;
        const zg::var z = a * a;
        z.backward();
        CHECK(a.grad() == 3.0);
    }
    SUBCASE("zg::tape::grad: a captured variable below the call's recording gets nothing") {
        zg::tape::scope scope;
        const zg::var outside = 2.0;
        const auto g = zg::tape::grad(
            [&](zg::var x, zg::var y) {
                return zg::tape::external(vars{x, y, outside}, value, vjp)[1];
            },
            0.5, 4.0);
        CHECK(g[0] == doctest::Approx(std::cos(0.5)).epsilon(1e-15));
        CHECK(g[1] == 0.0);
        CHECK(outside.grad() == 0.0);
    }
    SUBCASE("no inputs: constant outputs") {
        zg::tape::scope scope;
        const vars y = zg::tape::external(
            vars{},
            [](auto) {
                return std::vector{1.0, 2.0};
            },
            [](auto, auto, auto, auto) { FAIL("a black box without inputs passes nothing"); });
        REQUIRE(y.size() == 2);
        CHECK(y[1].data() == 2.0);
        const zg::var z = y[0] * y[1];
        z.backward();
        CHECK(y[0].grad() == 2.0);
    }
}

TEST_CASE("errors leave the tape as it was") {
    zg::tape::scope scope;
    const zg::var a = 1.0, b = 2.0;
    const auto nodes = a.tape().size();
    SUBCASE("value throws: nothing is recorded") {
        CHECK_THROWS_AS(zg::tape::external(
                            vars{a, b},
                            [](std::span<const double>) -> std::vector<double> {
                                throw std::runtime_error("solver diverged");
                            },
                            vjp),
                        std::runtime_error);
        CHECK(a.tape().size() == nodes);
    }
    SUBCASE("a reclaimed input") {
        zg::var gone;
        {
            zg::tape::scope inner;
            gone = a * 2.0;
        }
        CHECK_THROWS_AS(zg::tape::external(vars{a, gone, b}, value, vjp), zg::dangling_var);
        CHECK(a.tape().size() == nodes + 1); // `gone`'s default value
    }
    SUBCASE("an input made on another thread, which ended") {
        zg::var other;
        std::thread([&] { other = zg::var(3.0); }).join();
        CHECK_THROWS_AS(zg::tape::external(vars{a, other, b}, value, vjp), zg::error);
        CHECK(a.tape().size() == nodes + 1); // `other`'s default value
    }
    const zg::var z = a * b;
    z.backward();
    CHECK(a.grad() == 2.0);
}

TEST_CASE("each thread's black boxes on its own tape") {
    std::vector<double> grads(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < grads.size(); ++t)
        threads.emplace_back([&grads, t] {
            const auto g = zg::tape::grad(
                [](zg::var x) {
                    return zg::tape::external(vars{x, x, x}, value, vjp)[1];
                },
                0.1 * double(t));
            grads[t] = g[0];
        });
    for (auto& thread : threads)
        thread.join();
    for (std::size_t t = 0; t < grads.size(); ++t) {
        const double x = 0.1 * double(t);
        CHECK(grads[t] == doctest::Approx(std::cos(x) + 2 * x).epsilon(1e-15));
    }
}

TEST_CASE("a vjp that owns what cannot be copied") {
    zg::tape::scope scope;
    const zg::var a = 0.7, b = -1.3;
    // A factorisation held by a std::unique_ptr, as one of Eigen's sparse solvers must be.
    auto factor = std::make_unique<double>(2.0);
    const vars y = zg::tape::external(
        vars{a, b}, [](auto x) { return std::vector{x[0] * x[1] * 2.0}; },
        [factor = std::move(factor)](auto x, auto, auto ybar, auto xbar) {
            xbar[0] += *factor * x[1] * ybar[0];
            xbar[1] += *factor * x[0] * ybar[0];
        });
    const zg::var loss = y[0] * 3.0;
    loss.backward();
    CHECK(a.grad() == 3.0 * 2.0 * -1.3);
    CHECK(b.grad() == 3.0 * 2.0 * 0.7);
    loss.backward(); // the vjp runs again, and the leaves accumulate
    CHECK(a.grad() == 2 * (3.0 * 2.0 * -1.3));
}

TEST_CASE("a sweep retried after a black box threw starts clean, however long the tape") {
    // Nodes recorded between x's and the black box's span several of the sweep's blocks
    // (4,096 nodes each): the failed sweep passed an adjoint to h, far below the black box,
    // before the vjp (or the checkpoint's f, run again in the sweep) threw.
    for (const bool checkpointed : {false, true})
        for (const int filler : {10, 5000, 20000}) {
            zg::tape::scope scope;
            const zg::var x = 2.0;
            const zg::var h = x * 3.0;
            zg::var chain = 1.0;
            for (int i = 0; i < filler; ++i)
                chain = chain * 1.0000001;
            bool fail = false;
            const auto square = [&fail](auto v) {
                using T = std::remove_const_t<typename decltype(v)::value_type>;
                if (!std::is_same_v<T, double> && fail) throw std::runtime_error("diverged");
                return std::vector<T>{v[0] * v[0]};
            };
            const vars y = checkpointed
                               ? zg::tape::checkpoint(square, vars{h})
                               : zg::tape::external(
                                     vars{h}, square, [&fail](auto v, auto, auto ybar, auto xbar) {
                                         if (fail) throw std::runtime_error("no convergence");
                                         xbar[0] += 2 * v[0] * ybar[0];
                                     });
            const zg::var loss = y[0] + h * 2.0 + chain * 0.5;
            INFO(filler, " nodes between", checkpointed ? ", a checkpoint" : "");
            fail = true;
            CHECK_THROWS_AS(loss.backward(), std::runtime_error);
            fail = false;
            x.grad() = 0;
            loss.backward();
            CHECK(x.grad() == 3.0 * (2 * 6.0 + 2.0));
            CHECK(h.grad() == 2 * 6.0 + 2.0);
            x.grad() = 0;
            loss.backward(); // and once more, after a sweep that succeeded
            CHECK(x.grad() == 3.0 * (2 * 6.0 + 2.0));
        }
}

TEST_CASE("an infinite adjoint from a vjp keeps zeros strong below it") {
    // sqrt's derivative at 0 is infinite; relu's partial at -1 is exactly 0: d/dx is 0, as
    // without the black box, whether or not the tape noted anything infinite before.
    for (const bool infinite_before : {false, true}) {
        zg::tape::scope scope;
        if (infinite_before) // a leaf the tape notes as infinite
            (void)zg::var(std::numeric_limits<double>::infinity());
        const zg::var x = -1.0;
        const zg::var h = relu(x) * 1.0;
        const vars y = zg::tape::external(
            vars{h}, [](auto v) { return std::vector{std::sqrt(v[0])}; },
            [](auto v, auto, auto ybar, auto xbar) { xbar[0] += ybar[0] / (2 * std::sqrt(v[0])); });
        const zg::var loss = y[0] + x * 0.5;
        loss.backward();
        INFO("infinite before: ", infinite_before);
        CHECK(std::isinf(h.grad()));
        CHECK(x.grad() == 0.5);
        const zg::var plain = sqrt(h) + x * 0.5;
        x.grad() = 0;
        plain.backward();
        CHECK(x.grad() == 0.5);
    }
}
