// zerograd/forward.hpp: forward mode (dual numbers, derivatives, gradients), Jacobians in either
// direction, and Hessians on the tape by forward-over-reverse.
#pragma once

#include "zerograd/fwd/dual.hpp"
#include "zerograd/fwd/grad.hpp"
#include "zerograd/fwd/jacobian.hpp"
#include "zerograd/fwd/reductions.hpp"
#include "zerograd/tape/hessian.hpp"
#include "zerograd/tape/jacobian.hpp"
