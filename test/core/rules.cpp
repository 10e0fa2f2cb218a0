// Every rule of core/rules.hpp against central finite differences and its closed form.
#include "laws.hpp"

#include <zerograd/core/rules.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

/// Whether `derivative` agrees with a central difference of f at x. The step is relative to x,
/// so it shrinks near the singularities at 0 (log, pow with negative exponents); the allowance
/// adds the difference's own rounding error, eps |f| / h, which dominates when f is large.
template <class F>
bool matches_central_difference(double derivative, F f, double x) {
    const double h = 1e-6 * std::max(1e-3, std::abs(x));
    const double fx = f(x);
    const double difference = (f(x + h) - f(x - h)) / (2 * h);
    const double rounding = 4 * std::numeric_limits<double>::epsilon() * std::abs(fx) / h;
    return std::abs(derivative - difference) <=
           1e-6 * std::max({1.0, std::abs(derivative), std::abs(difference)}) + rounding;
}

} // namespace

TEST_CASE("unary rules") {
    laws::for_each_unary_point([](const auto& law, double x) {
        using rule = laws::rule_t<decltype(law)>;
        const rule op{};
        const double y = op.value(x);
        const double dx = op.dx(x, y);
        INFO(law.name, "(", x, ") = ", y, ", rule's derivative ", dx);
        CHECK(laws::close(dx, law.derivative(x), 1e-12));
        CHECK(matches_central_difference(
            dx, [&](double t) { return op.value(t); }, x));
    });
}

TEST_CASE("binary rules") {
    laws::for_each_binary_point([](const auto& law, double x, double y) {
        using rule = laws::rule_t<decltype(law)>;
        const rule op{};
        const double z = op.value(x, y);
        const double dl = op.dl(x, y, z), dr = op.dr(x, y, z);
        INFO(law.name, "(", x, ", ", y, ") = ", z, ", rule's partials ", dl, ", ", dr);
        CHECK(laws::close(dl, law.dl(x, y), 1e-12));
        CHECK(laws::close(dr, law.dr(x, y), 1e-12));
        CHECK(matches_central_difference(
            dl, [&](double t) { return op.value(t, y); }, x));
        CHECK(matches_central_difference(
            dr, [&](double t) { return op.value(x, t); }, y));
    });
}

TEST_CASE("integer powers") {
    SUBCASE("exact, both signs, negative exponents") {
        for (int n = -6; n <= 9; ++n)
            for (double x : {-2.5, -1.0, 0.5, 3.0}) {
                const zg::pown_op op{n};
                INFO("x = ", x, ", n = ", n);
                CHECK(laws::close(op.value(x), std::pow(x, n), 1e-15));
                CHECK(laws::close(op.dx(x, op.value(x)), n * std::pow(x, n - 1), 1e-15));
            }
    }
    SUBCASE("x^0 has derivative 0 even at 0") {
        CHECK(zg::pown_op{0}.dx(0.0, 1.0) == 0.0);
        CHECK(zg::pow_op{}.dl(0.0, 0.0, 1.0) == 0.0);
    }
}

