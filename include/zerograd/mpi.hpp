// zerograd/mpi.hpp: gradients of sums over data spread across the processes of an MPI program,
// the same bits for any number of processes. Not included by zerograd.hpp: it needs an MPI
// implementation (Debian: libopenmpi-dev; Meson: dependency('mpi', language: 'cpp')).
#pragma once

#include "zerograd/mpi/broadcast.hpp"
#include "zerograd/mpi/error.hpp"
#include "zerograd/mpi/value_and_grad_sum.hpp"
