// zg::hvp and zg::tape::hvp: Hessian-vector products by forward-over-reverse, against analytic
// products, the Hessians times the vector, and each other.
#include "laws.hpp"

#include <zerograd/drivers/expr_hessian.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape/external.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

// sum over i of 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, for any indexable x.
const auto rosenbrock = [](const auto& x) {
    auto total = (x[0] - x[0]) * 0.0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i)
        total += 100 * square(x[i + 1] - x[i] * x[i]) + square(1 - x[i]);
    return total;
};

// The same over expression mode's leaves, one per variable: a fold over the neighbouring pairs.
const auto rosenbrock_leaves = [](auto... y) {
    const std::tuple leaves{y...};
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return ((100 * square(std::get<I + 1>(leaves) - std::get<I>(leaves) * std::get<I>(leaves)) +
                 square(1 - std::get<I>(leaves))) +
                ...);
    }
    (std::make_index_sequence<sizeof...(y) - 1>{});
};

// Its Hessian (tridiagonal) times v, by hand.
std::vector<double> rosenbrock_hv(const std::vector<double>& x, const std::vector<double>& v) {
    std::vector<double> hv(x.size(), 0.0);
    for (std::size_t i = 0; i + 1 < x.size(); ++i) {
        hv[i] += (1200 * x[i] * x[i] - 400 * x[i + 1] + 2) * v[i] - 400 * x[i] * v[i + 1];
        hv[i + 1] += -400 * x[i] * v[i] + 200 * v[i + 1];
    }
    return hv;
}

} // namespace

TEST_CASE("the tape's product on a 1,000-dimensional Rosenbrock") {
    std::vector<double> x(1000), v(1000);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = std::cos(0.37 * double(i));
        v[i] = std::sin(1.3 * double(i)) - 0.2;
    }
    const auto hv = zg::tape::hvp([](auto y) { return rosenbrock(y); }, x, v);
    const auto expected = rosenbrock_hv(x, v);
    REQUIRE(hv.size() == expected.size());
    for (std::size_t i = 0; i < hv.size(); ++i) {
        INFO("i = ", i);
        CHECK(laws::close(hv[i], expected[i], 1e-12));
    }
}

TEST_CASE("the product is the Hessian times the vector") {
    const auto f = [](auto x) {
        auto total = exp(x[0]);
        for (std::size_t i = 1; i < x.size(); ++i)
            total += exp(x[i]) * x[i - 1];
        return log(total) + sin(x[0] * x[2]);
    };
    const std::vector<double> x{0.5, -1.0, 2.0, 0.3}, v{1.5, -0.25, 0.5, 2.0};
    const auto h = zg::tape::hessian(f, x);
    const auto hv = zg::tape::hvp(f, x, v);
    for (std::size_t i = 0; i < x.size(); ++i) {
        double expected = 0;
        for (std::size_t j = 0; j < x.size(); ++j)
            expected += h[i][j] * v[j];
        CHECK(laws::close(hv[i], expected, 1e-13));
    }
}

TEST_CASE("expression mode: analytic products, and the tape's") {
    SUBCASE("x^2 y") {
        // H = {{2y, 2x}, {2x, 0}}
        const auto hv = zg::hvp([](auto x, auto y) { return x * x * y; }, std::array{3.0, 2.0},
                                std::array{1.0, -2.0});
        CHECK(hv == std::array{4.0 - 12.0, 6.0});
    }
    SUBCASE("Rosenbrock in ten variables, spread into leaves") {
        std::array<double, 10> x{}, v{};
        for (std::size_t i = 0; i < x.size(); ++i) {
            x[i] = 0.1 * double(i) - 0.4;
            v[i] = double(i % 3) - 1.0;
        }
        const auto hv = zg::hvp(rosenbrock_leaves, x, v);
        const auto expected = rosenbrock_hv({x.begin(), x.end()}, {v.begin(), v.end()});
        const auto taped =
            zg::tape::hvp([](auto y) { return rosenbrock(y); }, std::vector(x.begin(), x.end()),
                          std::vector(v.begin(), v.end()));
        for (std::size_t i = 0; i < x.size(); ++i) {
            CHECK(laws::close(hv[i], expected[i], 1e-13));
            CHECK(laws::close(taped[i], expected[i], 1e-13));
        }
    }
    SUBCASE("the Hessian times the vector, with a named intermediate") {
        const auto f = [](auto a, auto b, auto c) {
            const auto total = exp(a) + exp(b) * c;
            return log(total) + total * a;
        };
        const std::array x{0.2, -0.7, 1.4}, v{0.5, 2.0, -1.0};
        const auto h = zg::hessian(f, x);
        const auto hv = zg::hvp(f, x, v);
        for (std::size_t i = 0; i < 3; ++i)
            CHECK(laws::close(hv[i], h[i][0] * v[0] + h[i][1] * v[1] + h[i][2] * v[2], 1e-13));
    }
    SUBCASE("in a constant expression") {
        constexpr auto hv = zg::hvp([](auto x, auto y) { return x * x * x + x * y; },
                                    std::array{2.0, 5.0}, std::array{1.0, 1.0});
        static_assert(hv[0] == 6 * 2.0 + 1 && hv[1] == 1);
    }
}

