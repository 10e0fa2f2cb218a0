// fwd/ includes only core/: this file includes every header of fwd/ and fails to
// compile if another mode's header came along (test/architecture.py checks the same from the
// #include lines).
#include <zerograd/fwd/dual.hpp>
#include <zerograd/fwd/grad.hpp>
#include <zerograd/fwd/jacobian.hpp>
#include <zerograd/fwd/reductions.hpp>

#ifdef ZG_EXPR_TREE_NODE_HPP
#error "a fwd/ header included expression mode"
#endif
#ifdef ZG_TAPE_TAPE_HPP
#error "a fwd/ header included tape mode"
#endif
#ifdef ZG_TENSOR_TAPE_HPP
#error "a fwd/ header included the tensors"
#endif
