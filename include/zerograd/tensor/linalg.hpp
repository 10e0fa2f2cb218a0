// zerograd/tensor/linalg.hpp: solve, inverse, cholesky and logdet of square matrices (and batches
// of them), factorised by Eigen and differentiated at the matrix level: one node per operation,
// whose backward is a few matrix products and triangular solves, never a node per scalar.
#pragma once

#include "zerograd/tensor/gemm.hpp"
#include "zerograd/tensor/tensor.hpp"

#include <algorithm> // min
#include <cmath>     // log
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#if ZG_TENSOR_EIGEN
#include <Eigen/Cholesky>
#include <Eigen/LU>
#endif

namespace zg {

namespace detail {

/// A tensor seen as a batch of square matrices: shape [..., n, n].
struct square_batch {
    std::size_t n = 0;
    tensor_shape batch; // the axes before the last two
};

inline square_batch square_matrices(std::string_view operation, const tensor_shape& shape) {
    const std::size_t rank = shape.rank();
    if (rank < 2 || shape[rank - 1] != shape[rank - 2])
        throw shape_error("zg::" + std::string(operation) +
                          ": needs a square matrix or a batch of them (shape [..., n, n]), not "
                          "shape " +
                          shape.to_string());
    return {shape[rank - 1], tensor_shape(std::span<const std::size_t>(shape.data(), rank - 2))};
}

/// `shape` with one more axis of length `dim`.
inline tensor_shape with_axis(tensor_shape shape, std::size_t dim) {
    shape.push_back(dim);
    return shape;
}

/// "the matrix of shape [3, 3]", or "matrix 2 of the batch of shape [4, 3, 3]", for messages.
inline std::string which_matrix(const tensor_shape& shape, std::size_t b) {
    if (shape.rank() == 2) return "the matrix of shape " + shape.to_string();
    return "matrix " + std::to_string(b) + " of the batch of shape " + shape.to_string();
}

/// A matrix the operation cannot take: the node it was recording is taken back off the tape, so
/// the tape is as it was, and domain_error names the operation, the matrix and `problem`.
[[noreturn, gnu::cold]] inline void refuse_matrix(tensor_tape& tape, tensor_tape::index_type node,
                                                  std::string_view operation,
                                                  const tensor_shape& shape, std::size_t b,
                                                  std::string_view problem) {
    tape.rewind(node);
    throw domain_error("zg::" + std::string(operation) + ": " + which_matrix(shape, b) + " " +
                       std::string(problem));
}

#if ZG_TENSOR_EIGEN

// Templates called without arguments, as gemm.hpp's: instantiated only where they are called.

using matrix_ref = Eigen::Ref<row_major_matrix>;

inline constexpr std::string_view non_finite_entry = "has an entry that is NaN or infinite";

/// Factorises the n x n matrix in `a` (row-major) in place as P A = L U (partial pivoting, L with
/// a unit diagonal below, U on and above it), its row permutation's indices into `pivots`.
/// Returns what is wrong with A (nothing: empty). Eigen would factorise a NaN or an infinity
/// without complaint, into factors of NaNs.
template <class = void>
std::string_view lu_in_place(double* a, int* pivots, std::size_t n) {
    const auto size = static_cast<Eigen::Index>(n);
    matrix_map lu(a, size, size);
    if (!lu.allFinite()) return non_finite_entry;
    const Eigen::PartialPivLU<matrix_ref> factor(lu);
    Eigen::Map<Eigen::VectorXi>(pivots, size) = factor.permutationP().indices();
    return (lu.diagonal().array() != 0.0).all() ? "" : "is singular";
}

/// Overwrites the n x k matrix x with A^-1 x (transposed = false) or A^-T x (true), A given by
/// lu_in_place's factors.
template <class = void>
void lu_solve_in_place(const double* lu, const int* pivots, std::size_t n, double* x, std::size_t k,
                       bool transposed) {
    const auto size = static_cast<Eigen::Index>(n);
    const const_matrix_map factors(lu, size, size);
    matrix_map rhs(x, size, static_cast<Eigen::Index>(k));
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p(size);
    p.indices() = Eigen::Map<const Eigen::VectorXi>(pivots, size);
    if (!transposed) { // A = P^T L U
        rhs = p * rhs;
        factors.triangularView<Eigen::UnitLower>().solveInPlace(rhs);
        factors.triangularView<Eigen::Upper>().solveInPlace(rhs);
    } else { // A^T = U^T L^T P
        factors.triangularView<Eigen::Upper>().transpose().solveInPlace(rhs);
        factors.triangularView<Eigen::UnitLower>().transpose().solveInPlace(rhs);
        rhs = p.transpose() * rhs;
    }
}

/// Overwrites the n x n matrix in `a` with its lower Cholesky factor L (A = L L^T, read from A's
/// lower triangle, zeros above the diagonal). Returns what is wrong with A, as lu_in_place.
template <class = void>
std::string_view cholesky_in_place(double* a, std::size_t n) {
    const auto size = static_cast<Eigen::Index>(n);
    matrix_map l(a, size, size);
    // Only the lower triangle is read: a NaN above the diagonal is not A's.
    for (Eigen::Index i = 0; i < size; ++i)
        if (!l.row(i).head(i + 1).allFinite()) return non_finite_entry;
    const Eigen::LLT<matrix_ref, Eigen::Lower> factor(l);
    if (factor.info() != Eigen::Success) return "is not positive definite";
    l.triangularView<Eigen::StrictlyUpper>().setZero();
    return "";
}

/// Factorises each n x n matrix of `matrices` (A's values, `shape`) in place by Cholesky, for
/// `operation` recording `node`; refuse_matrix on one that cholesky_in_place refuses.
template <class = void>
void cholesky_each(tensor_tape& tape, tensor_tape::index_type node, std::string_view operation,
                   const tensor_shape& shape, double* matrices, std::size_t n) {
    for (std::size_t b = 0, count = n == 0 ? 0 : shape.numel() / (n * n); b < count; ++b)
        if (const std::string_view problem = cholesky_in_place(matrices + b * n * n, n);
            !problem.empty())
            refuse_matrix(tape, node, operation, shape, b, problem);
}

/// A broadcast operand's gradient sums what each of its copies contributes, as matmul's.
template <class = void>
void solve_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& a = tape.node(self.operands[0]);
    tensor_node& b = tape.node(self.operands[1]);
    const bool vectors = self.parameter < 0;
    const std::size_t n = a.shape[a.shape.rank() - 1];
    const std::size_t k = vectors ? 1 : static_cast<std::size_t>(self.parameter);
    const tensor_shape batch_a(std::span<const std::size_t>(a.shape.data(), a.shape.rank() - 2));
    const tensor_shape batch_b(
        std::span<const std::size_t>(b.shape.data(), b.shape.rank() - (vectors ? 1 : 2)));
    tensor_shape batch;
    broadcast_shape(batch_a, batch_b, batch);
    const auto rows = static_cast<Eigen::Index>(n), cols = static_cast<Eigen::Index>(k);
    row_major_matrix z(rows, cols);
    double* da = a.requires_grad ? tape.gradient_of(a) : nullptr;
    double* db = b.requires_grad ? tape.gradient_of(b) : nullptr;
    // dB = A^-T G and dA = -dB X^T, from the factors the forward pass kept.
    for_each_broadcast(batch, batch_a, batch_b, [&](std::size_t i, std::size_t ia, std::size_t ib) {
        z = const_matrix_map(self.grad.data() + i * n * k, rows, cols);
        lu_solve_in_place(self.saved.data() + ia * n * n, self.saved_indices.data() + ia * n, n,
                          z.data(), k, true);
        if (db != nullptr) matrix_map(db + ib * n * k, rows, cols) += z;
        if (da != nullptr)
            matrix_map(da + ia * n * n, rows, rows).noalias() -=
                z * const_matrix_map(self.value.data() + i * n * k, rows, cols).transpose();
    });
}

template <class = void>
void inverse_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& a = tape.node(self.operands[0]);
    const std::size_t n = a.shape[a.shape.rank() - 1];
    const auto size = static_cast<Eigen::Index>(n);
    double* da = tape.gradient_of(a);
    row_major_matrix product(size, size);
    // dA = -Y^T G Y^T, Y = A^-1.
    for (std::size_t b = 0, count = n == 0 ? 0 : self.value.size() / (n * n); b < count; ++b) {
        const const_matrix_map y(self.value.data() + b * n * n, size, size);
        product.noalias() =
            y.transpose() * const_matrix_map(self.grad.data() + b * n * n, size, size);
        matrix_map(da + b * n * n, size, size).noalias() -= product * y.transpose();
    }
}

