// zerograd/expr.hpp: expression mode, compile-time expression templates with adjoints generated
// by template recursion.
#pragma once

#include "zerograd/drivers/expr_hessian.hpp" // zg::hessian: expression mode over dual numbers
#include "zerograd/expr/accumulate.hpp"
#include "zerograd/expr/describe.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/frame.hpp"
#include "zerograd/expr/grad.hpp"
#include "zerograd/expr/jacobian.hpp"
#include "zerograd/expr/log_sum_exp.hpp"
#include "zerograd/expr/map_reduce.hpp"
#include "zerograd/expr/operations.hpp"
#include "zerograd/expr/print.hpp"
#include "zerograd/expr/reductions.hpp"
#include "zerograd/expr/scan.hpp"
#include "zerograd/expr/sweep.hpp"
#include "zerograd/expr/vector.hpp"
