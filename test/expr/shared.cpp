// Repeated subtrees: a named intermediate used several times is swept once, with the sum of its
// uses' adjoints, when its copies hold the same data, and copy by copy when they do not.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <ranges>
#include <utility>
#include <vector>

TEST_CASE("an intermediate used several times") {
    const auto f = [](auto x, auto y) {
        const auto p = x * y + 2.0;
        return p * p + 3.0 * p;
    };
    const double x = 0.7, y = -1.3, p = x * y + 2.0;
    const auto g = zg::grad(f, x, y);
    CHECK(laws::close(g[0], (2 * p + 3) * y, 1e-15));
    CHECK(laws::close(g[1], (2 * p + 3) * x, 1e-15));
}

TEST_CASE("intermediates inside intermediates agree with tape mode") {
    const auto f = [](auto a, auto b, auto c, auto d) {
        const auto p = ((a * b + c) * d - a) * (b - c * d) + 3.0 * a * a;
        const auto q = (a + b) * (c + d) / (1.0 + a * a + b * b) - (a - d) * (b + c);
        return p * q + (p - q) / (2.0 + q * q) + a * b * c * d - 0.5 * (p + q) * (a - b);
    };
    const auto g = zg::grad(f, 0.3, -0.7, 1.1, 0.4);
    const auto t = zg::tape::grad(f, 0.3, -0.7, 1.1, 0.4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(laws::close(g[i], t[i], 1e-14));
}

TEST_CASE("copies of one shape with different constants are swept each with its own") {
    // 2x and 3x have one type; so have (2x)^2 and (3x)^2.
    const auto f = [](auto x) {
        const auto a = 2.0 * x, b = 3.0 * x;
        return a * a + b * b + sin(a) * sin(b);
    };
    const double x = 0.4;
    const double expected = 26 * x + 2 * std::cos(2 * x) * std::sin(3 * x) +
                            3 * std::sin(2 * x) * std::cos(3 * x);
    CHECK(laws::close(zg::grad(f, x)[0], expected, 1e-15));
    const auto powers = [](auto x) { return pow(x + 1.0, 2) + pow(x + 1.0, 3); };
    CHECK(laws::close(zg::grad(powers, x)[0], 2 * (x + 1) + 3 * (x + 1) * (x + 1), 1e-15));
    double two = 2.0, three = 3.0; // constants known only at run time
    const auto g = [&](auto x) { return (two * x) * (two * x) + (three * x) * (three * x); };
    CHECK(laws::close(zg::grad(g, x)[0], 26 * x, 1e-15));
    three = 2.0;
    CHECK(laws::close(zg::grad(g, x)[0], 16 * x, 1e-15));
}

TEST_CASE("an infinite adjoint into a repeated subtree passes 0 through a zero partial") {
    // g = relu(x) * y is 0; both square roots send it an infinite adjoint, which relu's zero
    // partial (and g's partial relu(x) = 0 towards y) must stop, as in tape mode.
    const auto f = [](auto x, auto y) {
        const auto g = relu(x) * y;
        return sqrt(g) + sqrt(2.0 * g);
    };
    const auto e = zg::grad(f, -1.0, 2.0);
    const auto t = zg::tape::grad(f, -1.0, 2.0);
    CHECK(e[0] == 0.0);
    CHECK(e[1] == 0.0);
    CHECK(t[0] == 0.0);
    CHECK(t[1] == 0.0);
}

TEST_CASE("dead uses of a shared subtree pass nothing through an overflowed partial inside it") {
    // f is 0 near each point (both square roots see relu's dead side), so its gradient is 0; a
    // partial inside S overflows (d(x / y)/dy at y = 1e-200, d(y e^x)/dx at x = 1000), and the
    // zero adjoint gathered from the uses must not meet it as 0 times infinity.
    const auto f = [](auto x, auto y) {
        const auto s = x / y;
        return sqrt(relu(-s)) + sqrt(relu(-s - 1.0));
    };
    const auto g = [](auto x, auto y) {
        const auto s = y * exp(x);
        return sqrt(relu(-s)) + sqrt(relu(-s - 1.0));
    };
    for (const auto& [x, y] : {std::pair{1.0, 1e-200}, std::pair{2.0, 1e-300}}) {
        const auto e = zg::grad(f, x, y);
        CHECK(e[0] == 0.0);
        CHECK(e[1] == 0.0);
    }
    const auto e = zg::grad(g, 1000.0, 2.0);
    CHECK(e[0] == 0.0);
    CHECK(e[1] == 0.0);
    const auto t = zg::tape::grad(g, 1000.0, 2.0);
    CHECK(t[0] == 0.0);
    CHECK(t[1] == 0.0);

    SUBCASE("inside zg::sum(v, fn)") {
        const std::vector<double> v{1.0, 2.0};
        const auto h = [](auto w, auto y) {
            return zg::sum(w, [&](auto wi) {
                const auto s = wi / y;
                return sqrt(relu(-s)) + sqrt(relu(-s - 1.0));
            });
        };
        const auto [dv, dy] = zg::grad(h, v, 1e-200);
        CHECK(dv == std::vector<double>{0.0, 0.0});
        CHECK(dy == 0.0);
    }
    SUBCASE("bound by zg::let") {
        const auto bound = [](auto x, auto y) {
            const auto s = zg::let(x / y);
            return sqrt(relu(-s)) + sqrt(relu(-s - 1.0));
        };
        const auto b = zg::grad(bound, 1.0, 1e-200);
        CHECK(b[0] == 0.0);
        CHECK(b[1] == 0.0);
    }
}

TEST_CASE("elements of different indices in one element's tree") {
    // square(head) and square(tail) have one type; their elements differ.
    const std::vector<double> x{0.5, -1.0, 2.0, 0.25};
    const auto f = [](auto v) {
        const auto head = zg::slice(v, 0, 3), tail = zg::slice(v, 1, 3);
        return zg::sum(square(head) * 3.0 + square(tail) * 3.0 + head * tail);
    };
    const auto [value, grad] = zg::value_and_grad(f, x);
    const auto& g = std::get<0>(grad);
    for (std::size_t k = 0; k < x.size(); ++k) {
        double expected = 0;
        if (k < 3) expected += 6 * x[k] + x[k + 1];
        if (k > 0) expected += 6 * x[k] + x[k - 1];
        CHECK(laws::close(g[k], expected, 1e-15));
    }
    CHECK(laws::close(value, zg::tape::value_and_grad(f, x).value, 1e-15));
}

TEST_CASE("a repeated subtree inside zg::sum(v, fn)") {
    const std::vector<double> y{0.3, -1.2, 2.5};
    const auto f = [&](auto mu, auto sigma) {
        return zg::sum(y, [&](auto yi) {
            const auto z = (yi - mu) / sigma;
            return z * z + 0.1 * z * z * z;
        });
    };
    const double mu = 0.2, sigma = 1.5;
    double dmu = 0, dsigma = 0;
    for (const double yi : y) {
        const double z = (yi - mu) / sigma, dz = 2 * z + 0.3 * z * z;
        dmu += -dz / sigma;
        dsigma += -dz * z / sigma;
    }
    const auto g = zg::grad(f, mu, sigma);
    CHECK(laws::close(g[0], dmu, 1e-14));
    CHECK(laws::close(g[1], dsigma, 1e-14));
}

TEST_CASE("hessian through repeated subtrees") {
    const auto f = [](auto x, auto y) {
        const auto p = x * y + 1.0;
        return p * p;
    };
    const double x = 0.6, y = -0.8;
    const auto h = zg::hessian(f, x, y);
    CHECK(laws::close(h[0][0], 2 * y * y, 1e-15));
    CHECK(laws::close(h[0][1], 2 * (2 * x * y + 1), 1e-15));
    CHECK(laws::close(h[1][0], 2 * (2 * x * y + 1), 1e-15));
    CHECK(laws::close(h[1][1], 2 * x * x, 1e-15));
}

TEST_CASE("repeated subtrees in constant evaluation") {
    constexpr auto f = [](auto x, auto y) {
        const auto p = x * y + 1.0;
        const auto q = 2.0 * x;
        const auto r = 3.0 * x;
        return p * p + q * q + r * r;
    };
    // d/dx = 2 p y + 8x + 18x, d/dy = 2 p x at (2, 3): p = 7.
    static_assert(zg::grad(f, 2.0, 3.0)[0] == 2 * 7 * 3 + 26 * 2);
    static_assert(zg::grad(f, 2.0, 3.0)[1] == 2 * 7 * 2);
}

TEST_CASE("an infinite value inside a tree whose result is finite passes nothing through it") {
    // tanh at +-inf is +-1 with partial 0; below it, x * y at x = inf has the partial y by x but
    // inf by y. tanh's zero adjoint passes nothing, as in tape mode, not 0 times infinity: in a
    // call with a frame (a reduction, a shared node) as in one without, named or written inline.
    const std::vector<double> v{INFINITY, 1.25};
    const auto inline_terms = [](const auto& w) {
        const auto scaled = w * 1.5;
        const auto s0 = zg::prod(scaled);
        const auto s1 = zg::sum(scaled);
        return tanh(s0 * s1 + zg::log_sum_exp(scaled));
    };
    const auto named_terms = [](const auto& w) {
        const auto s0 = zg::prod(w);
        const auto s1 = zg::sum(w);
        const auto s = s0 * s1 + 2.0;
        return tanh(s);
    };
    for (const auto& grad : {std::get<0>(zg::grad(inline_terms, v)),
                             std::get<0>(zg::grad(named_terms, v)),
                             std::get<0>(zg::tape::grad(inline_terms, v))})
        CHECK(grad == std::vector<double>{0.0, 0.0});
    const auto scalars = [](auto x, auto y) {
        const auto s = exp(x) * y; // kept in the frame: inf at x = 800
        return tanh(s * zg::sum(std::vector<double>{1.0, 2.0}, [&](double c) { return c * y; }));
    };
    for (const auto& grad : {zg::grad(scalars, 800.0, 2.0), zg::tape::grad(scalars, 800.0, 2.0)})
        CHECK(grad == std::array<double, 2>{0.0, 0.0});
}

TEST_CASE("a named tree with an infinite value under tanh passes nothing through it") {
    // t is kept in the frame and reached by a finite adjoint from two uses; inside it, tanh's
    // zero partial at x * y + z = inf meets x * y's infinite partial by y.
    const auto f = [](auto x, auto y, auto z) {
        const auto t = tanh(x * y + z);
        return t * z + t * y;
    };
    for (const double x : {INFINITY, -INFINITY}) {
        const auto expected = zg::tape::grad(f, x, 0.5, 1.5);
        CHECK(expected == std::array<double, 3>{0.0, x > 0 ? 1.0 : -1.0, x > 0 ? 1.0 : -1.0});
        CHECK(zg::grad(f, x, 0.5, 1.5) == expected);
    }
}

TEST_CASE("a named costly operation of an end, used several times, agrees with tape mode") {
    // s and c are computed once, their partials too, and carried into every use.
    const auto f = [](auto x, auto y) {
        const auto s = exp(x);
        const auto c = sin(y);
        return s * c + log(s) + c / s;
    };
    const double x = 0.3, y = 0.7;
    const auto g = zg::grad(f, x, y);
    CHECK(g[0] == doctest::Approx(std::exp(x) * std::sin(y) + 1 - std::sin(y) * std::exp(-x)));
    CHECK(g[1] == doctest::Approx((std::exp(x) + std::exp(-x)) * std::cos(y)));
    for (const double at : {x, 800.0, -800.0, double(INFINITY)}) {
        const auto expected = zg::tape::value_and_grad(f, at, y);
        const auto result = zg::value_and_grad(f, at, y);
        CHECK(laws::agree(result.value, expected.value, 1e-15));
        CHECK(laws::agree(result.grad[0], expected.grad[0], 1e-15));
        CHECK(laws::agree(result.grad[1], expected.grad[1], 1e-15));
    }
    const auto h = zg::hessian(f, x, y); // on dual numbers
    CHECK(h[0][1] == doctest::Approx((std::exp(x) - std::exp(-x)) * std::cos(y)));
}

TEST_CASE("a named exponential of a group's parameter inside a sum over observations") {
    const std::vector<double> y{0.5, -1.0, 2.0, 0.25, 1.5};
    const std::vector<std::size_t> group{0, 1, 0, 1, 1};
    const auto f = [&](const auto& mu, const auto& log_sigma) {
        return zg::sum(std::views::iota(std::size_t{0}, y.size()), [&](std::size_t i) {
            const auto sigma = exp(log_sigma[group[i]]);
            return -0.5 * square((y[i] - mu[group[i]]) / sigma) - log(sigma);
        });
    };
    const std::vector<double> mu{0.1, -0.2}, log_sigma{0.3, -0.4};
    const auto [dmu, dls] = zg::grad(f, mu, log_sigma);
    std::vector<double> hand_mu(2), hand_ls(2);
    for (std::size_t i = 0; i < y.size(); ++i) {
        const std::size_t k = group[i];
        const double z = (y[i] - mu[k]) / std::exp(log_sigma[k]);
        hand_mu[k] += z / std::exp(log_sigma[k]);
        hand_ls[k] += z * z - 1;
    }
    for (std::size_t k = 0; k < 2; ++k) {
        CHECK(dmu[k] == doctest::Approx(hand_mu[k]).epsilon(1e-14));
        CHECK(dls[k] == doctest::Approx(hand_ls[k]).epsilon(1e-14));
    }
}
