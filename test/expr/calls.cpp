// A call's bookkeeping under misuse and at its edges: a zg::grad inside another's lambda, an
// exception from an element function that f catches, an index range whose end comes before its
// start, and what f builds on the way but does not return (read for its value in a call that
// keeps no frame). Built under the sanitizers, these would fail on a read or write out of bounds.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <ranges>
#include <span>
#include <stdexcept>
#include <vector>

TEST_CASE("a zg::grad inside f, with the outer call's values as its constants") {
    // Mixing the outer call's leaves into the inner call's expressions does not compile
    // (test/misuse/grad_nested_outer_leaf.cpp); their values are the constants they are there.
    SUBCASE("d/dy (x y) at x = 2, y = 3 inside a call of x") {
        double inner_result = 0;
        const auto g = zg::grad(
            [&](auto x) {
                inner_result = zg::grad([&](auto y) { return x.value() * y; }, 3.0)[0];
                return x * x;
            },
            2.0);
        CHECK(inner_result == 2.0);
        CHECK(g[0] == 4.0);
    }
    SUBCASE("an outer named intermediate and outer reductions, read inside") {
        std::array<double, 2> inner{};
        const std::vector<double> v{1.0, 2.0, 3.0};
        const auto g = zg::grad(
            [&](auto a, auto w) {
                const auto shared = a * zg::sum(w) + sin(a); // kept in the outer frame
                const double s = shared.value(), total = zg::sum(w).value();
                inner = zg::grad([&](auto y, auto z) { return s * y + total * z * s; }, 1.0, 2.0);
                return shared * a;
            },
            0.5, v);
        const double shared = 0.5 * 6.0 + std::sin(0.5);
        CHECK(laws::close(inner[0], shared, 1e-15));
        CHECK(laws::close(inner[1], 6.0 * shared, 1e-15));
        // f = (a S + sin a) a: df/da = 2 a S + sin a + a cos a, df/dw_k = a^2.
        CHECK(laws::close(std::get<0>(g), 2 * 0.5 * 6.0 + std::sin(0.5) + 0.5 * std::cos(0.5),
                          1e-14));
        CHECK(std::get<1>(g) == std::vector<double>{0.25, 0.25, 0.25});
    }
    SUBCASE("an inner call that reduces the outer call's values over a range") {
        double inner = 0;
        const auto g = zg::grad(
            [&](auto x) {
                inner = zg::grad(
                    [&](auto y) {
                        return zg::sum(std::views::iota(0, 3),
                                       [&](int i) { return y * double(i) * x.value(); });
                    },
                    1.0)[0];
                return 3.0 * x;
            },
            2.0);
        CHECK(inner == 6.0);
        CHECK(g[0] == 3.0);
    }
}

TEST_CASE("an exception from an element function that f catches is reported, not half-swept") {
    const auto f = [](auto x, auto y) {
        const auto t = x * y + sin(x);
        double first_elements = 0;
        try {
            first_elements = zg::sum(std::views::iota(0, 4), [&](int i) {
                                 if (i == 2) throw std::runtime_error("no third element");
                                 return t * double(i);
                             }).value();
        } catch (const std::runtime_error&) {
        }
        return t * 2.0 + first_elements;
    };
    CHECK_THROWS_WITH_AS(zg::grad(f, 0.5, 2.0),
                         doctest::Contains("was caught inside f, which then returned"), zg::error);
    // Let through, the exception reaches the caller as it is.
    const auto g = [](auto x) {
        return zg::sum(std::views::iota(0, 4), [&](int i) {
            if (i == 2) throw std::runtime_error("no third element");
            return x * double(i);
        });
    };
    CHECK_THROWS_AS(zg::grad(g, 1.0), std::runtime_error);
    // The thread's next call is unaffected.
    CHECK(zg::grad([](auto x) { return zg::sum(std::views::iota(0, 3), [&](int i) { return x * double(i); }); }, 1.0)[0] == 3.0);
}

TEST_CASE("an index range whose end comes before its start is an error, at any depth") {
    const std::vector<double> v{1.0, 2.0};
    for (int n : {0, -5}) {
        const auto nested = [n](auto w) {
            return zg::sum(std::views::iota(0, 2), [&](int i) {
                return w[std::size_t(i)] * zg::sum(std::views::iota(0, n - 1),
                                                   [&](int j) { return w[0] * double(j); });
            });
        };
        const auto top = [n](auto w) {
            return zg::sum(std::views::iota(0, n - 1), [&](int j) { return w[0] * double(j); });
        };
        CHECK_THROWS_WITH_AS(zg::grad(nested, v), doctest::Contains("end comes before its start"),
                             zg::error);
        CHECK_THROWS_WITH_AS(zg::grad(top, v), doctest::Contains("end comes before its start"),
                             zg::error);
    }
}

TEST_CASE("what f builds but does not return is read for its value") {
    // The result's type is arguments and operations only: the call keeps no frame, and the sum,
    // the named intermediate and the reduction over data are values for the comparisons.
    const std::vector<double> data{0.5, -1.0, 2.0};
    const auto f = [&](auto x, auto y) {
        const auto s = zg::sum(std::views::iota(0, 3), [&](int i) { return x * double(i); });
        const auto t = sin(x) * y + 1.0;
        const auto u = t * t;
        const auto d = zg::dot(data, data * y);
        return zg::select(s > 0.0 && u > 0.25 && d > 0.0, x * y, y - x);
    };
    const auto g = zg::grad(f, 2.0, 3.0);
    CHECK(g[0] == 3.0);
    CHECK(g[1] == 2.0);
    const auto h = zg::grad(f, -2.0, 3.0);
    CHECK(h[0] == -1.0);
    CHECK(h[1] == 1.0);
    const auto l = zg::grad([&](auto x) {
        const auto m = zg::log_sum_exp(std::views::iota(0, 2), [&](int k) { return x * double(k); });
        return zg::select(m > 1.0, x, -x);
    }, 2.0);
    CHECK(l[0] == 1.0);
}
