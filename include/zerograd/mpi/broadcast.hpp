// zerograd/mpi/broadcast.hpp: one rank's parameters given to every rank.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/mpi/error.hpp" // <mpi.h>, mpi_error

#include <algorithm>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace zg::mpi {

/// Gives every rank of `comm` rank `root`'s `params` (a std::vector<double> or an Eigen vector,
/// resized where its size differs): the starting point, or parameters read or drawn on one rank.
/// Collective. A vector of fixed size (Eigen::Vector2d) that the root's does not fit still takes
/// part in the collective, then throws zg::shape_error on its rank, unchanged. An
/// intercommunicator throws zg::error on every rank; an error MPI returns, zg::mpi::mpi_error (if
/// it comes after the size was received, `params` may hold part of the root's values).
template <class Vector>
    requires requires(Vector& v, std::size_t n) {
        v.resize(n);
        { v.data() } -> std::same_as<double*>;
    }
void broadcast(MPI_Comm comm, Vector& params, int root = 0) {
    constexpr const char* operation = "zg::mpi::broadcast";
    detail::require_intracommunicator(comm, operation);
    auto size = static_cast<std::uint64_t>(params.size());
    detail::throw_if_failed(MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm), operation, "MPI_Bcast");
    bool fits = true;
    if constexpr (requires { requires Vector::SizeAtCompileTime >= 0; }) // Eigen's fixed size
        fits = size == static_cast<std::uint64_t>(Vector::SizeAtCompileTime);
    else
        params.resize(static_cast<decltype(params.size())>(size)); // Eigen's sizes are signed
    std::vector<double> elsewhere(fits ? 0 : size);
    double* target = fits ? params.data() : elsewhere.data();
    constexpr std::uint64_t chunk = INT_MAX; // MPI counts are ints
    for (std::uint64_t offset = 0; offset < size; offset += chunk)
        detail::throw_if_failed(MPI_Bcast(target + offset,
                                          static_cast<int>(std::min(chunk, size - offset)),
                                          MPI_DOUBLE, root, comm),
                                operation, "MPI_Bcast");
    if (!fits)
        throw shape_error("zg::mpi::broadcast: rank " + std::to_string(root) + "'s " +
                          std::to_string(size) + " parameters do not fit this rank's vector of " +
                          std::to_string(params.size()) + "; pass a std::vector<double> or a "
                          "dynamic-size Eigen vector");
}

} // namespace zg::mpi
