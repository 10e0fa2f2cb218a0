// The reverse sweep: the worked examples of micrograd and of micrograd-style tutorials,
// micrograd's reference values (checked against PyTorch there), accumulation, aliasing and
// control flow.
#include "laws.hpp"

#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>

using zg::var;

TEST_CASE("the worked examples of micrograd and of micrograd-style tutorials") {
    SUBCASE("micrograd's worked example: L = (a*b + c) * f") {
        var a = 2.0, b = -3.0, c = 10.0, f = -2.0;
        var e = a * b;
        var d = e + c;
        var L = d * f;
        L.backward();
        CHECK(L.data() == -8.0);
        CHECK(a.grad() == 6.0);
        CHECK(b.grad() == -4.0);
        CHECK(c.grad() == -2.0);
        CHECK(f.grad() == 4.0);
        CHECK(e.grad() == -2.0);
        CHECK(d.grad() == -2.0);
        CHECK(L.grad() == 1.0);
    }
    SUBCASE("a micrograd-style engine's check against calculus: L = (a*b + c)^2") {
        var a = 2.0, b = 3.0, c = 1.0;
        var L = pow(a * b + c, 2);
        L.backward();
        CHECK(L.data() == 49.0);
        CHECK(a.grad() == 42.0);
        CHECK(b.grad() == 28.0);
        CHECK(c.grad() == 14.0);
    }
    SUBCASE("a backpropagation-from-scratch tutorial's example: d = tanh(a*b + a^2)") {
        var a = 2.0, b = -3.0;
        var c = a * b + pow(a, 2);
        var d = tanh(c);
        d.backward();
        const double t = std::tanh(-2.0);
        CHECK(d.data() == doctest::Approx(t).epsilon(1e-15));
        CHECK(a.grad() == doctest::Approx((1 - t * t) * (-3.0 + 4.0)).epsilon(1e-15));
        CHECK(b.grad() == doctest::Approx((1 - t * t) * 2.0).epsilon(1e-15));
    }
    SUBCASE("a micrograd-style engine's tests: x^2 and (x + 2) * x at 3") {
        var x = 3.0;
        var y = pow(x, 2);
        y.backward();
        CHECK(x.grad() == 6.0);
        var z = 3.0;
        var w = (z + var(2.0)) * z;
        w.backward();
        CHECK(z.grad() == 8.0);
    }
}

TEST_CASE("micrograd's reference tests (values from PyTorch)") {
    SUBCASE("sanity check") {
        var x = -4.0;
        var z = 2 * x + 2 + x;
        var q = relu(z) + z * x;
        var h = relu(z * z);
        var y = h + q + q * x;
        y.backward();
        CHECK(y.data() == -20.0);
        CHECK(x.grad() == 46.0);
    }
    SUBCASE("more ops, with compound assignment rebinding") {
        var a = -4.0, b = 2.0;
        var c = a + b;
        var d = a * b + pow(b, 3);
        c += c + 1;
        c += 1 + c + (-a);
        d += d * 2 + relu(b + a);
        d += 3 * d + relu(b - a);
        var e = c - d;
        var f = pow(e, 2);
        var g = f / 2.0;
        g += 10.0 / f;
        g.backward();
        CHECK(g.data() == doctest::Approx(24.70408163265306).epsilon(1e-14));
        CHECK(a.grad() == doctest::Approx(138.83381924198252).epsilon(1e-14));
        CHECK(b.grad() == doctest::Approx(645.5772594752186).epsilon(1e-14));
    }
}

TEST_CASE("accumulation") {
    var a = 2.0, b = -3.0;
    var e = a * b;
    var L = e * e;
    SUBCASE("a second sweep adds into leaves, intermediates hold this sweep's adjoint") {
        L.backward();
        CHECK(a.grad() == 2 * e.data() * -3.0);
        L.backward();
        CHECK(a.grad() == 2 * (2 * e.data() * -3.0));
        CHECK(b.grad() == 2 * (2 * e.data() * 2.0));
        CHECK(e.grad() == 2 * e.data());
    }
    SUBCASE("zeroing gradients") {
        L.backward();
        a.grad() = 0;
        b.grad() = 0;
        L.backward();
        CHECK(a.grad() == 2 * e.data() * -3.0);
        zg::tape::zero_grad();
        CHECK(a.grad() == 0.0);
        CHECK(L.grad() == 0.0);
    }
    SUBCASE("a sweep from an intermediate node") {
        e.backward();
        CHECK(a.grad() == -3.0);
        CHECK(b.grad() == 2.0);
    }
    SUBCASE("a sweep from a leaf") {
        a.backward();
        CHECK(a.grad() == 1.0);
        CHECK(b.grad() == 0.0);
    }
}

TEST_CASE("aliasing and reuse") {
    SUBCASE("x = x + 3 * x rebinds x; the leaf keeps its own handle") {
        var leaf = 1.5;
        var x = leaf;
        x = x + 3 * x;
        x.backward();
        CHECK(x.data() == 6.0);
        CHECK(leaf.grad() == 4.0);
    }
    SUBCASE("a leaf on many paths") {
        var x = 0.5;
        var y = x * x * x + sin(x) * x + exp(x) / x;
        y.backward();
        const double expected = 3 * 0.25 + std::cos(0.5) * 0.5 + std::sin(0.5) +
                                std::exp(0.5) / 0.5 - std::exp(0.5) / 0.25;
        CHECK(laws::close(x.grad(), expected, 1e-15));
    }
    SUBCASE("the same node as both operands") {
        var x = 3.0;
        var y = x * x;
        y.backward();
        CHECK(x.grad() == 6.0);
    }
    SUBCASE("copies are handles to one node") {
        var x = 3.0;
        var alias = x;
        alias.data() = 4.0;
        CHECK(x.data() == 4.0);
    }
}

TEST_CASE("control flow on data") {
    SUBCASE("a loop with a data-dependent branch") {
        // Newton's iteration for sqrt(a), stopped by a data test: d/da must be 1/(2 sqrt(a)).
        var a = 2.0;
        var x = a;
        for (int i = 0; i < 50 && abs(x * x - a) > 1e-15; ++i)
            x = 0.5 * (x + a / x);
        x.backward();
        CHECK(laws::close(x.data(), std::sqrt(2.0), 1e-15));
        CHECK(laws::close(a.grad(), 0.5 / std::sqrt(2.0), 1e-12));
    }
    SUBCASE("comparisons") {
        var x = 2.0, y = 3.0;
        CHECK(x < y);
        CHECK(x <= 2);
        CHECK(0 < x);
        CHECK(x == 2.0);
        CHECK(x != y);
        CHECK(y >= x);
        CHECK(max(x, y).data() == 3.0);
    }
}
