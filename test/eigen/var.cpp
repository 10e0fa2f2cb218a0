// Eigen matrices of zg::var: fixed and dynamic sizes, products with double matrices, inverse(),
// determinant(), llt() and partialPivLu() solves, each gradient against central differences of
// the same function on doubles.
#include <zerograd/eigen.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <doctest/doctest.h>

#include <cmath>
#include <type_traits>
#include <vector>

namespace {

template <class Scalar, int N>
using matrix = Eigen::Matrix<Scalar, N, N>;

// A well-conditioned n x n matrix from the numbers a (filled column by column), made symmetric
// positive definite (A A^T + n I) when `spd`.
template <class Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> from_numbers(const std::vector<Scalar>& a,
                                                                   int n, bool spd) {
    Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> m(n, n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            m(i, j) = a[static_cast<std::size_t>(j * n + i)];
    if (!spd) return m;
    Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> s = m * m.transpose();
    for (int i = 0; i < n; ++i)
        s(i, i) += double(n);
    return s;
}

// A scalar function of n x n numbers, written once for double and zg::var.
template <class F>
void check_against_differences(F f, std::vector<double> x) {
    zg::tape::scope scope;
    std::vector<zg::var> leaves(x.begin(), x.end());
    const zg::var y = f(leaves);
    y.backward();
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double h = 1e-6 * std::max(1.0, std::abs(x[i]));
        const double at = x[i];
        x[i] = at + h;
        const double up = f(x);
        x[i] = at - h;
        const double down = f(x);
        x[i] = at;
        INFO("input ", i);
        CHECK(leaves[i].grad() == doctest::Approx((up - down) / (2 * h)).epsilon(1e-7));
    }
}

const std::vector<double> nine = {1.2, -0.4, 0.3, 0.7, 2.1, -0.5, 0.2, 0.6, 1.7};
const std::vector<double> sixteen = {1.1,  0.2, -0.3, 0.4,  -0.6, 1.5,  0.1, 0.3,
                                     0.25, 0.7, 1.9,  -0.2, 0.05, -0.4, 0.6, 2.2};

} // namespace

TEST_CASE("Eigen sees zg::var as a real, signed, non-integer scalar") {
    using traits = Eigen::NumTraits<zg::var>;
    static_assert(!traits::IsComplex && !traits::IsInteger && traits::IsSigned);
    static_assert(traits::RequireInitialization);
    static_assert(std::is_same_v<traits::Real, zg::var>);
    static_assert(
        std::is_same_v<Eigen::ScalarBinaryOpTraits<zg::var, double>::ReturnType, zg::var>);
}

TEST_CASE("fixed-size products, determinant and inverse of zg::var") {
    check_against_differences(
        [](const auto& a) {
            using scalar = std::remove_cvref_t<decltype(a[0])>;
            matrix<scalar, 3> m;
            for (int i = 0; i < 9; ++i)
                m(i % 3, i / 3) = a[static_cast<std::size_t>(i)];
            const Eigen::Vector3d v(1.0, -2.0, 0.5);
            const Eigen::Matrix3d d = Eigen::Matrix3d::Identity() * 2.0;
            const Eigen::Matrix<scalar, 3, 1> w = (d * m) * v; // a double matrix on the left
            return scalar(w.sum() + m.determinant() + m.inverse()(0, 1) + (m * d).trace());
        },
        nine);
}

TEST_CASE("dynamic-size inverse, determinant and solves of zg::var") {
    check_against_differences(
        [](const auto& a) {
            using scalar = std::remove_cvref_t<decltype(a[0])>;
            const auto m = from_numbers(a, 4, false);
            Eigen::Matrix<scalar, Eigen::Dynamic, 1> b(4);
            b << 1.0, -1.0, 0.5, 2.0;
            const Eigen::Matrix<scalar, Eigen::Dynamic, 1> x = m.partialPivLu().solve(b);
            return scalar(x.sum() + m.inverse().sum() + m.determinant());
        },
        sixteen);
    check_against_differences(
        [](const auto& a) {
            using scalar = std::remove_cvref_t<decltype(a[0])>;
            const auto s = from_numbers(a, 4, true);
            const Eigen::MatrixXd rhs = Eigen::MatrixXd::Ones(4, 2);
            const Eigen::Matrix<scalar, Eigen::Dynamic, Eigen::Dynamic> x =
                s.llt().solve(rhs.cast<scalar>());
            const auto l = s.llt().matrixL().toDenseMatrix();
            return scalar(x.squaredNorm() + l.diagonal().array().log().sum());
        },
        sixteen);
}

TEST_CASE("zerograd's elementwise operators leave Eigen's types to Eigen") {
    zg::tape::scope scope;
    Eigen::Matrix<zg::var, 3, 1> v(1.0, 2.0, 3.0);
    const zg::var s = 2.0;
    const auto right = v * s;
    const auto left = s * v;
    const auto sum = v + v;
    static_assert(!std::is_same_v<std::remove_cvref_t<decltype(right)>, std::vector<zg::var>>);
    static_assert(!std::is_same_v<std::remove_cvref_t<decltype(left)>, std::vector<zg::var>>);
    static_assert(!std::is_same_v<std::remove_cvref_t<decltype(sum)>, std::vector<zg::var>>);
    const Eigen::Matrix<zg::var, 3, 1> w = right + left + sum;
    const zg::var total = w.sum();
    total.backward();
    CHECK(total.data() == 36.0);
    CHECK(s.grad() == 12.0);
    CHECK(v(2).grad() == 6.0);
}
