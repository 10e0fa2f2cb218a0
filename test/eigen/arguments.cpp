// Eigen vectors of doubles (Eigen::VectorXd, fixed sizes, Maps, segments) are taken wherever a
// contiguous vector of doubles is: as arguments of expression, tape and forward mode and of the
// Jacobians and the tape's Hessians, and as constants inside an expression-mode lambda.
#include <zerograd/eigen.hpp>
#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <tuple>
#include <vector>

namespace {

// f(mu, v) = sum((v - mu)^2) + dot(v, weights): d/dmu = -2 sum(v - mu), d/dv = 2 (v - mu) + w.
const std::vector<double> weights = {0.5, -1.0, 2.0};
const auto f = [](auto mu, const auto& v) { return zg::sum(square(v - mu)) + zg::dot(v, weights); };

void check(double dmu, const std::vector<double>& dv, const std::vector<double>& v, double mu) {
    double expected_mu = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        expected_mu -= 2.0 * (v[i] - mu);
        CHECK(dv[i] == doctest::Approx(2.0 * (v[i] - mu) + weights[i]).epsilon(1e-15));
    }
    CHECK(dmu == doctest::Approx(expected_mu).epsilon(1e-15));
}

} // namespace

TEST_CASE("Eigen vectors are vector arguments in every mode") {
    const Eigen::VectorXd dynamic = (Eigen::VectorXd(3) << 1.0, 2.5, -0.5).finished();
    const Eigen::Vector3d fixed = dynamic;
    const double storage[] = {9.0, 1.0, 2.5, -0.5};
    const Eigen::Map<const Eigen::VectorXd> mapped(storage + 1, 3);
    const Eigen::VectorXd longer = (Eigen::VectorXd(5) << 7.0, 1.0, 2.5, -0.5, 8.0).finished();
    const std::vector<double> v = {1.0, 2.5, -0.5};
    const auto every_form = [&](auto gradient) {
        for (const auto& [dmu, dv] :
             {gradient(dynamic), gradient(fixed), gradient(mapped), gradient(longer.segment(1, 3))})
            check(dmu, dv, v, 0.25);
    };
    every_form([](const auto& x) { return zg::grad(f, 0.25, x); });
    every_form([](const auto& x) { return zg::tape::grad(f, 0.25, x); });
    every_form([](const auto& x) { return zg::fwd::grad(f, 0.25, x); });
    const auto [value, gradient] = zg::value_and_grad(f, 0.25, dynamic);
    CHECK(value == doctest::Approx(0.5625 + 5.0625 + 0.5625 + 0.5 - 2.5 - 1.0).epsilon(1e-15));
    check(std::get<0>(gradient), std::get<1>(gradient), v, 0.25);
}

TEST_CASE("only Eigen vectors whose elements are contiguous are vector arguments") {
    using zg::detail::vector_argument;
    static_assert(vector_argument<Eigen::VectorXd> && vector_argument<Eigen::RowVector2d>);
    static_assert(vector_argument<Eigen::Map<Eigen::VectorXd>>);
    static_assert(!vector_argument<Eigen::MatrixXd>);                    // not a vector
    static_assert(!vector_argument<decltype(Eigen::MatrixXd().row(0))>); // elements apart
    static_assert(!vector_argument<Eigen::VectorXf>);                    // not doubles
    static_assert(!vector_argument<decltype(Eigen::VectorXd() + Eigen::VectorXd())>); // no data
}

TEST_CASE("Jacobians take Eigen vectors") {
    const auto g = [](auto x) {
        using T = typename decltype(x)::value_type;
        return std::vector<T>{x[0] * x[1], sin(x[0]), x[1] * x[1] * x[2]};
    };
    const Eigen::Vector3d x(0.5, 2.0, -1.0);
    const std::vector<std::vector<double>> expected = {
        {2.0, 0.5, 0.0}, {std::cos(0.5), 0.0, 0.0}, {0.0, -4.0, 4.0}};
    for (const auto& jacobian :
         {zg::jacobian(g, x), zg::tape::jacobian(g, x), zg::fwd::jacobian(g, x)})
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 3; ++j)
                CHECK(jacobian[i][j] == doctest::Approx(expected[i][j]).epsilon(1e-15));
}

TEST_CASE("second derivatives take Eigen vectors") {
    // f = x0^2 x1 + exp(x1 x2): H = [[2 x1, 2 x0, 0], [2 x0, x2^2 e, (1 + x1 x2) e], [0, .., x1^2 e]]
    // with e = exp(x1 x2).
    const auto f = [](auto x) { return x[0] * x[0] * x[1] + exp(x[1] * x[2]); };
    const Eigen::Vector3d x(0.5, 2.0, -0.25);
    const double e = std::exp(-0.5);
    const std::vector<std::vector<double>> expected = {{4.0, 1.0, 0.0},
                                                       {1.0, 0.0625 * e, 0.5 * e},
                                                       {0.0, 0.5 * e, 4.0 * e}};
    const auto hessian = zg::tape::hessian(f, x);
    const Eigen::VectorXd v = (Eigen::VectorXd(3) << 1.0, -2.0, 0.5).finished();
    const std::vector<double> hv = zg::tape::hvp(f, x, v);
    for (std::size_t i = 0; i < 3; ++i) {
        double expected_hv = 0.0;
        for (std::size_t j = 0; j < 3; ++j) {
            CHECK(hessian[i][j] == doctest::Approx(expected[i][j]).epsilon(1e-15));
            expected_hv += expected[i][j] * v[static_cast<Eigen::Index>(j)];
        }
        CHECK(hv[i] == doctest::Approx(expected_hv).epsilon(1e-15));
    }
    CHECK_THROWS_AS(zg::tape::hvp(f, x, Eigen::Vector2d(1.0, 0.0)), zg::shape_error);
}

TEST_CASE("an Eigen vector the expression-mode lambda holds is a constant vector") {
    const Eigen::Vector3d scale(2.0, -1.0, 0.5);
    const auto [dv] =
        zg::grad([&](const auto& v) { return zg::dot(v, scale) + zg::sum(v * scale); },
                 std::vector{1.0, 2.0, 3.0});
    CHECK(dv == std::vector{4.0, -2.0, 1.0});
}
