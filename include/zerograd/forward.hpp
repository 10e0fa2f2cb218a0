// zerograd/forward.hpp: forward mode (dual numbers, derivatives, gradients), Jacobians in either
// direction, and Hessians on the tape by forward-over-reverse.
#pragma once

#include "zerograd/core/function.hpp" // zg::function: operations of the user's own rules
#include "zerograd/drivers/jacobian.hpp"
#include "zerograd/drivers/tape_hessian.hpp"
#include "zerograd/fwd/dual.hpp"
#include "zerograd/fwd/grad.hpp"
#include "zerograd/fwd/jacobian.hpp"
#include "zerograd/fwd/reductions.hpp"
