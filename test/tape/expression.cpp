// Formulas: a statement on variables is recorded as one node, and a formula named with `auto`
// acts as a variable does.
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <string>

using doctest::Approx;

TEST_CASE("a statement is one node, with a partial per variable it reads") {
    zg::var a = 2.0, b = -3.0;
    auto& tape = zg::tape::this_thread_tape();
    const auto nodes = tape.size();
    const auto operands = tape.operand_count();
    zg::var y = a * b + sin(a) * exp(b / 4.0);
    CHECK(tape.size() == nodes + 1);
    CHECK(tape.operand_count() == operands + 4); // a, b, a, b: one entry per read
    CHECK(y.op() == zg::op_id::add);
    y.backward();
    CHECK(a.grad() == Approx(-3.0 + std::cos(2.0) * std::exp(-0.75)).epsilon(1e-15));
    CHECK(b.grad() == Approx(2.0 + std::sin(2.0) * std::exp(-0.75) / 4.0).epsilon(1e-15));
    CHECK(y.grad() == 1.0);
}

TEST_CASE("a formula named with auto gives data, grad and backward as a variable") {
    zg::var a = 2.0, b = -3.0;
    auto c = a * b + pow(a, 2); // -2
    CHECK(c.value() == -2.0);
    CHECK(c < 0.0);
    auto d = tanh(c);
    d.backward();
    const double slope = 1 - std::tanh(-2.0) * std::tanh(-2.0);
    CHECK(a.grad() == Approx(slope * (-3.0 + 4.0)).epsilon(1e-15));
    CHECK(c.grad() == Approx(slope).epsilon(1e-15)); // c was recorded when d read it
    CHECK(c.data() == -2.0);
    double& data = d.data();
    CHECK(&data == &d.data()); // one node: the same reference each time
}

TEST_CASE("rebinding a formula: c += c + 1") {
    zg::var a = 3.0;
    auto c = a * a; // 9
    c += c + 1;     // 19, as 2 a^2 + 1
    CHECK(c.value() == 19.0);
    c.backward();
    CHECK(a.grad() == 12.0);
    c *= 2.0;
    c -= a;
    c /= a;
    CHECK(c.value() == Approx((38.0 - 3.0) / 3.0));
}

TEST_CASE("copies of a formula share its node, as copies of a variable do") {
    zg::var a = 1.5;
    auto c = a * a;
    auto copy = c;
    zg::var y = copy * 4.0;
    y.backward();
    CHECK(c.grad() == 4.0);
    CHECK(c.index() == copy.index());
    CHECK(a.grad() == 12.0);
}

TEST_CASE("a formula used by name is recorded once and read as one variable") {
    zg::var a = 2.0, b = 5.0;
    auto& tape = zg::tape::this_thread_tape();
    auto c = a * b; // 10
    const auto nodes = tape.size();
    zg::var y = c * c + c; // c recorded, then y
    CHECK(tape.size() == nodes + 2);
    y.backward();
    CHECK(y.data() == 110.0);
    CHECK(c.grad() == 21.0);
    CHECK(a.grad() == 105.0);
    CHECK(b.grad() == 42.0);
}

/// Written once for double and zg::var: called with a formula, T is that formula's type.
template <class T>
T normal_cdf(const T& x) {
    return 0.5 * (1 + erf(x / std::sqrt(2.0)));
}

TEST_CASE("a formula converts to another shape, to a number's side and to a variable's") {
    const auto f = [](auto a) {
        auto total = a * 0.0;
        for (int k = 0; k < 4; ++k)
            total += k % 2 == 0 ? a * log1p(a) : zg::var(tanh(a * double(k)));
        total += a > 10.0 ? a * a : 0.5;
        const auto shifted = a - 0.2;
        return total + normal_cdf(shifted);
    };
    const auto [value, grad] = zg::tape::value_and_grad(f, 0.7);
    const double cdf = 0.5 * std::erfc(-0.5 / std::sqrt(2.0));
    const double expected = 2 * 0.7 * std::log1p(0.7) + std::tanh(0.7) + std::tanh(2.1) + 0.5 + cdf;
    CHECK(value == Approx(expected).epsilon(1e-15));
    const double density = std::exp(-0.125) / std::sqrt(2 * std::numbers::pi);
    const double slope = 2 * (std::log1p(0.7) + 0.7 / 1.7) +
                         (1 - std::tanh(0.7) * std::tanh(0.7)) +
                         3 * (1 - std::tanh(2.1) * std::tanh(2.1)) + density;
    CHECK(grad[0] == Approx(slope).epsilon(1e-14));
}

