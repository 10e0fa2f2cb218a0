// tensor/ includes only core/ and the scalar tape (whose scope reclaims tensors too): this file
// includes every header of tensor/ and fails to compile if another mode's header came along
// (test/architecture.py checks the same from the #include lines).
#include <zerograd/tensor/elementwise.hpp>
#include <zerograd/tensor/gemm.hpp>
#include <zerograd/tensor/matmul.hpp>
#include <zerograd/tensor/reductions.hpp>
#include <zerograd/tensor/shape.hpp>
#include <zerograd/tensor/tape.hpp>
#include <zerograd/tensor/tensor.hpp>

#ifdef ZG_EXPR_TREE_NODE_HPP
#error "a tensor/ header included expression mode"
#endif
#ifdef ZG_FWD_DUAL_HPP
#error "a tensor/ header included forward mode"
#endif