template <class = void>
void cholesky_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& a = tape.node(self.operands[0]);
    const std::size_t n = a.shape[a.shape.rank() - 1];
    const auto size = static_cast<Eigen::Index>(n);
    double* da = tape.gradient_of(a);
    row_major_matrix m(size, size);
    // dA = L^-T Phi L^-1, with Phi the symmetric matrix whose lower triangle is that of L^T G,
    // halved: the gradient is symmetric, shared by A's two triangles (as PyTorch's).
    for (std::size_t b = 0, count = n == 0 ? 0 : self.value.size() / (n * n); b < count; ++b) {
        const const_matrix_map l(self.value.data() + b * n * n, size, size);
        m.noalias() = l.transpose() * const_matrix_map(self.grad.data() + b * n * n, size, size);
        for (Eigen::Index i = 0; i < size; ++i) {
            m(i, i) *= 0.5;
            for (Eigen::Index j = 0; j < i; ++j)
                m(j, i) = m(i, j) *= 0.5;
        }
        l.triangularView<Eigen::Lower>().transpose().solveInPlace(m);
        l.triangularView<Eigen::Lower>().solveInPlace<Eigen::OnTheRight>(m);
        matrix_map(da + b * n * n, size, size) += m;
    }
}

/// Overwrites `inverse` with A^-1 = L^-T L^-1, L the lower Cholesky factor of A: in 2n^3/3
/// floating-point operations, where two triangular solves against the identity take 2n^3. A
/// block of columns starting at j needs only the trailing factor L[j:, j:] (L^-1 is lower
/// triangular and L^-T upper), and only rows j and below (the rest follows by symmetry).
template <class = void>
void inverse_from_cholesky(const const_matrix_map& l, row_major_matrix& inverse) {
    const Eigen::Index n = l.rows(), block = 64;
    inverse.setZero(n, n);
    for (Eigen::Index j = 0; j < n; j += block) {
        const Eigen::Index width = std::min(block, n - j), rows = n - j;
        auto columns = inverse.block(j, j, rows, width);
        columns.topRows(width).setIdentity();
        const auto trailing = l.bottomRightCorner(rows, rows).triangularView<Eigen::Lower>();
        trailing.solveInPlace(columns);             // rows j.. of L^-1
        trailing.transpose().solveInPlace(columns); // rows j.. of L^-T L^-1
    }
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index k = i + 1; k < n; ++k)
            inverse(i, k) = inverse(k, i);
}

