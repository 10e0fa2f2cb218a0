// zerograd/parallel.hpp: the gradient of a sum over shards of data on worker threads, each on its
// own tape, the shards' results added exactly, so that any number of threads gives the same bits.
#pragma once

#include "zerograd/parallel/exact_sum.hpp"
#include "zerograd/parallel/value_and_grad_sum.hpp"
