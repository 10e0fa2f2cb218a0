// zerograd/tensor/gemm.hpp: the three matrix products a matmul and its backward need, on
// row-major buffers: through Eigen when it is on the include path, else plain loops.
// Eigen is included here and nowhere else (never in core/); define ZG_NO_EIGEN to use the loops.
// With EIGEN_USE_BLAS (Meson option blas, CMake component OpenBLAS) Eigen calls BLAS.
#pragma once

#include "zerograd/core/config.hpp"

#include <cstddef>

#if !defined(ZG_NO_EIGEN) && __has_include(<Eigen/Core>)
#define ZG_TENSOR_EIGEN 1
#include <Eigen/Core>
#else
#define ZG_TENSOR_EIGEN 0
#endif

namespace zg::detail {

/// Whether matmul runs on Eigen's kernels, which beat the loops below from small sizes up
/// (docs/tensors.md gives the figures).
inline constexpr bool tensor_uses_eigen = ZG_TENSOR_EIGEN != 0;

#if ZG_TENSOR_EIGEN
using row_major_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using const_matrix_map = Eigen::Map<const row_major_matrix>;
using matrix_map = Eigen::Map<row_major_matrix>;
#endif

// The functions that call Eigen's kernels here, in linalg.hpp and in their callers are templates
// (`template <class = void>`, called without arguments) so that only a program that calls them
// instantiates the kernels: as plain inline functions they made every file that includes
// <zerograd/zerograd.hpp> compile them, 5 seconds of g++'s time in each.

/// c = a b, with a m x k, b k x n, c m x n.
template <class = void>
void gemm(std::size_t m, std::size_t k, std::size_t n, const double* a, const double* b,
          double* c) {
#if ZG_TENSOR_EIGEN
    const auto rows = static_cast<Eigen::Index>(m), inner = static_cast<Eigen::Index>(k),
               cols = static_cast<Eigen::Index>(n);
    matrix_map(c, rows, cols).noalias() =
        const_matrix_map(a, rows, inner) * const_matrix_map(b, inner, cols);
#else
    for (std::size_t i = 0; i < m * n; ++i)
        c[i] = 0.0;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t p = 0; p < k; ++p) {
            const double x = a[i * k + p];
            for (std::size_t j = 0; j < n; ++j)
                c[i * n + j] += x * b[p * n + j];
        }
#endif
}

/// da += g b^T, with g m x n, b k x n, da m x k: a matmul's gradient by its left operand.
template <class = void>
void gemm_add_nt(std::size_t m, std::size_t k, std::size_t n, const double* g, const double* b,
                 double* da) {
#if ZG_TENSOR_EIGEN
    const auto rows = static_cast<Eigen::Index>(m), inner = static_cast<Eigen::Index>(k),
               cols = static_cast<Eigen::Index>(n);
    matrix_map(da, rows, inner).noalias() +=
        const_matrix_map(g, rows, cols) * const_matrix_map(b, inner, cols).transpose();
#else
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t p = 0; p < k; ++p) {
            double total = 0.0;
            for (std::size_t j = 0; j < n; ++j)
                total += g[i * n + j] * b[p * n + j];
            da[i * k + p] += total;
        }
#endif
}

/// db += a^T g, with a m x k, g m x n, db k x n: a matmul's gradient by its right operand.
template <class = void>
void gemm_add_tn(std::size_t m, std::size_t k, std::size_t n, const double* a, const double* g,
                 double* db) {
#if ZG_TENSOR_EIGEN
    const auto rows = static_cast<Eigen::Index>(m), inner = static_cast<Eigen::Index>(k),
               cols = static_cast<Eigen::Index>(n);
    matrix_map(db, inner, cols).noalias() +=
        const_matrix_map(a, rows, inner).transpose() * const_matrix_map(g, rows, cols);
#else
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t p = 0; p < k; ++p) {
            const double x = a[i * k + p];
            for (std::size_t j = 0; j < n; ++j)
                db[p * n + j] += x * g[i * n + j];
        }
#endif
}

} // namespace zg::detail