template <class = void>
void logdet_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& a = tape.node(self.operands[0]);
    const std::size_t n = a.shape[a.shape.rank() - 1];
    const auto size = static_cast<Eigen::Index>(n);
    double* da = tape.gradient_of(a);
    row_major_matrix inverse(size, size);
    // dA = g A^-1, from the Cholesky factor the forward pass kept.
    for (std::size_t b = 0; b < self.value.size(); ++b) {
        inverse_from_cholesky(const_matrix_map(self.saved.data() + b * n * n, size, size), inverse);
        matrix_map(da + b * n * n, size, size) += self.grad[b] * inverse;
    }
}

#endif // ZG_TENSOR_EIGEN

/// Whether Eigen is there, as a template so that only a call without it fails.
template <class...>
inline constexpr bool linalg_has_eigen = ZG_TENSOR_EIGEN != 0;

/// The operations need Eigen's factorisations; without Eigen a call names what is missing.
template <class... Tensors>
void require_eigen_for_linalg() {
    static_assert(linalg_has_eigen<Tensors...>,
                  "zg::solve, zg::inverse, zg::cholesky and zg::logdet need Eigen: install it "
                  "(Debian: libeigen3-dev) and do not define ZG_NO_EIGEN");
}

} // namespace detail

#if ZG_TENSOR_EIGEN

