// zerograd/check.hpp: finite-difference checks of any mode's gradient.
#pragma once

#include "zerograd/check/gradient.hpp"
