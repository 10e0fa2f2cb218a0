// zerograd/nn.hpp: neural networks: micrograd's neuron, layer and mlp on zg::var, linear and mlp
// on zg::tensor, losses, optimizers (sgd, adam) and small datasets (two moons, XOR).
#pragma once

#include "zerograd/nn/adam.hpp"
#include "zerograd/nn/datasets.hpp"
#include "zerograd/nn/linear.hpp"
#include "zerograd/nn/loss.hpp"
#include "zerograd/nn/mlp.hpp"
#include "zerograd/nn/parameter.hpp"
#include "zerograd/nn/random.hpp"
#include "zerograd/nn/sgd.hpp"
