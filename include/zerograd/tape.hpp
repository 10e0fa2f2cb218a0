// zerograd/tape.hpp: tape mode, a runtime graph for programs with data-dependent control flow.
#pragma once

#include "zerograd/core/reductions.hpp"
#include "zerograd/tape/dot.hpp"
#include "zerograd/tape/grad.hpp"
#include "zerograd/tape/reductions.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"
