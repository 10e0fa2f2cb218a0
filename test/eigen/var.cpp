// Eigen matrices of zg::var: fixed and dynamic sizes, products with double matrices (small and
// past Eigen's blocked-kernel threshold), inverse(), determinant(), llt() and partialPivLu()
// solves, each gradient against central differences.
#include <zerograd/eigen.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <functional>
#include <type_traits>
#include <vector>

namespace {

using var_matrix = Eigen::Matrix<zg::var, Eigen::Dynamic, Eigen::Dynamic>;
using var_vector = Eigen::Matrix<zg::var, Eigen::Dynamic, 1>;

// A well-conditioned n x n matrix from the variables a (filled column by column), made symmetric
// positive definite (A A^T + n I) when `spd`.
var_matrix from_variables(const std::vector<zg::var>& a, int n, bool spd) {
    var_matrix m(n, n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            m(i, j) = a[static_cast<std::size_t>(j * n + i)];
    if (!spd) return m;
    var_matrix s = m * m.transpose();
    for (int i = 0; i < n; ++i)
        s(i, i) += double(n);
    return s;
}

// f's gradient by the tape against central differences of f's values. f is written for zg::var
// only (a difference records a tape and drops it): Eigen's algorithms are compiled once, not
// once more for doubles.
void check_against_differences(const std::function<zg::var(const std::vector<zg::var>&)>& f,
                               std::vector<double> x) {
    zg::tape::scope scope;
    const std::vector<zg::var> leaves(x.begin(), x.end());
    f(leaves).backward();
    const auto value_at = [&](const std::vector<double>& at) {
        zg::tape::scope inner;
        return f(std::vector<zg::var>(at.begin(), at.end())).data();
    };
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double h = 1e-6 * std::max(1.0, std::abs(x[i]));
        const double at = x[i];
        x[i] = at + h;
        const double up = value_at(x);
        x[i] = at - h;
        const double down = value_at(x);
        x[i] = at;
        INFO("input ", i);
        CHECK(leaves[i].grad() == doctest::Approx((up - down) / (2 * h)).epsilon(1e-7));
    }
}

Eigen::Matrix<zg::var, 3, 3> fixed_from(const std::vector<zg::var>& a) {
    Eigen::Matrix<zg::var, 3, 3> m;
    for (int i = 0; i < 9; ++i)
        m(i % 3, i / 3) = a[static_cast<std::size_t>(i)];
    return m;
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

TEST_CASE("fixed-size products, determinant, inverse and solves of zg::var") {
    check_against_differences(
        [](const std::vector<zg::var>& a) {
            const Eigen::Matrix<zg::var, 3, 3> m = fixed_from(a);
            const Eigen::Vector3d v(1.0, -2.0, 0.5);
            const Eigen::Matrix3d d = Eigen::Matrix3d::Identity() * 2.0;
            const Eigen::Matrix<zg::var, 3, 1> w = (d * m) * v; // a double matrix on the left
            return zg::var(w.sum() + m.determinant() + m.inverse()(0, 1) + (m * d).trace());
        },
        nine);
    check_against_differences(
        [](const std::vector<zg::var>& a) {
            const Eigen::Matrix<zg::var, 3, 3> m = fixed_from(a);
            const Eigen::Matrix<zg::var, 3, 3> s =
                m * m.transpose() + 3.0 * Eigen::Matrix<zg::var, 3, 3>::Identity();
            const Eigen::Matrix<zg::var, 3, 1> b(1.0, -2.0, 0.5);
            const Eigen::Matrix<zg::var, 3, 1> x = m.partialPivLu().solve(b);
            const Eigen::Matrix<zg::var, 3, 1> y = s.llt().solve(b);
            return zg::var(x.sum() + y.squaredNorm());
        },
        nine);
}

TEST_CASE("dynamic-size inverse, determinant and solves of zg::var") {
    check_against_differences(
        [](const std::vector<zg::var>& a) {
            const var_matrix m = from_variables(a, 4, false);
            var_vector b(4);
            b << 1.0, -1.0, 0.5, 2.0;
            const var_vector x = m.partialPivLu().solve(b);
            return zg::var(x.sum() + m.inverse().sum() + m.determinant());
        },
        sixteen);
    check_against_differences(
        [](const std::vector<zg::var>& a) {
            const var_matrix s = from_variables(a, 4, true);
            const Eigen::MatrixXd rhs = Eigen::MatrixXd::Ones(4, 2);
            const var_matrix x = s.llt().solve(rhs.cast<zg::var>());
            const var_matrix l = s.llt().matrixL().toDenseMatrix();
            return zg::var(x.squaredNorm() + l.diagonal().array().log().sum());
        },
        sixteen);
}

TEST_CASE("products of double and zg::var matrices past Eigen's blocked-kernel threshold") {
    // rows + columns + depth >= 20, where Eigen's products of doubles switch to blocked kernels.
    Eigen::MatrixXd left(12, 4), right(4, 12);
    for (int i = 0; i < 12; ++i)
        for (int k = 0; k < 4; ++k) {
            left(i, k) = 0.1 * (i + 1) - 0.3 * k;
            right(k, i) = std::sin(i + 2.0 * k);
        }
    check_against_differences(
        [&](const std::vector<zg::var>& a) {
            const var_matrix m = from_variables(a, 4, false);
            const var_matrix p = (left * m) * right;               // 12 x 12, doubles on both sides
            const var_matrix q = m.transpose() * left.transpose(); // 4 x 12, zg::var on the left
            return zg::var(1e-3 * p.squaredNorm() + q.sum());
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

TEST_CASE("a fixed 4x4 determinant of zg::var, as a homogeneous transform's") {
    // Eigen's own 4x4 determinant hands an operation's result, a formula on variables, to a
    // template of one type parameter; zerograd's eigen.hpp computes it from 2x2 minors instead.
    Eigen::Matrix4d a;
    for (int k = 0; k < 16; ++k)
        a(k % 4, k / 4) = sixteen[static_cast<std::size_t>(k)];
    zg::tape::scope scope;
    Eigen::Matrix<zg::var, 4, 4> m;
    for (int k = 0; k < 16; ++k)
        m(k % 4, k / 4) = a(k % 4, k / 4);
    const zg::var d = m.determinant();
    CHECK(d.data() == doctest::Approx(a.determinant()).epsilon(1e-14));
    d.backward();
    // d det A / dA = det A A^-T.
    const Eigen::Matrix4d expected = a.determinant() * a.inverse().transpose();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            CHECK(m(i, j).grad() == doctest::Approx(expected(i, j)).epsilon(1e-13));
    check_against_differences(
        [](const std::vector<zg::var>& x) {
            Eigen::Matrix<zg::var, 4, 4> b;
            for (int k = 0; k < 16; ++k)
                b(k % 4, k / 4) = x[static_cast<std::size_t>(k)];
            return zg::var(b.determinant() + b.inverse()(1, 2));
        },
        sixteen);
}

TEST_CASE("a fixed 4x4 determinant's Hessian on variables of dual numbers") {
    // zg::tape::hessian records on zg::tape::basic_var<zg::dual>.
    const auto h = zg::tape::hessian(
        [](auto x) {
            using T = std::remove_const_t<typename decltype(x)::value_type>;
            Eigen::Matrix<T, 4, 4> b;
            for (int k = 0; k < 16; ++k)
                b(k % 4, k / 4) = x[static_cast<std::size_t>(k)];
            return T(b.determinant());
        },
        sixteen);
    // The determinant is linear in each entry: its second derivative by one entry is 0, and by
    // two entries of one row or column too; by A_ij and A_kl (i != k, j != l) it is the signed
    // 2x2 complementary minor's determinant, here checked against central differences of the
    // exact gradient det A A^-T.
    Eigen::Matrix4d a;
    for (int k = 0; k < 16; ++k)
        a(k % 4, k / 4) = sixteen[static_cast<std::size_t>(k)];
    const auto gradient = [](const Eigen::Matrix4d& x) -> Eigen::Matrix4d {
        return x.determinant() * x.inverse().transpose();
    };
    for (int p = 0; p < 16; ++p) {
        Eigen::Matrix4d up = a, down = a;
        up(p % 4, p / 4) += 1e-6;
        down(p % 4, p / 4) -= 1e-6;
        const Eigen::Matrix4d column = (gradient(up) - gradient(down)) / 2e-6;
        for (int q = 0; q < 16; ++q) {
            INFO("entries ", p, " and ", q);
            const auto [i, j, k, l] = std::array{p % 4, p / 4, q % 4, q / 4};
            if (i == k || j == l)
                CHECK(h[std::size_t(p)][std::size_t(q)] == 0.0);
            else
                CHECK(h[std::size_t(p)][std::size_t(q)] ==
                      doctest::Approx(column(q % 4, q / 4)).epsilon(1e-7));
        }
    }
}
