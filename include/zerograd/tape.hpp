// zerograd/tape.hpp: tape mode, a runtime graph for programs with data-dependent control flow.
#pragma once

#include "zerograd/core/function.hpp" // zg::function: operations of the user's own rules
#include "zerograd/core/reductions.hpp"
// zg::jacobian and zg::tape::hessian, which docs/api.md lists with tape mode, take forward mode
// too: they live in drivers/.
#include "zerograd/drivers/jacobian.hpp"
#include "zerograd/drivers/tape_hessian.hpp"
#include "zerograd/tape/dot.hpp"
#include "zerograd/tape/external.hpp"
#include "zerograd/tape/grad.hpp"
#include "zerograd/tape/jacobian.hpp"
#include "zerograd/tape/reductions.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"
