// zerograd/expr.hpp: expression mode, compile-time expression templates with adjoints generated
// by template recursion. expr/ holds the static core (the nodes, the sweep, the operations, the
// entry points, printing); expr/runtime/ what a call keeps beside its trees (named
// intermediates, reductions, map-reduce, recurrences, scratch memory).
#pragma once

#include "zerograd/core/function.hpp" // zg::function: operations of the user's own rules
#include "zerograd/drivers/expr_hessian.hpp" // zg::hessian: expression mode over dual numbers
#include "zerograd/expr/describe.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/grad.hpp"
#include "zerograd/expr/jacobian.hpp"
#include "zerograd/expr/operations.hpp"
#include "zerograd/expr/print.hpp"
#include "zerograd/expr/sweep.hpp"
#include "zerograd/expr/runtime/accumulate.hpp"
#include "zerograd/expr/runtime/arena.hpp"
#include "zerograd/expr/runtime/frame.hpp"
#include "zerograd/expr/runtime/hoist.hpp"
#include "zerograd/expr/runtime/lanes.hpp"
#include "zerograd/expr/runtime/log_sum_exp.hpp"
#include "zerograd/expr/runtime/map_reduce.hpp"
#include "zerograd/expr/runtime/nodes.hpp"
#include "zerograd/expr/runtime/reductions.hpp"
#include "zerograd/expr/runtime/scan.hpp"
#include "zerograd/expr/runtime/sinks.hpp"
#include "zerograd/expr/runtime/vector.hpp"