/// X with A X = B: A square [..., n, n], B a batch of matrices [..., n, k] or of vectors
/// ([n], or [..., n] with A's batch axes); batch axes broadcast as matmul's. Factorised by LU
/// with partial pivoting, kept for the backward: dB = A^-T G, dA = -dB X^T. shape_error if the
/// shapes do not fit; domain_error naming the matrix if A is singular
/// or has a NaN or infinite entry.
///
///     auto x = solve(zg::tensor::from({2, 0, 0, 4}, {2, 2}), zg::tensor::from({2, 4}, {2}));
///     // x: [1, 1]
template <class = void>
tensor solve(const tensor& a, const tensor& b) {
    detail::tensor_tape& tape = detail::common_tape("solve", a, b);
    const detail::tensor_node& an = detail::tensor_access::node(a);
    const detail::tensor_node& bn = detail::tensor_access::node(b);
    const detail::square_batch sa = detail::square_matrices("solve", an.shape);
    const std::size_t n = sa.n, rank_b = bn.shape.rank();
    // B is vectors when it is one, or when it has A's shape without the last axis (PyTorch's rule).
    const bool vectors = rank_b == 1 || (rank_b + 1 == an.shape.rank() &&
                                         bn.shape == detail::with_axis(sa.batch, n));
    const std::size_t k = vectors ? 1 : (rank_b >= 2 ? bn.shape[rank_b - 1] : 0);
    const std::size_t matrix_axes = vectors ? 1 : 2;
    tensor_shape batch_b, batch;
    bool fits = rank_b >= matrix_axes && bn.shape[rank_b - matrix_axes] == n;
    if (fits) {
        batch_b = tensor_shape(std::span<const std::size_t>(bn.shape.data(), rank_b - matrix_axes));
        fits = detail::broadcast_shape(sa.batch, batch_b, batch);
    }
    if (!fits)
        throw shape_error("zg::solve: shapes " + an.shape.to_string() + " and " +
                          bn.shape.to_string() +
                          " do not match (A is [..., n, n], B is [..., n, k] or [..., n])");
    tensor_shape out_shape = detail::with_axis(batch, n);
    if (!vectors) out_shape.push_back(k);
    const auto i = tape.push(out_shape, an.requires_grad || bn.requires_grad,
                             &detail::solve_backward<>, "solve");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(a);
    out.operands[1] = detail::tensor_access::index(b);
    out.parameter = vectors ? -1 : static_cast<std::int64_t>(k); // B's kind, for the backward
    const std::size_t factorisations = sa.batch.numel();
    out.saved.assign(an.value.begin(), an.value.end());
    out.saved_indices.resize(factorisations * n);
    for (std::size_t f = 0; f < factorisations; ++f)
        if (const std::string_view problem = detail::lu_in_place(
                out.saved.data() + f * n * n, out.saved_indices.data() + f * n, n);
            !problem.empty())
            detail::refuse_matrix(tape, i, "solve", an.shape, f, problem);
    detail::for_each_broadcast(
        batch, sa.batch, batch_b, [&](std::size_t j, std::size_t ja, std::size_t jb) {
            double* x = out.value.data() + j * n * k;
            std::copy_n(bn.value.data() + jb * n * k, n * k, x);
            detail::lu_solve_in_place(out.saved.data() + ja * n * n,
                                      out.saved_indices.data() + ja * n, n, x, k, false);
        });
    return detail::tensor_access::make(tape, i);
}

