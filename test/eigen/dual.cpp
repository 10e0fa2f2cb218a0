// Eigen matrices of zg::dual and of nested duals: a directional derivative through inverse(),
// determinant(), partialPivLu() and llt() solves against their closed forms, and a second
// derivative.
#include <zerograd/eigen.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <doctest/doctest.h>

#include <cmath>
#include <type_traits>
#include <vector>

TEST_CASE("Eigen sees zg::dual as a real, signed, non-integer scalar") {
    using traits = Eigen::NumTraits<zg::dual>;
    static_assert(!traits::IsComplex && !traits::IsInteger && traits::IsSigned);
    static_assert(std::is_same_v<traits::Real, zg::dual>);
    static_assert(std::is_same_v<traits::Literal, double>);
    static_assert(std::is_same_v<Eigen::NumTraits<zg::dual_t<zg::dual>>::Literal, double>);
}

TEST_CASE("derivatives through inverse, determinant and solves of Eigen matrices of duals") {
    // A(t) = A0 + t E: d/dt det A = det A tr(A^-1 E), d/dt A^-1 = -A^-1 E A^-1,
    // d/dt A^-1 b = -A^-1 E A^-1 b.
    Eigen::Matrix3d a0, e;
    a0 << 2.0, 0.5, -0.3, 0.4, 1.5, 0.2, -0.1, 0.3, 1.8;
    e << 0.3, -0.2, 0.1, 0.0, 0.5, -0.4, 0.2, 0.1, -0.6;
    const Eigen::Vector3d b(1.0, -2.0, 0.5);
    for (const bool dynamic : {false, true}) {
        Eigen::Matrix<zg::dual, Eigen::Dynamic, Eigen::Dynamic> a(3, 3);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                a(i, j) = zg::dual(a0(i, j), e(i, j));
        const Eigen::Matrix3d inverse = a0.inverse();
        const double det_rate = a0.determinant() * (inverse * e).trace();
        const Eigen::Matrix3d inverse_rate = -inverse * e * inverse;
        const Eigen::Vector3d solve_rate = inverse_rate * b;
        zg::dual det;
        Eigen::Matrix<zg::dual, Eigen::Dynamic, Eigen::Dynamic> inv;
        Eigen::Matrix<zg::dual, Eigen::Dynamic, 1> x;
        if (dynamic) {
            det = a.determinant();
            inv = a.inverse();
            x = a.partialPivLu().solve(b.cast<zg::dual>());
        } else {
            const Eigen::Matrix<zg::dual, 3, 3> fixed = a;
            det = fixed.determinant();
            inv = fixed.inverse();
            x = fixed.partialPivLu().solve(b.cast<zg::dual>());
        }
        CHECK(det.value == doctest::Approx(a0.determinant()).epsilon(1e-14));
        CHECK(det.deriv == doctest::Approx(det_rate).epsilon(1e-13));
        for (int i = 0; i < 3; ++i) {
            CHECK(x(i).deriv == doctest::Approx(solve_rate(i)).epsilon(1e-13));
            for (int j = 0; j < 3; ++j)
                CHECK(inv(i, j).deriv == doctest::Approx(inverse_rate(i, j)).epsilon(1e-13));
        }
        // A double matrix times a matrix of duals, on either side.
        const Eigen::Matrix<zg::dual, Eigen::Dynamic, Eigen::Dynamic> left = a0 * a, right = a * a0;
        CHECK(left(1, 2).deriv == doctest::Approx((a0 * e)(1, 2)).epsilon(1e-14));
        CHECK(right(2, 0).deriv == doctest::Approx((e * a0)(2, 0)).epsilon(1e-14));
    }
}

TEST_CASE("derivatives through an llt() solve and log-determinant of Eigen matrices of duals") {
    // A(t) = A0 + t E, both symmetric: d/dt A^-1 b = -A^-1 E A^-1 b, d/dt log det A = tr(A^-1 E).
    Eigen::Matrix3d a0, e;
    a0 << 4.0, 1.0, -0.5, 1.0, 3.0, 0.25, -0.5, 0.25, 2.0;
    e << 0.2, -0.3, 0.1, -0.3, 0.5, 0.4, 0.1, 0.4, -0.6;
    const Eigen::Vector3d b(1.0, -2.0, 0.5);
    Eigen::Matrix<zg::dual, 3, 3> a;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            a(i, j) = zg::dual(a0(i, j), e(i, j));
    const Eigen::LLT<Eigen::Matrix<zg::dual, 3, 3>> factor(a);
    REQUIRE(factor.info() == Eigen::Success);
    const Eigen::Matrix<zg::dual, 3, 1> x = factor.solve(b.cast<zg::dual>());
    zg::dual logdet(0.0);
    for (int i = 0; i < 3; ++i)
        logdet += 2.0 * log(factor.matrixL()(i, i));
    const Eigen::Matrix3d inverse = a0.inverse();
    const Eigen::Vector3d solve_rate = -inverse * e * inverse * b;
    for (int i = 0; i < 3; ++i) {
        CHECK(x(i).value == doctest::Approx((inverse * b)(i)).epsilon(1e-14));
        CHECK(x(i).deriv == doctest::Approx(solve_rate(i)).epsilon(1e-13));
    }
    CHECK(logdet.value == doctest::Approx(std::log(a0.determinant())).epsilon(1e-14));
    CHECK(logdet.deriv == doctest::Approx((inverse * e).trace()).epsilon(1e-13));
}

TEST_CASE("second derivatives through an Eigen determinant of nested duals") {
    // det [[t, 1], [1, t^2]] = t^3 - 1: first derivative 3 t^2, second 6 t, at t = 1.5.
    using dual2 = zg::dual_t<zg::dual>;
    const dual2 t(zg::dual(1.5, 1.0), zg::dual(1.0, 0.0));
    Eigen::Matrix<dual2, 2, 2> m;
    m << t, dual2(1.0), dual2(1.0), t * t;
    const dual2 det = m.determinant();
    CHECK(det.value.value == doctest::Approx(1.5 * 1.5 * 1.5 - 1.0));
    CHECK(det.value.deriv == doctest::Approx(3 * 1.5 * 1.5));
    CHECK(det.deriv.deriv == doctest::Approx(6 * 1.5));
}

TEST_CASE("zerograd's elementwise operators leave Eigen matrices of duals to Eigen") {
    const Eigen::Matrix<zg::dual, 2, 1> v(zg::dual(1.0, 1.0), zg::dual(2.0, 0.0));
    const zg::dual s(3.0, 0.5);
    const auto scaled = v * s;
    static_assert(!std::is_same_v<std::remove_cvref_t<decltype(scaled)>, std::vector<zg::dual>>);
    const Eigen::Matrix<zg::dual, 2, 1> w = scaled;
    CHECK(w(0).value == 3.0);
    CHECK(w(0).deriv == 3.0 + 0.5);
    CHECK(w(1).deriv == 1.0);
}
