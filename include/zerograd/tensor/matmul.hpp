// zerograd/tensor/matmul.hpp: matrix products with NumPy's matmul shapes (vectors, matrices,
// broadcast batches of matrices), transpose and reshape, each with its backward.
#pragma once

#include "zerograd/tensor/gemm.hpp"
#include "zerograd/tensor/tensor.hpp"

#include <algorithm> // copy
#include <array>
#include <string>

namespace zg {

namespace detail {

/// How matmul sees its operands: a batch of m x k matrices times a batch of k x n ones.
struct matmul_geometry {
    std::size_t m = 1, k = 0, n = 1;
    tensor_shape batch_a, batch_b, batch, out;
    bool fits = false;
};

/// NumPy's rules: a 1-D left operand is a row [1, k] and a 1-D right one a column [k, 1], the
/// added axis dropped from the result; axes before the last two are batch axes and broadcast.
inline matmul_geometry matmul_shapes(const tensor_shape& a, const tensor_shape& b) {
    matmul_geometry g;
    if (a.rank() == 0 || b.rank() == 0) return g;
    std::size_t kb = 0;
    if (a.rank() == 1) {
        g.k = a[0];
    } else {
        g.m = a[a.rank() - 2];
        g.k = a[a.rank() - 1];
        g.batch_a = tensor_shape(std::span<const std::size_t>(a.data(), a.rank() - 2));
    }
    if (b.rank() == 1) {
        kb = b[0];
    } else {
        kb = b[b.rank() - 2];
        g.n = b[b.rank() - 1];
        g.batch_b = tensor_shape(std::span<const std::size_t>(b.data(), b.rank() - 2));
    }
    if (g.k != kb || !broadcast_shape(g.batch_a, g.batch_b, g.batch)) return g;
    g.out = g.batch;
    if (a.rank() > 1) g.out.push_back(g.m);
    if (b.rank() > 1) g.out.push_back(g.n);
    g.fits = true;
    return g;
}

template <class = void>
void matmul_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& a = tape.node(self.operands[0]);
    tensor_node& b = tape.node(self.operands[1]);
    const matmul_geometry geo = matmul_shapes(a.shape, b.shape);
    const std::size_t m = geo.m, k = geo.k, n = geo.n;
    const double* av = a.value.data();
    const double* bv = b.value.data();
    const double* g = self.grad.data();
    // dA = G B^T and dB = A^T G per batch; a broadcast batch accumulates over its copies.
    if (a.requires_grad) {
        double* da = tape.gradient_of(a);
        for_each_broadcast(geo.batch, geo.batch_a, geo.batch_b,
                           [&](std::size_t i, std::size_t ia, std::size_t ib) {
                               gemm_add_nt(m, k, n, g + i * m * n, bv + ib * k * n,
                                           da + ia * m * k);
                           });
    }
    if (b.requires_grad) {
        double* db = tape.gradient_of(b);
        for_each_broadcast(geo.batch, geo.batch_a, geo.batch_b,
                           [&](std::size_t i, std::size_t ia, std::size_t ib) {
                               gemm_add_tn(m, k, n, av + ia * m * k, g + i * m * n,
                                           db + ib * k * n);
                           });
    }
}

/// Calls f(i, offset) for every element i of `out` with the offset `strides` give it.
template <class F>
void for_each_strided(const tensor_shape& out, const tensor_strides& strides, F&& f) {
    const std::size_t total = out.numel();
    if (total == 0) return;
    if (out.rank() == 0) {
        f(std::size_t(0), std::size_t(0));
        return;
    }
    const std::size_t rank = out.rank(), inner = out[rank - 1], step = strides[rank - 1];
    std::array<std::size_t, tensor_shape::max_rank> counter{};
    std::size_t offset = 0;
    for (std::size_t i = 0; i < total; i += inner) {
        for (std::size_t j = 0; j < inner; ++j)
            f(i + j, offset + j * step);
        for (std::size_t axis = rank - 1; axis-- > 0;) {
            offset += strides[axis];
            if (++counter[axis] < out[axis]) break;
            offset -= strides[axis] * out[axis];
            counter[axis] = 0;
        }
    }
}

/// The strides, in x's buffer, of the axes of transpose(x) (x's axes reversed).
inline tensor_strides reversed_strides(const tensor_shape& x) {
    tensor_strides strides{};
    std::size_t stride = 1;
    for (std::size_t i = x.rank(); i-- > 0;) {
        strides[x.rank() - 1 - i] = stride;
        stride *= x[i];
    }
    return strides;
}

inline void transpose_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& x = tape.node(self.operands[0]);
    double* gx = tape.gradient_of(x);
    const double* g = self.grad.data();
    for_each_strided(self.shape, reversed_strides(x.shape),
                     [&](std::size_t i, std::size_t offset) { gx[offset] += g[i]; });
}

