// The vocabulary real models need: v[i], comparisons, zg::select, zg::log_sum_exp of terms, of a
// std::array and over a range with a function, zg::sum over an index range; each against the
// tape or a closed form.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <ranges>
#include <span>
#include <vector>

namespace {
const std::vector<double> x{0.5, -1.25, 2.0, 0.75};
} // namespace

TEST_CASE("v[i] on a vector argument and on a vector expression") {
    const auto f = [](auto v) { return v[0] * v[3] + sin(v[1]) + (v * 2.0)[2]; };
    const auto g = std::get<0>(zg::grad(f, x));
    CHECK(g == std::vector<double>{x[3], std::cos(x[1]), 2.0, x[0]});
    CHECK_THROWS_WITH_AS(zg::grad([](auto v) { return v[4]; }, x),
                         "zg::expr: element 4 of a vector of size 4", zg::shape_error);
    CHECK_THROWS_WITH_AS(zg::grad([](auto v) { return zg::sum(zg::slice(v, 2, 3)); }, x),
                         "zg::slice: elements 2 to 4 of a vector of size 4", zg::shape_error);
    // Beside a reduction that writes the gradient as it is built, before it or after it.
    const auto after = [](auto v) { return zg::sum(v) + v[0] * v[1]; };
    const auto before = [](auto v) { return v[0] * v[1] + zg::sum(v); };
    const std::vector<double> expected{1 + x[1], 1 + x[0], 1.0, 1.0};
    CHECK(std::get<0>(zg::grad(after, x)) == expected);
    CHECK(std::get<0>(zg::grad(before, x)) == expected);
    const auto terms = [](auto v) {
        const auto total = zg::sum(v);
        return total + zg::log_sum_exp(std::array{v[0], v[1]}) + total;
    };
    const double weight = 1 / (1 + std::exp(x[1] - x[0]));
    const auto by_terms = std::get<0>(zg::grad(terms, x));
    CHECK(laws::close(by_terms[0], 2 + weight, 1e-15));
    CHECK(laws::close(by_terms[1], 3 - weight, 1e-15));
    CHECK(by_terms[2] == 2.0);
}

TEST_CASE("comparisons look at values, and zg::select picks an arm") {
    // A leaky relu by select: the gradient flows through the arm picked.
    const auto leaky = [](auto y) { return zg::select(y > 0, y * y, 0.1 * y); };
    CHECK(zg::grad(leaky, 3.0)[0] == 6.0);
    CHECK(zg::grad(leaky, -3.0)[0] == 0.1);
    CHECK(zg::tape::grad(leaky, -3.0)[0] == 0.1); // the same lambda on the tape
    CHECK(zg::select(true, 2.0, 3) == 2.0);       // and on numbers
    // Both arms are evaluated; the unpicked one passes nothing, even where its partial is inf.
    const auto guarded = [](auto y) { return zg::select(y > 0, sqrt(y), y); };
    CHECK(zg::grad(guarded, 0.0)[0] == 1.0);
    const auto clipped = [](auto a, auto b) { return zg::select(a < b, a, b) * 2.0; };
    CHECK(zg::grad(clipped, 1.0, 2.0) == std::array{2.0, 0.0});
    CHECK(zg::grad(clipped, 3.0, 2.0) == std::array{0.0, 2.0});
}

TEST_CASE("log_sum_exp of terms, of a std::array, stable") {
    const auto f = [](auto a, auto b, auto c) { return zg::log_sum_exp(a * 2.0, b, c + 1.0); };
    const double a = 500, b = 1001, c = 999.5;
    const double t0 = std::exp(2 * a - 1001), t1 = 1.0, t2 = std::exp(c + 1 - 1001);
    const double total = t0 + t1 + t2;
    const auto [value, grad] = zg::value_and_grad(f, a, b, c);
    CHECK(laws::close(value, 1001 + std::log(total), 1e-15));
    CHECK(laws::close(grad[0], 2 * t0 / total, 1e-14));
    CHECK(laws::close(grad[1], t1 / total, 1e-14));
    CHECK(laws::close(grad[2], t2 / total, 1e-14));
    // Terms of one type (elements of a vector argument here) make a std::array.
    const auto array = [](const auto& v) {
        return zg::log_sum_exp(std::array{v[0] * 2.0, v[1] * 1.0, v[2] * 1.0});
    };
    const auto [array_value, array_grad] = zg::value_and_grad(array, std::vector{a, b, c + 1.0});
    CHECK(laws::close(array_value, value, 1e-15));
    const auto& by_v = std::get<0>(array_grad);
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(laws::close(by_v[i], grad[i], 1e-14));
    // A number beside the expressions, and the same on the tape.
    const auto mixed = [](auto p) { return zg::log_sum_exp(p, 0.0); };
    CHECK(laws::close(zg::grad(mixed, 0.3)[0], zg::tape::grad(mixed, 0.3)[0], 1e-15));
    CHECK(laws::close(zg::grad(mixed, 0.3)[0], 1 / (1 + std::exp(-0.3)), 1e-15));
}