TEST_CASE("rules at their edges") {
    SUBCASE("pow: d/dy 0^y is 0 for y >= 0 (0^0 included, as PyTorch), d/dx x^2 at 0 is 0") {
        CHECK(zg::pow_op{}.dr(0.0, 2.0, 0.0) == 0.0);
        CHECK(zg::pow_op{}.dr(0.0, 0.0, 1.0) == 0.0);
        CHECK(zg::pow_op{}.dr(-0.0, 0.0, 1.0) == 0.0);
        CHECK(zg::pow_op{}.dr(0.0, -1.0, HUGE_VAL) == -HUGE_VAL); // PyTorch's too
        CHECK(zg::pow_op{}.dl(0.0, 2.0, 0.0) == 0.0);
    }
    SUBCASE("kinks take the subgradient PyTorch takes") {
        CHECK(zg::abs_op{}.dx(0.0, 0.0) == 0.0);
        CHECK(zg::relu_op{}.dx(0.0, 0.0) == 0.0);
        CHECK(zg::hypot_op{}.dl(0.0, 0.0, 0.0) == 0.0);
        CHECK(zg::min_op{}.dl(2.0, 2.0, 2.0) == 0.5);
        CHECK(zg::min_op{}.dr(2.0, 2.0, 2.0) == 0.5);
        CHECK(zg::max_op{}.dl(2.0, 2.0, 2.0) == 0.5);
        CHECK(zg::max_op{}.dr(2.0, 2.0, 2.0) == 0.5);
    }
    SUBCASE("sigmoid never overflows") {
        const zg::sigmoid_op op{};
        CHECK(op.value(-800.0) == 0.0);
        CHECK(op.value(800.0) == 1.0);
        CHECK(op.dx(-800.0, op.value(-800.0)) == 0.0);
        CHECK(std::isfinite(op.value(-710.0)));
    }
    SUBCASE("softplus and log_sigmoid are PyTorch's, finite at +-800") {
        // x, value, derivative from torch.nn.functional.softplus and logsigmoid in float64.
        // (PyTorch's softplus is x itself above 20; the exact value differs by e^-x there.)
        const double softplus[][3] = {
            {-800.0, 0.0, 0.0},
            {-50.0, 1.9287498479639178e-22, 1.9287498479639178e-22},
            {-3.7, 0.024422845933779157, 0.0241270214176692},
            {-0.3, 0.5543552444685271, 0.425557483188341},
            {0.0, 0.6931471805599453, 0.5},
            {0.001, 0.6936473055599401, 0.5002499999791666},
            {2.5, 2.5788897342925496, 0.9241418199787564},
            {20.0, 20.000000002061153, 0.9999999979388464},
            {37.0, 37.0, 1.0},
            {800.0, 800.0, 1.0},
        };
        const double log_sigmoid[][3] = {
            {-800.0, -800.0, 1.0},
            {-50.0, -50.0, 1.0},
            {-3.7, -3.724422845933779, 0.9758729785823308},
            {-0.3, -0.8543552444685272, 0.5744425168116589},
            {0.0, -0.6931471805599453, 0.5},
            {0.001, -0.6926473055599401, 0.49975000002083336},
            {2.5, -0.07888973429254963, 0.07585818002124356},
            {20.0, -2.061153620314381e-09, 2.0611536181902033e-09},
            {37.0, -8.533047625744066e-17, 8.533047625744066e-17},
            {800.0, 0.0, 0.0},
        };
        const auto agree = [](const auto& op, const double (&table)[10][3]) {
            for (const auto& [x, value, derivative] : table) {
                CAPTURE(op.name);
                CAPTURE(x);
                const double y = op.value(x);
                CHECK(std::abs(y - value) <= 1e-15 * std::abs(value));
                CHECK(std::abs(op.dx(x, y) - derivative) <= 1e-15 * std::abs(derivative));
            }
        };
        agree(zg::softplus_op{}, softplus);
        agree(zg::log_sigmoid_op{}, log_sigmoid);
    }
    SUBCASE("asin near 1 keeps its accuracy") {
        const double x = 1 - 1e-12;
        CHECK(laws::close(zg::asin_op{}.dx(x, 0.0), 1 / std::sqrt((1 - x) * (1 + x)), 1e-15));
    }
}

TEST_CASE("every operation has a name") {
    CHECK(zg::name_of(zg::op_id::leaf) == "leaf");
    CHECK(zg::name_of(zg::op_id::mul) == "*");
    CHECK(zg::name_of(zg::op_id::tanh) == "tanh");
    CHECK(zg::name_of(zg::op_id::pown) == "pow");
}

// The rules that docs/api.md promises in constant expressions.
static_assert(zg::mul_op{}.value(3.0, 4.0) == 12.0);
static_assert(zg::div_op{}.dr(1.0, 2.0, 0.5) == -0.25);
static_assert(zg::pown_op{3}.value(2.0) == 8.0 && zg::pown_op{3}.dx(2.0, 8.0) == 12.0);
static_assert(zg::pown_op{-2}.value(2.0) == 0.25);
static_assert(zg::square_op{}.dx(3.0, 9.0) == 6.0);
static_assert(zg::abs_op{}.value(-2.0) == 2.0 && zg::abs_op{}.dx(-2.0, 2.0) == -1.0);
static_assert(zg::relu_op{}.value(-2.0) == 0.0 && zg::relu_op{}.dx(3.0, 3.0) == 1.0);
static_assert(zg::min_op{}.value(1.0, 2.0) == 1.0 && zg::max_op{}.dr(1.0, 2.0, 2.0) == 1.0);
