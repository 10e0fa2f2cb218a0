// expr/ includes only core/: this file includes every header of expr/ and expr/runtime/ and fails
// to compile if another mode's header came along (test/architecture.py checks the same from the
// #include lines).
#include <zerograd/expr/describe.hpp>
#include <zerograd/expr/expression.hpp>
#include <zerograd/expr/grad.hpp>
#include <zerograd/expr/jacobian.hpp>
#include <zerograd/expr/operations.hpp>
#include <zerograd/expr/print.hpp>
#include <zerograd/expr/sweep.hpp>
#include <zerograd/expr/runtime/accumulate.hpp>
#include <zerograd/expr/runtime/arena.hpp>
#include <zerograd/expr/runtime/frame.hpp>
#include <zerograd/expr/runtime/hoist.hpp>
#include <zerograd/expr/runtime/lanes.hpp>
#include <zerograd/expr/runtime/log_sum_exp.hpp>
#include <zerograd/expr/runtime/map_reduce.hpp>
#include <zerograd/expr/runtime/nodes.hpp>
#include <zerograd/expr/runtime/reductions.hpp>
#include <zerograd/expr/runtime/scan.hpp>
#include <zerograd/expr/runtime/sinks.hpp>
#include <zerograd/expr/runtime/vector.hpp>

#ifdef ZG_TAPE_TAPE_HPP
#error "a expr/ header included tape mode"
#endif
#ifdef ZG_FWD_DUAL_HPP
#error "a expr/ header included forward mode"
#endif
#ifdef ZG_TENSOR_TAPE_HPP
#error "a expr/ header included the tensors"
#endif
