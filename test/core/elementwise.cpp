// Elementwise operations on ranges of a mode's scalars: one generic lambda over vector arguments
// gives the same value and gradient in expression mode (vector leaves), tape mode (spans of
// variables) and forward mode (spans of duals), and matches a hand-derived gradient.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <ranges>
#include <span>
#include <vector>

namespace {

const std::vector<double> x{0.5, -1.25, 2.0, 0.75};
const std::vector<double> w{1.5, -0.5, 0.25, 2.0};

void check_close(const std::vector<double>& a, const std::vector<double>& b, double tolerance) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(laws::close(a[i], b[i], tolerance));
}

} // namespace

TEST_CASE("elementwise operations on ranges of variables and duals match a hand gradient") {
    // f(v, s) = sum_k (s v_k^2 - sin(v_k) + 2 v_k / (1 + v_k^2)) with the operations spread
    // over range-range, range-scalar, scalar-range, range-constant and unary forms.
    const auto f = [](auto v, auto s) {
        const auto squares = v * v;
        return zg::sum(s * squares - sin(v) + (2 * v) / (1.0 + squares));
    };
    const double s = 0.7;
    double value = 0;
    std::vector<double> dv(x.size());
    double ds = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        const double v = x[k], q = 1 + v * v;
        value += s * v * v - std::sin(v) + 2 * v / q;
        dv[k] = 2 * s * v - std::cos(v) + 2 / q - 4 * v * v / (q * q);
        ds += v * v;
    }
    const auto [tape_value, tape_grad] = zg::tape::value_and_grad(f, x, s);
    CHECK(laws::close(tape_value, value, 1e-14));
    check_close(std::get<0>(tape_grad), dv, 1e-14);
    CHECK(laws::close(std::get<1>(tape_grad), ds, 1e-14));
    const auto forward_grad = zg::fwd::grad(f, x, s);
    check_close(std::get<0>(forward_grad), dv, 1e-14);
    CHECK(laws::close(std::get<1>(forward_grad), ds, 1e-14));
}

TEST_CASE("expression, tape and forward mode agree on elementwise expressions") {
    const std::vector<double> data{1.0, 2.0, 3.0, -0.5};
    const auto f = [&](auto v, auto u, auto s) {
        return zg::sum(v * s + sin(v) - pow(v, 2) / 2.0) + zg::dot(exp(-v), data) +
               zg::sum(max(v, 0.6) + min(u, v)) + zg::sum(2 * v - data) +
               zg::sum(data * u) + zg::sum(s / (3.0 + v)) + zg::norm(tanh(v) * u) +
               zg::sum(hypot(v, u) - atan2(u, v) + pow(u * u, s) + sqrt(square(u) + 1.0));
    };
    const double s = 1.3;
    const auto [value, grad] = zg::value_and_grad(f, x, w, s);
    const auto [tape_value, tape_grad] = zg::tape::value_and_grad(f, x, w, s);
    const auto forward_grad = zg::fwd::grad(f, x, w, s);
    CHECK(laws::close(tape_value, value, 1e-13));
    check_close(std::get<0>(tape_grad), std::get<0>(grad), 1e-13);
    check_close(std::get<1>(tape_grad), std::get<1>(grad), 1e-13);
    CHECK(laws::close(std::get<2>(tape_grad), std::get<2>(grad), 1e-13));
    check_close(std::get<0>(forward_grad), std::get<0>(grad), 1e-13);
    check_close(std::get<1>(forward_grad), std::get<1>(grad), 1e-13);
    CHECK(laws::close(std::get<2>(forward_grad), std::get<2>(grad), 1e-13));
}

TEST_CASE("pow(0, 0) has partials (0, 0) in every mode, as in PyTorch") {
    const auto f = [](auto x, auto y) { return pow(x, y); };
    const std::array<double, 2> zero{0.0, 0.0};
    CHECK(zg::grad(f, 0.0, 0.0) == zero);
    CHECK(zg::tape::grad(f, 0.0, 0.0) == zero);
    CHECK(zg::fwd::grad(f, 0.0, 0.0) == zero);
    CHECK(zg::value_and_grad(f, 0.0, 0.0).value == 1.0);
}

TEST_CASE("an elementwise result is a std::vector of the mode's scalars, each on the tape") {
    const std::vector<zg::var> v{zg::var(2.0), zg::var(-3.0)};
    const std::vector<zg::var> y = -(v * 3 + 1);
    CHECK(y[0].data() == -7.0);
    CHECK(y[1].data() == 8.0);
    y[1].backward();
    CHECK(v[0].grad() == 0.0);
    CHECK(v[1].grad() == -3.0);
    // A range that computes its elements (no references to them) is a constant operand too.
    const auto halves =
        std::views::iota(1, 3) | std::views::transform([](int i) { return 0.5 * i; });
    const std::vector<zg::var> scaled = v * halves;
    CHECK(scaled[0].data() == 1.0);
    CHECK(scaled[1].data() == -3.0);
    const std::vector<zg::dual> d{{2.0, 1.0}, {0.5, 0.0}};
    const std::vector<zg::dual> e = exp(std::span<const zg::dual>(d));
    CHECK(e[0].value == doctest::Approx(std::exp(2.0)).epsilon(1e-15));
    CHECK(e[0].deriv == doctest::Approx(std::exp(2.0)).epsilon(1e-15));
    CHECK(e[1].deriv == 0.0);
}

TEST_CASE("ranges of different sizes are a shape_error naming the operation and both sizes") {
    const std::vector<zg::var> three{zg::var(1.0), zg::var(2.0), zg::var(3.0)};
    const std::vector<double> two{1.0, 2.0};
    CHECK_THROWS_WITH_AS(three * two, "zg: elementwise * of ranges of sizes 3 and 2",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(atan2(two, three), "zg: elementwise atan2 of ranges of sizes 2 and 3",
                         zg::shape_error);
    const auto f = [](auto v, auto u) { return zg::sum(v + u); };
    CHECK_THROWS_AS(zg::tape::grad(f, std::vector<double>{1, 2, 3}, two), zg::shape_error);
    CHECK_THROWS_AS(zg::fwd::grad(f, std::vector<double>{1, 2, 3}, two), zg::shape_error);
}