TEST_CASE("zg::sum and zg::log_sum_exp over an index range with a function") {
    // A small mixture: log sum_k w_k N(y | m_k, 1) over data, by the weights and means.
    const std::vector<double> data{0.3, -1.1, 2.2, 0.9, -0.4};
    const auto f = [&](auto w, auto m) {
        return zg::sum(data, [&](double y) {
            return zg::log_sum_exp(std::views::iota(0, 3), [&](int k) {
                return w[std::size_t(k)] - 0.5 * square(y - m[std::size_t(k)]);
            });
        });
    };
    const std::vector<double> w{0.1, -0.3, 0.2}, m{-1.0, 0.5, 2.0};
    const auto [value, grad] = zg::value_and_grad(f, w, m);
    const auto [tape_value, tape_grad] = zg::tape::value_and_grad(f, w, m);
    CHECK(laws::close(value, tape_value, 1e-14));
    for (std::size_t k = 0; k < 3; ++k) {
        CHECK(laws::close(std::get<0>(grad)[k], std::get<0>(tape_grad)[k], 1e-13));
        CHECK(laws::close(std::get<1>(grad)[k], std::get<1>(tape_grad)[k], 1e-13));
    }
    // Over integers with numbers only: a sum of squares by its index, then its weights.
    const auto indexed = [](auto a) {
        return zg::sum(std::views::iota(1, 5), [&](int i) { return a * double(i) * a; });
    };
    CHECK(zg::grad(indexed, 0.5)[0] == 2 * 0.5 * (1 + 2 + 3 + 4));
    // An empty range: a sum of 0, a log-sum-exp of -inf.
    const auto empty = [](auto a) {
        return zg::sum(std::views::iota(0, 0), [&](int) { return a; }) +
               exp(zg::log_sum_exp(std::views::iota(0, 0), [&](int) { return a; }));
    };
    const auto [empty_value, empty_grad] = zg::value_and_grad(empty, 1.0);
    CHECK(empty_value == 0.0);
    CHECK(empty_grad[0] == 0.0);
}

TEST_CASE("parts of a summed function that do not depend on the element are evaluated once") {
    // log(sigma) and square(sigma) are functions of the arguments alone: hoisted, their
    // adjoints summed over the elements. The gradient agrees with the tape either way.
    const std::vector<double> data{0.2, -0.4, 1.3, 2.1, -0.9};
    const auto f = [&](auto mu, auto sigma) {
        return zg::sum(data, [&](double y) {
            return 0.5 * square((y - mu) / sigma) + log(sigma) + square(sigma) * y;
        });
    };
    const auto [value, grad] = zg::value_and_grad(f, 0.3, 1.7);
    const auto [tape_value, tape_grad] = zg::tape::value_and_grad(f, 0.3, 1.7);
    CHECK(laws::close(value, tape_value, 1e-15));
    CHECK(laws::close(grad[0], tape_grad[0], 1e-14));
    CHECK(laws::close(grad[1], tape_grad[1], 1e-14));
}

TEST_CASE("a named intermediate first used inside a nested sum is swept with all its uses") {
    // s is shared on its first use, inside the nested sums, so its node is made among theirs;
    // its later uses, and a nested sum whose own adjoint is zero, must not lose any adjoint.
    const std::vector<double> data{0.4, -1.2, 0.9};
    const auto f = [&](auto a, auto b) {
        return zg::sum(data, [&](double y) {
            const auto s = a * y + sin(b);
            const auto unused = zg::sum(std::views::iota(0, 3), [&](int k) { return s * k; });
            const auto weighted = zg::log_sum_exp(std::views::iota(0, 2), [&](int k) {
                return s * (k + 1.0) - b;
            });
            return 0.0 * unused + zg::select(y > 0, weighted, s * b) + s * s;
        });
    };
    const auto [value, grad] = zg::value_and_grad(f, 0.7, -0.3);
    const auto [tape_value, tape_grad] = zg::tape::value_and_grad(f, 0.7, -0.3);
    CHECK(laws::close(value, tape_value, 1e-14));
    CHECK(laws::close(grad[0], tape_grad[0], 1e-13));
    CHECK(laws::close(grad[1], tape_grad[1], 1e-13));
}

TEST_CASE("zg::size counts a vector argument in every mode") {
    const auto mean_square = [](const auto& v) {
        return zg::sum(v * v) / static_cast<double>(zg::size(v));
    };
    const auto expected = std::vector<double>{x[0] / 2, x[1] / 2, x[2] / 2, x[3] / 2};
    CHECK(std::get<0>(zg::grad(mean_square, x)) == expected);
    CHECK(std::get<0>(zg::tape::grad(mean_square, x)) == expected);
    CHECK(zg::size(x) == 4);
}
