// expr/ includes only core/: this file includes every header of expr/ and fails to
// compile if another mode's header came along (test/architecture.py checks the same from the
// #include lines).
#include <zerograd/expr/accumulate.hpp>
#include <zerograd/expr/arena.hpp>
#include <zerograd/expr/describe.hpp>
#include <zerograd/expr/expression.hpp>
#include <zerograd/expr/frame.hpp>
#include <zerograd/expr/grad.hpp>
#include <zerograd/expr/hoist.hpp>
#include <zerograd/expr/jacobian.hpp>
#include <zerograd/expr/lanes.hpp>
#include <zerograd/expr/log_sum_exp.hpp>
#include <zerograd/expr/map_reduce.hpp>
#include <zerograd/expr/operations.hpp>
#include <zerograd/expr/print.hpp>
#include <zerograd/expr/reductions.hpp>
#include <zerograd/expr/scan.hpp>
#include <zerograd/expr/sweep.hpp>
#include <zerograd/expr/vector.hpp>

#ifdef ZG_TAPE_TAPE_HPP
#error "a expr/ header included tape mode"
#endif
#ifdef ZG_FWD_DUAL_HPP
#error "a expr/ header included forward mode"
#endif
#ifdef ZG_TENSOR_TAPE_HPP
#error "a expr/ header included the tensors"
#endif
