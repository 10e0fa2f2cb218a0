// zerograd/eigen.hpp: zerograd's scalars as Eigen's: Eigen::Matrix<zg::var, ...> and
// Eigen::Matrix<zg::dual_t<T>, ...>, fixed or dynamic, with Eigen's products (also with double
// matrices), inverse(), determinant() and llt() / partialPivLu() solves. Each scalar operation
// Eigen does is recorded (tape mode) or carries its derivative (forward mode), so an O(n^3)
// factorisation costs O(n^3) nodes: for large matrices the tensors' solve, inverse, cholesky and
// logdet (one node each) are the better tool. Not part of <zerograd/zerograd.hpp>: include it
// where Eigen is on the include path.
#pragma once

#include "zerograd/forward.hpp"
#include "zerograd/tape.hpp"

#include <Eigen/Core>
#include <Eigen/LU> // determinant(), inverse(), partialPivLu(): the 4x4 determinant below

namespace zg::detail {

template <class T>
inline constexpr bool is_zerograd_scalar = false;
template <class T>
inline constexpr bool is_zerograd_scalar<tape::basic_var<T>> = true;
template <class T>
inline constexpr bool is_zerograd_scalar<dual_t<T>> = true;

template <class T>
inline constexpr bool is_tape_variable = false;
template <class T>
inline constexpr bool is_tape_variable<tape::basic_var<T>> = true;

/// A product of Eigen objects one of which holds zerograd scalars.
template <class Lhs, class Rhs>
concept zerograd_product =
    is_zerograd_scalar<typename Lhs::Scalar> || is_zerograd_scalar<typename Rhs::Scalar>;

/// What Eigen needs to know of a scalar whose arithmetic costs what `T`'s does several times
/// over (a node recorded, or a derivative carried): no vectorisation, initialisation required.
template <class Scalar, class T>
struct eigen_scalar_traits : Eigen::NumTraits<T> {
    using Real = Scalar;
    using NonInteger = Scalar;
    using Nested = Scalar;
    using Literal = typename Eigen::NumTraits<T>::Literal;
    enum {
        IsComplex = 0,
        IsInteger = 0,
        IsSigned = 1,
        RequireInitialization = 1,
        ReadCost = 1,
        AddCost = 4 * Eigen::NumTraits<T>::AddCost,
        MulCost = 4 * Eigen::NumTraits<T>::MulCost,
    };
};

} // namespace zg::detail

namespace Eigen {

template <class T>
struct NumTraits<zg::tape::basic_var<T>>
    : zg::detail::eigen_scalar_traits<zg::tape::basic_var<T>, T> {};

template <class T>
struct NumTraits<zg::dual_t<T>> : zg::detail::eigen_scalar_traits<zg::dual_t<T>, T> {};

// A zerograd scalar with a plain number (a double matrix times a matrix of variables) gives the
// zerograd scalar.
template <class T, class BinaryOp>
struct ScalarBinaryOpTraits<zg::tape::basic_var<T>, T, BinaryOp> {
    using ReturnType = zg::tape::basic_var<T>;
};
template <class T, class BinaryOp>
struct ScalarBinaryOpTraits<T, zg::tape::basic_var<T>, BinaryOp> {
    using ReturnType = zg::tape::basic_var<T>;
};
template <class T, class BinaryOp>
struct ScalarBinaryOpTraits<zg::dual_t<T>, double, BinaryOp> {
    using ReturnType = zg::dual_t<T>;
};
template <class T, class BinaryOp>
struct ScalarBinaryOpTraits<double, zg::dual_t<T>, BinaryOp> {
    using ReturnType = zg::dual_t<T>;
};

namespace internal {

// Products of zerograd scalars are computed coefficient by coefficient, as Eigen does for small
// fixed sizes, never by its blocked kernels: those keep partial sums in the type of one operand
// (a double, for a double matrix times a matrix of variables) and scale each result by a factor
// alpha = 1, which on the tape would be a node per element for nothing.
template <class Lhs, class Rhs>
requires zg::detail::zerograd_product<Lhs, Rhs>
struct generic_product_impl<Lhs, Rhs, DenseShape, DenseShape, GemmProduct>
    : generic_product_impl<Lhs, Rhs, DenseShape, DenseShape, CoeffBasedProductMode> {
};
template <class Lhs, class Rhs>
requires zg::detail::zerograd_product<Lhs, Rhs>
struct generic_product_impl<Lhs, Rhs, DenseShape, DenseShape, GemvProduct>
    : generic_product_impl<Lhs, Rhs, DenseShape, DenseShape, CoeffBasedProductMode> {
};

// A fixed 4x4 determinant of variables. Eigen's passes an operation's result, which on variables
// is a formula rather than a variable, to its generic pmadd(a, b, c), whose one type parameter
// cannot be deduced from both: here each 2x2 minor of the top two rows is one statement, and the
// sum of their products with the complementary minors of the bottom two rows another.
template <class Derived>
requires zg::detail::is_tape_variable<typename traits<Derived>::Scalar>
struct determinant_impl<Derived, 4> {
    using Scalar = typename traits<Derived>::Scalar;
    static Scalar run(const Derived& m) {
        // (Not named minor: glibc's <sys/sysmacros.h> defines a macro of that name.)
        const auto pair_determinant = [&m](Index row, Index j, Index k) -> Scalar {
            return m(row, j) * m(row + 1, k) - m(row, k) * m(row + 1, j);
        };
        const auto& d = pair_determinant;
        return d(0, 0, 1) * d(2, 2, 3) - d(0, 0, 2) * d(2, 1, 3) + d(0, 0, 3) * d(2, 1, 2) +
               d(0, 1, 2) * d(2, 0, 3) - d(0, 1, 3) * d(2, 0, 2) + d(0, 2, 3) * d(2, 0, 1);
    }
};

} // namespace internal

} // namespace Eigen
