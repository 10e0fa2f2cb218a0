// zerograd/zerograd.hpp: everything zerograd offers.
#pragma once

#include "zerograd/check.hpp"
#include "zerograd/expr.hpp"
#include "zerograd/forward.hpp"
#include "zerograd/nn.hpp"
#include "zerograd/parallel.hpp"
#include "zerograd/tape.hpp"
#include "zerograd/tensor.hpp"
#include "zerograd/version.hpp"
