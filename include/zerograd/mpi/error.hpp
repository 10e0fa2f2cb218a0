// zerograd/mpi/error.hpp: the exceptions of zg::mpi, and the checks of MPI's results that throw
// them. Every zg::mpi header includes <mpi.h> through this one.
#pragma once

#include "zerograd/core/error.hpp"

// MPI's C interface alone: the C++ bindings, removed from MPI 3.0, warn under -Wextra in Open
// MPI's headers. A program that still uses them includes <mpi.h> before zerograd's MPI headers.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cstddef>
#include <string>

namespace zg::mpi {

namespace detail {

// MPI's text for an error code, as mpi_error's message gives it.
inline std::string description_of(int mpi_error_code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(mpi_error_code, text, &length) != MPI_SUCCESS)
        return "MPI error code " + std::to_string(mpi_error_code);
    return std::string(text, static_cast<std::size_t>(length));
}

} // namespace detail

/// Thrown on every rank whose own shards succeeded when another rank's failed: `rank` is the
/// lowest failing rank, what() carries its error's message. (The failing ranks throw their own
/// exceptions.)
struct remote_error : error {
    remote_error(int failed_rank, const std::string& message)
        : error("zg::mpi::value_and_grad_sum: rank " + std::to_string(failed_rank) +
                " failed: " + message),
          rank(failed_rank) {}
    int rank;
};

/// An MPI call that returned an error (the communicator's error handler is MPI_ERRORS_RETURN;
/// under MPI's default, MPI_ERRORS_ARE_FATAL, the program ends instead): what() names the
/// operation, the MPI call and MPI's description of `code`, as in "zg::mpi::broadcast: MPI_Bcast
/// failed: MPI_ERR_ROOT: invalid root". Thrown on the ranks where MPI reports the error: one in
/// the communication itself may leave the other ranks waiting or a collective ahead.
struct mpi_error : error {
    mpi_error(const std::string& operation, const std::string& call, int error_code)
        : error(operation + ": " + call + " failed: " + detail::description_of(error_code)),
          code(error_code) {}
    int code; // MPI's error code; MPI_Error_class gives its class
};

namespace detail {

// Every MPI call's result goes through here: under MPI_ERRORS_RETURN a collective that failed
// returns, and ignoring it would leave each rank with its own part of a sum.
inline void throw_if_failed(int result, const char* operation, const char* call) {
    if (result != MPI_SUCCESS) [[unlikely]]
        throw mpi_error(operation, call, result);
}

// On an intercommunicator a collective gives each group the other group's data, and reductions
// in place are not allowed: every rank of one throws here, before any collective.
inline void require_intracommunicator(MPI_Comm comm, const char* operation) {
    int inter = 0;
    throw_if_failed(MPI_Comm_test_inter(comm, &inter), operation, "MPI_Comm_test_inter");
    if (inter)
        throw error(std::string(operation) + ": comm is an intercommunicator; pass an "
                                             "intracommunicator (MPI_COMM_WORLD, or one made by "
                                             "MPI_Comm_split)");
}

} // namespace detail

} // namespace zg::mpi
