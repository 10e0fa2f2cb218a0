// zerograd/tape.hpp: tape mode, a runtime graph for programs with data-dependent control flow.
#pragma once

#include "zerograd/core/reductions.hpp"
#include "zerograd/fwd/jacobian.hpp" // zg::jacobian, which docs/api.md lists with tape mode
#include "zerograd/tape/dot.hpp"
#include "zerograd/tape/grad.hpp"
#include "zerograd/tape/hessian.hpp"
#include "zerograd/tape/jacobian.hpp"
#include "zerograd/tape/reductions.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"