inline void reshape_backward(tensor_tape& tape, tensor_node& self) {
    tensor_node& x = tape.node(self.operands[0]);
    double* gx = tape.gradient_of(x);
    const double* g = self.grad.data();
    for (std::size_t i = 0, n = self.value.size(); i < n; ++i)
        gx[i] += g[i];
}

} // namespace detail

/// The matrix product with NumPy's matmul shapes: [m, k] x [k, n] -> [m, n]; a vector on the left
/// is a row ([k] x [k, n] -> [n]) and on the right a column ([m, k] x [k] -> [m]); axes before
/// the last two are batches that broadcast ([b, m, k] x [k, n] -> [b, m, n]). Gradients
/// dA = G B^T and dB = A^T G. shape_error names both shapes when they do not fit.
///
///     auto c = matmul(zg::tensor::ones({2, 3}), zg::tensor::ones({3, 4}));   // [2, 4] of 3s
template <class = void>
tensor matmul(const tensor& a, const tensor& b) {
    detail::tensor_tape& tape = detail::common_tape("matmul", a, b);
    const detail::tensor_node& an = detail::tensor_access::node(a);
    const detail::tensor_node& bn = detail::tensor_access::node(b);
    const detail::matmul_geometry geo = detail::matmul_shapes(an.shape, bn.shape);
    if (!geo.fits)
        throw shape_error("zg::matmul: shapes " + an.shape.to_string() + " and " +
                          bn.shape.to_string() + " do not match");
    const auto i = tape.push(geo.out, an.requires_grad || bn.requires_grad,
                             &detail::matmul_backward<>, "matmul");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(a);
    out.operands[1] = detail::tensor_access::index(b);
    const std::size_t m = geo.m, k = geo.k, n = geo.n;
    const double* av = an.value.data();
    const double* bv = bn.value.data();
    double* c = out.value.data();
    detail::for_each_broadcast(
        geo.batch, geo.batch_a, geo.batch_b, [&](std::size_t j, std::size_t ja, std::size_t jb) {
            detail::gemm(m, k, n, av + ja * m * k, bv + jb * k * n, c + j * m * n);
        });
    return detail::tensor_access::make(tape, i);
}

/// The axes reversed, as NumPy's transpose: a matrix's transpose for 2-D, a copy for 0-D and 1-D.
inline tensor transpose(const tensor& x) {
    detail::tensor_tape& tape = detail::tensor_access::tape(x, "transpose");
    const detail::tensor_node& xn = detail::tensor_access::node(x);
    tensor_shape shape;
    for (std::size_t d = xn.shape.rank(); d-- > 0;)
        shape.push_back(xn.shape[d]);
    const auto i = tape.push(shape, xn.requires_grad, &detail::transpose_backward, "transpose");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(x);
    const double* xv = xn.value.data();
    double* y = out.value.data();
    detail::for_each_strided(shape, detail::reversed_strides(xn.shape),
                             [&](std::size_t k, std::size_t offset) { y[k] = xv[offset]; });
    return detail::tensor_access::make(tape, i);
}

/// The same values (row-major) under another shape of as many elements; shape_error otherwise.
inline tensor reshape(const tensor& x, tensor_shape shape) {
    detail::tensor_tape& tape = detail::tensor_access::tape(x, "reshape");
    const detail::tensor_node& xn = detail::tensor_access::node(x);
    if (shape.numel() != xn.value.size())
        throw shape_error("zg::reshape: shapes " + xn.shape.to_string() + " and " +
                          shape.to_string() + " have different numbers of elements");
    const auto i = tape.push(shape, xn.requires_grad, &detail::reshape_backward, "reshape");
    detail::tensor_node& out = tape.node(i);
    out.operands[0] = detail::tensor_access::index(x);
    std::copy(xn.value.begin(), xn.value.end(), out.value.begin());
    return detail::tensor_access::make(tape, i);
}

} // namespace zg