TEST_CASE("edges") {
    SUBCASE("a constant and a linear function have no curvature") {
        CHECK(zg::tape::hvp([](auto) { return 1.0; }, {1.0, 2.0}, {3.0, 4.0}) ==
              std::vector{0.0, 0.0});
        CHECK(zg::tape::hvp([](auto x) { return 2 * x[0] - x[1]; }, {1.0, 2.0}, {3.0, 4.0}) ==
              std::vector{0.0, 0.0});
    }
    SUBCASE("no inputs") {
        const std::vector<double> none;
        CHECK(zg::tape::hvp([](auto x) { return x.size() * 1.0; }, none, none).empty());
    }
    SUBCASE("a direction of the wrong length is a shape_error; the tape stays usable") {
        const auto f = [](auto x) { return x[0] * x[0] * x[1]; };
        const auto before = zg::tape::this_thread_tape<zg::dual>().size();
        try {
            (void)zg::tape::hvp(f, {1.0, 2.0}, {1.0});
            FAIL("no error");
        } catch (const zg::shape_error& e) {
            CHECK(std::string(e.what()) ==
                  "zg::tape::hvp: x has 2 numbers and v 1; give v one number per input");
        }
        CHECK(zg::tape::this_thread_tape<zg::dual>().size() == before);
        CHECK(zg::tape::hvp(f, {1.0, 2.0}, {1.0, 0.0}) == std::vector{4.0, 2.0});
        CHECK(zg::tape::this_thread_tape<zg::dual>().size() == before);
    }
}

TEST_CASE("black boxes and checkpoints under forward-over-reverse, their functions generic") {
    const std::vector<double> x{0.8, -1.5};
    // f = x0^2 x1 through a black box, then sin of it through a checkpoint.
    const auto f = [](auto v) {
        using V = typename decltype(v)::value_type;
        const auto y = zg::tape::external(
            std::vector<V>(v.begin(), v.end()),
            [](auto in) { return std::vector{in[0] * in[0] * in[1]}; },
            [](auto in, auto, auto ybar, auto inbar) {
                inbar[0] += 2 * in[0] * in[1] * ybar[0];
                inbar[1] += in[0] * in[0] * ybar[0];
            });
        return zg::tape::checkpoint([](auto s) { return std::vector{sin(s[0])}; }, y)[0];
    };
    const double p = x[0] * x[0] * x[1], c = std::cos(p), s = std::sin(p);
    const double p0 = 2 * x[0] * x[1], p1 = x[0] * x[0];
    // H = cos(p) d2p - sin(p) dp dp^T
    const double h00 = c * 2 * x[1] - s * p0 * p0, h01 = c * 2 * x[0] - s * p0 * p1,
                 h11 = -s * p1 * p1;
    const auto h = zg::tape::hessian(f, x);
    CHECK(laws::close(h[0][0], h00, 1e-13));
    CHECK(laws::close(h[0][1], h01, 1e-13));
    CHECK(laws::close(h[1][0], h01, 1e-13));
    CHECK(laws::close(h[1][1], h11, 1e-13));
    const auto hv = zg::tape::hvp(f, x, {1.0, 2.0});
    CHECK(laws::close(hv[0], h00 + 2 * h01, 1e-13));
    CHECK(laws::close(hv[1], h01 + 2 * h11, 1e-13));
}