/// A^-1 of a square matrix (or of each of a batch), by LU with partial pivoting;
/// dA = -Y^T G Y^T. domain_error naming the matrix if it is singular or not finite.
template <class = void>
tensor inverse(const tensor& a) {
    detail::tensor_tape& tape = detail::tensor_access::tape(a, "inverse");
    const detail::tensor_node& an = detail::tensor_access::node(a);
    const detail::square_batch sa = detail::square_matrices("inverse", an.shape);
    const std::size_t n = sa.n;
    const auto i = tape.push(an.shape, an.requires_grad, &detail::inverse_backward<>, "inverse");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(a);
    const auto size = static_cast<Eigen::Index>(n);
    detail::row_major_matrix factors(size, size);
    std::vector<int> pivots(n);
    for (std::size_t b = 0, count = sa.batch.numel(); b < count; ++b) {
        factors = detail::const_matrix_map(an.value.data() + b * n * n, size, size);
        if (const std::string_view problem = detail::lu_in_place(factors.data(), pivots.data(), n);
            !problem.empty())
            detail::refuse_matrix(tape, i, "inverse", an.shape, b, problem);
        double* y = out.value.data() + b * n * n;
        detail::matrix_map(y, size, size).setIdentity();
        detail::lu_solve_in_place(factors.data(), pivots.data(), n, y, n, false);
    }
    return detail::tensor_access::make(tape, i);
}

/// The lower Cholesky factor L of a symmetric positive definite matrix (A = L L^T; A's lower
/// triangle is read, as LAPACK's and PyTorch's), or of each of a batch; zeros above the diagonal.
/// Its gradient is symmetric. domain_error naming the matrix if it is not positive definite or not
/// finite.
template <class = void>
tensor cholesky(const tensor& a) {
    detail::tensor_tape& tape = detail::tensor_access::tape(a, "cholesky");
    const detail::tensor_node& an = detail::tensor_access::node(a);
    const detail::square_batch sa = detail::square_matrices("cholesky", an.shape);
    const auto i = tape.push(an.shape, an.requires_grad, &detail::cholesky_backward<>, "cholesky");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(a);
    std::copy(an.value.begin(), an.value.end(), out.value.begin());
    detail::cholesky_each(tape, i, "cholesky", an.shape, out.value.data(), sa.n);
    return detail::tensor_access::make(tape, i);
}

/// log det A of a symmetric positive definite matrix (shape []), or of each of a batch (shape
/// [...]): 2 sum log L_ii through its Cholesky factor L, kept for the backward dA = g A^-1.
/// domain_error naming the matrix if it is not positive definite or not finite.
template <class = void>
tensor logdet(const tensor& a) {
    detail::tensor_tape& tape = detail::tensor_access::tape(a, "logdet");
    const detail::tensor_node& an = detail::tensor_access::node(a);
    const detail::square_batch sa = detail::square_matrices("logdet", an.shape);
    const std::size_t n = sa.n;
    const auto i = tape.push(sa.batch, an.requires_grad, &detail::logdet_backward<>, "logdet");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(a);
    out.saved.assign(an.value.begin(), an.value.end());
    detail::cholesky_each(tape, i, "logdet", an.shape, out.saved.data(), n);
    for (std::size_t b = 0; b < out.value.size(); ++b) {
        const double* l = out.saved.data() + b * n * n;
        double total = 0.0;
        for (std::size_t d = 0; d < n; ++d)
            total += std::log(l[d * n + d]);
        out.value[b] = 2.0 * total;
    }
    return detail::tensor_access::make(tape, i);
}

#else

template <class... Tensors>
tensor solve(const Tensors&...) {
    detail::require_eigen_for_linalg<Tensors...>();
    return {};
}
template <class... Tensors>
tensor inverse(const Tensors&...) {
    detail::require_eigen_for_linalg<Tensors...>();
    return {};
}
template <class... Tensors>
tensor cholesky(const Tensors&...) {
    detail::require_eigen_for_linalg<Tensors...>();
    return {};
}
template <class... Tensors>
tensor logdet(const Tensors&...) {
    detail::require_eigen_for_linalg<Tensors...>();
    return {};
}

#endif // ZG_TENSOR_EIGEN

} // namespace zg
