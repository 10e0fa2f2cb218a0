// zerograd/tensor.hpp: tensors recorded on a per-thread tape: broadcasting elementwise operations,
// matmul, linear algebra, reductions, log_softmax and cross_entropy, swept in reverse for gradients.
#pragma once

#include "zerograd/core/function.hpp" // zg::function: operations of the user's own rules
#include "zerograd/tensor/elementwise.hpp"
#include "zerograd/tensor/linalg.hpp"
#include "zerograd/tensor/matmul.hpp"
#include "zerograd/tensor/reductions.hpp"
#include "zerograd/tensor/shape.hpp"
#include "zerograd/tensor/tape.hpp"
#include "zerograd/tensor/tensor.hpp"
