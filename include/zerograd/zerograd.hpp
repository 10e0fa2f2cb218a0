// zerograd/zerograd.hpp: everything zerograd offers.
#pragma once

#include "zerograd/expr.hpp"
#include "zerograd/tape.hpp"
