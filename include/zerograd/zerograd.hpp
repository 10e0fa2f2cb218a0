// zerograd/zerograd.hpp: everything zerograd offers.
#pragma once

#include "zerograd/tape.hpp"
