// zerograd/expr.hpp: expression mode, compile-time expression templates with adjoints generated
// by template recursion. Its layers, each a folder over the one before: tree/ (the nodes, their
// evaluation and sweep), memory/ (what a call keeps beside its trees), ops/ (the operations),
// reduce/ (sums, log-sum-exp, recurrences), entry/ (zg::grad, zg::jacobian, printing).
#pragma once

#include "zerograd/core/function.hpp" // zg::function: operations of the user's own rules
#include "zerograd/drivers/expr_hessian.hpp" // zg::hessian: expression mode over dual numbers
#include "zerograd/expr/tree/describe.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/evaluate.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/node.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"
#include "zerograd/expr/memory/accumulate.hpp"
#include "zerograd/expr/memory/arena.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/kept.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/operands.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/ops/vector.hpp"
#include "zerograd/expr/reduce/elements.hpp"
#include "zerograd/expr/reduce/hoist.hpp"
#include "zerograd/expr/reduce/lanes.hpp"
#include "zerograd/expr/reduce/log_sum_exp.hpp"
#include "zerograd/expr/reduce/map_reduce.hpp"
#include "zerograd/expr/reduce/mapped.hpp"
#include "zerograd/expr/reduce/recurrence.hpp"
#include "zerograd/expr/reduce/reductions.hpp"
#include "zerograd/expr/reduce/scan.hpp"
#include "zerograd/expr/reduce/scan_build.hpp"
#include "zerograd/expr/reduce/scan_states.hpp"
#include "zerograd/expr/reduce/vector_records.hpp"
#include "zerograd/expr/entry/grad.hpp"
#include "zerograd/expr/entry/jacobian.hpp"
#include "zerograd/expr/entry/mixed_sweep.hpp"
#include "zerograd/expr/entry/print.hpp"
#include "zerograd/expr/entry/scalar_sweep.hpp"
