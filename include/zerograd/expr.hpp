// zerograd/expr.hpp: expression mode, compile-time expression templates with adjoints generated
// by template recursion.
#pragma once

#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/grad.hpp"
#include "zerograd/expr/hessian.hpp"
#include "zerograd/expr/operations.hpp"
#include "zerograd/expr/print.hpp"
#include "zerograd/expr/scan.hpp"
#include "zerograd/expr/sweep.hpp"
#include "zerograd/expr/vector.hpp"
