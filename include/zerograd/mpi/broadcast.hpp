// zerograd/mpi/broadcast.hpp: one rank's parameters given to every rank.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>

namespace zg::mpi {

/// Gives every rank of `comm` rank `root`'s `params` (a std::vector<double> or an Eigen vector,
/// resized where its size differs): the starting point, or parameters read or drawn on one rank.
/// Collective.
template <class Vector>
    requires requires(Vector& v, std::size_t n) {
        v.resize(n);
        { v.data() } -> std::same_as<double*>;
    }
void broadcast(MPI_Comm comm, Vector& params, int root = 0) {
    auto size = static_cast<std::uint64_t>(params.size());
    MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm);
    params.resize(static_cast<std::size_t>(size));
    constexpr std::uint64_t chunk = INT_MAX; // MPI counts are ints
    for (std::uint64_t offset = 0; offset < size; offset += chunk)
        MPI_Bcast(params.data() + offset, static_cast<int>(std::min(chunk, size - offset)),
                  MPI_DOUBLE, root, comm);
}

} // namespace zg::mpi