TEST_CASE("zeros stay strong inside a statement, as across separate nodes") {
    zg::var x = 0.0, w = 2.0;
    zg::var y = sqrt(x) * 0.0 + w * w;
    y.backward();
    CHECK(x.grad() == 0.0);
    CHECK(w.grad() == 4.0);
    zg::var inf = INFINITY, v = 3.0;
    zg::var z = (inf * v) * 0.0 + v;
    z.backward();
    CHECK(v.grad() == 1.0);
}

TEST_CASE("a formula made in a scope and recorded after it ended reports a dangling variable") {
    auto& tape = zg::tape::this_thread_tape();
    zg::var kept = 1.0;
    auto make = [&] {
        const zg::tape::scope step(tape);
        zg::var inner = 2.0;
        return kept * inner + 1.0;
    };
    auto formula = make();
    CHECK(formula.value() == 3.0);
    CHECK_THROWS_AS(formula.backward(), zg::dangling_var);
    zg::var after = kept * 2.0; // the tape is usable
    CHECK(after.data() == 2.0);
}

TEST_CASE("zg::to_dot draws a statement as one record labelled with its formula") {
    zg::var a = 2.0, b = -3.0;
    zg::var y = a * b + sin(a);
    y.backward();
    const std::string dot = zg::to_dot(y);
    CHECK(dot.find("{ (x0 * x1) + sin(x2) | data -5.0907 | grad 1.0000 }") != std::string::npos);
    zg::var single = a * b;
    CHECK(zg::to_dot(single).find("{ * | data -6.0000") != std::string::npos);
}

TEST_CASE("reductions and elementwise operations keep formulas as variables") {
    std::vector<zg::var> x = {1.0, 2.0, 3.0};
    zg::var total = zg::sum(x, [](const zg::var& xi) { return xi * xi + 1.0; });
    CHECK(total.data() == 17.0);
    const std::vector<zg::var> scaled = x * 2.0;
    CHECK(scaled[2].data() == 6.0);
    zg::var chosen = zg::select(total > 0.0, x[0] * 3.0, x[1] + 1.0);
    CHECK(chosen.data() == 3.0);
    total.backward();
    CHECK(x[2].grad() == 6.0);
}

TEST_CASE("a formula named outside a scope and recorded inside it is recorded again each step") {
    auto& tape = zg::tape::this_thread_tape();
    zg::var w = 3.0;
    auto penalty = w * w; // first recorded inside the first step's scope
    for (int step = 0; step < 3; ++step) {
        w.grad() = 0;
        const zg::tape::scope scope(tape);
        zg::var data = 2.0 * step;
        zg::var filler = data * data; // takes the reclaimed node's place after a rewind
        zg::var loss = data + penalty + filler;
        CHECK(loss.data() == Approx(2.0 * step + 9.0 + 4.0 * step * step));
        loss.backward();
        CHECK(w.grad() == 6.0);
    }
    auto rebound = w * 2.0;
    {
        const zg::tape::scope scope(tape);
        zg::var inner = 5.0;
        rebound = inner * w; // names a node of the scope
    }
    CHECK_THROWS_AS(rebound.backward(), zg::dangling_var);
    CHECK_THROWS_AS((void)(rebound * 2.0), zg::dangling_var);
}

TEST_CASE("a zero inside a statement stays a zero next to an infinite partial") {
    zg::var b = 0.0, w = 2.0;
    zg::var y = relu(-1.0 / b) + w; // relu's partial 0 times 1/0's infinite one
    y.backward();
    CHECK(b.grad() == 0.0);
    CHECK(w.grad() == 1.0);
    zg::var x = 1.0;
    zg::var z = min(x / b, 0.0) + x; // min takes 0.0: the infinite x / b gets partial 0
    CHECK(z.data() == 1.0);
    z.backward();
    CHECK(x.grad() == 1.0);
}
