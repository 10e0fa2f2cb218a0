// zg::tape::hessian (forward-over-reverse: the tape records on duals) against analytic Hessians.
#include <zerograd/forward.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace {

using matrix = std::vector<std::vector<double>>;

bool close(double a, double b) {
    return std::abs(a - b) <= 1e-12 * std::max({1.0, std::abs(a), std::abs(b)});
}

void check_close(const matrix& actual, const matrix& expected) {
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        REQUIRE(actual[i].size() == expected[i].size());
        for (std::size_t j = 0; j < expected[i].size(); ++j) {
            INFO("H[", i, "][", j, "] = ", actual[i][j], ", expected ", expected[i][j]);
            CHECK(close(actual[i][j], expected[i][j]));
        }
    }
}

} // namespace

TEST_CASE("Rosenbrock") {
    // f = sum 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2: tridiagonal Hessian.
    const auto f = [](auto x) {
        auto total = x[0] * 0.0;
        for (std::size_t i = 0; i + 1 < x.size(); ++i)
            total += 100 * square(x[i + 1] - x[i] * x[i]) + square(1 - x[i]);
        return total;
    };
    const std::vector<double> x{-1.2, 1.0, 0.7, 1.3};
    const std::size_t n = x.size();
    matrix expected(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i + 1 < n; ++i) {
        expected[i][i] += 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
        expected[i][i + 1] += -400 * x[i];
        expected[i + 1][i] += -400 * x[i];
        expected[i + 1][i + 1] += 200;
    }
    check_close(zg::tape::hessian(f, x), expected);
}

TEST_CASE("a quadratic form x^T A x has Hessian A + A^T") {
    const matrix a{{2.0, -1.0, 0.5}, {0.3, 4.0, 1.0}, {-2.0, 0.0, 3.0}};
    const auto f = [&](auto x) {
        auto total = x[0] * 0.0;
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 3; ++j)
                total += x[i] * a[i][j] * x[j];
        return total;
    };
    matrix expected(3, std::vector<double>(3));
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j)
            expected[i][j] = a[i][j] + a[j][i];
    check_close(zg::tape::hessian(f, {0.3, -1.7, 2.2}), expected);
}

TEST_CASE("log-sum-exp has Hessian diag(p) - p p^T, p its softmax") {
    const auto f = [](auto x) {
        auto total = exp(x[0]);
        for (std::size_t i = 1; i < x.size(); ++i)
            total += exp(x[i]);
        return log(total);
    };
    const std::vector<double> x{0.5, -1.0, 2.0, 0.0, 1.5};
    double sum = 0;
    for (double xi : x)
        sum += std::exp(xi);
    std::vector<double> p;
    for (double xi : x)
        p.push_back(std::exp(xi) / sum);
    matrix expected(x.size(), std::vector<double>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t j = 0; j < x.size(); ++j)
            expected[i][j] = (i == j ? p[i] : 0.0) - p[i] * p[j];
    check_close(zg::tape::hessian(f, x), expected);
}

TEST_CASE("forward-over-reverse agrees with forward-over-forward") {
    // f(x, y) = x^2.5 y + sin(x y): every entry by nested duals as well.
    const auto f = [](auto x, auto y) { return pow(x, 2.5) * y + sin(x * y); };
    const double x = 1.3, y = 0.4;
    using dual2 = zg::dual_t<zg::dual>;
    const auto second = [&](zg::dual dx, zg::dual dy) {
        return f(dual2(zg::dual(x, dx.value), dx), dual2(zg::dual(y, dy.value), dy)).deriv.deriv;
    };
    const double hxx = second({1, 0}, {0, 0}), hyy = second({0, 0}, {1, 0});
    const double hxy =
        f(dual2(zg::dual(x, 0.0), zg::dual(1.0, 0.0)), dual2(zg::dual(y, 1.0), zg::dual(0.0)))
            .deriv.deriv;
    const matrix h = zg::tape::hessian([&](auto v) { return f(v[0], v[1]); }, {x, y});
    check_close(h, {{hxx, hxy}, {hxy, hyy}});
    CHECK(close(hxx, 2.5 * 1.5 * std::pow(x, 0.5) * y - y * y * std::sin(x * y)));
}

TEST_CASE("edges") {
    SUBCASE("a constant function has a zero Hessian") {
        CHECK(zg::tape::hessian([](auto) { return 1.0; }, {1.0, 2.0}) == matrix(2, {0.0, 0.0}));
    }
    SUBCASE("a linear function has a zero Hessian") {
        CHECK(zg::tape::hessian([](auto x) { return 2 * x[0] - x[1]; }, {1.0, 2.0}) ==
              matrix(2, {0.0, 0.0}));
    }
    SUBCASE("no inputs") {
        CHECK(zg::tape::hessian([](auto x) { return x.size() * 1.0; }, std::vector<double>{})
                  .empty());
    }
    SUBCASE("the dual tape is left as it was") {
        const auto before = zg::tape::this_thread_tape<zg::dual>().size();
        (void)zg::tape::hessian([](auto x) { return x[0] * x[1] * x[1]; }, {1.0, 2.0});
        CHECK(zg::tape::this_thread_tape<zg::dual>().size() == before);
    }
    SUBCASE("a function written for the tape's dual variables") {
        using scalar = zg::tape::basic_var<zg::dual>;
        const auto f = [](std::span<const scalar> x) { return x[0] * x[0] * x[1]; };
        check_close(zg::tape::hessian(f, {2.0, 3.0}), {{6.0, 4.0}, {4.0, 0.0}});
    }
}
