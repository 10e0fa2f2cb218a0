// zerograd/mpi/value_and_grad_sum.hpp: the value and gradient of a sum over shards of data spread
// across the processes (ranks) of an MPI program. Each rank differentiates its own shards, then
// one reduction of their exact sums gives every rank the same result: the same bits for any
// number of ranks and any assignment of shards to ranks.
#pragma once

#include "zerograd/core/arguments.hpp" // value_and_grad_result, jacobian_vector, vector_span
#include "zerograd/core/error.hpp"
#include "zerograd/parallel/exact_sum.hpp"
#include "zerograd/parallel/value_and_grad_sum.hpp"
#include "zerograd/tape/var.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::mpi {

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

namespace detail {

inline std::string message_of(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "an exception not derived from std::exception";
    }
}

// Sends the lowest failing rank's message to every rank; there, throws: the failing ranks their
// own exception, the others a remote_error.
[[noreturn]] inline void fail_together(MPI_Comm comm, int rank, int failed_rank,
                                       const std::exception_ptr& error) {
    std::string message = rank == failed_rank ? message_of(error) : std::string();
    int length = static_cast<int>(std::min<std::size_t>(message.size(), INT_MAX));
    MPI_Bcast(&length, 1, MPI_INT, failed_rank, comm);
    message.resize(static_cast<std::size_t>(length));
    MPI_Bcast(message.data(), length, MPI_CHAR, failed_rank, comm);
    if (error) std::rethrow_exception(error);
    throw remote_error(failed_rank, message);
}

// 63 bits of FNV-1a over the parameters' bits: equal on ranks with equal parameters.
inline std::int64_t hash_of(std::span<const double> params) {
    std::uint64_t hash = 14695981039346656037u;
    for (double x : params) {
        hash ^= std::bit_cast<std::uint64_t>(x);
        hash *= 1099511628211u;
    }
    return static_cast<std::int64_t>(hash >> 1);
}

// Adds the ranks' integers, each rank getting the sums: an MPI_Allreduce in pieces of up to
// INT_MAX (MPI counts are ints). Through a buffer kept between calls: MPI reduces memory it has
// seen before many times faster than fresh pages (Open MPI, 4.8 MB between two processes on one
// machine: 3 ms against 46). It keeps the largest reduction's size until the thread ends.
inline void add_across(MPI_Comm comm, std::span<std::int64_t> numbers) {
    thread_local std::vector<std::int64_t> buffer;
    buffer.assign(numbers.begin(), numbers.end());
    constexpr std::size_t piece = INT_MAX;
    for (std::size_t offset = 0; offset < buffer.size(); offset += piece)
        MPI_Allreduce(MPI_IN_PLACE, buffer.data() + offset,
                      static_cast<int>(std::min(piece, buffer.size() - offset)), MPI_INT64_T,
                      MPI_SUM, comm);
    std::copy(buffer.begin(), buffer.end(), numbers.begin());
}

} // namespace detail

/// The value and gradient by `params` of the sum, over every rank of `comm`, of f(params, shard)
/// for each of the rank's `local_shards` (any type; any number, none included). Collective: every
/// rank of `comm` calls it with the same parameters and gets the same result,
/// {value, std::tuple{gradient}}, as zg::parallel::value_and_grad_sum's: each shard's value and
/// gradient are added exactly and rounded once, so the bits do not depend on how many ranks there
/// are or which holds which shard. `threads` workers inside each rank (0: one per hardware
/// thread); they make no MPI calls, but MPI must have been started with MPI_Init_thread at
/// MPI_THREAD_FUNNELED or above for more than one.
///
/// One reduction of the exact sums over the range of magnitudes they span (48 to 64 bytes per
/// gradient component for terms within a factor of 2^60 of each other), after one small agreement
/// that also carries errors: when f throws on any rank, every rank throws (see remote_error) and
/// no rank is left waiting. Ranks whose parameters differ in size or in value all throw too.
template <class F, class Shard>
value_and_grad_result<std::tuple<std::vector<double>>>
value_and_grad_sum(MPI_Comm comm, F&& f, std::span<const double> params,
                   const std::vector<Shard>& local_shards, unsigned threads = 1) {
    static_assert(std::is_invocable_v<F&, std::span<const var>, const Shard&>,
                  "zg::mpi::value_and_grad_sum: f is called as f(std::span<const zg::var> "
                  "params, const Shard& shard) for each local shard; give it those parameters "
                  "(or write it as a generic lambda: [](auto params, const auto& shard) {...})");
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::exception_ptr error;
    parallel::detail::partial_sums local;
    try {
        if (threads != 1) {
            int provided = MPI_THREAD_SINGLE;
            MPI_Query_thread(&provided);
            if (provided < MPI_THREAD_FUNNELED)
                throw zg::error("zg::mpi::value_and_grad_sum: " + std::to_string(threads) +
                                " threads asked for, but MPI was started without thread "
                                "support; start it with MPI_Init_thread(..., "
                                "MPI_THREAD_FUNNELED, ...) or pass threads = 1");
        }
        local = parallel::detail::sum_shards(f, params, local_shards, threads);
        error = local.error;
    } catch (...) {
        error = std::current_exception();
    }
    parallel::exact_sums& sums = local.sums;
    sums.normalize();

    // One agreement (a minimum of each entry): the lowest failing rank, the union of the ranks'
    // windows of limbs, the parameters' count and a hash of their bits (the minimum and maximum
    // of each: they must agree), and whether any NaN or infinity was added.
    constexpr auto none = std::numeric_limits<std::int64_t>::max();
    const auto count = static_cast<std::int64_t>(params.size());
    const std::int64_t hash = detail::hash_of(params);
    const auto [first, last] = sums.window();
    bool specials = false;
    for (std::int64_t count_of_kind : sums.special_counts())
        specials = specials || count_of_kind != 0;
    std::array<std::int64_t, 8> agreed = {error ? rank : none,
                                          static_cast<std::int64_t>(first),
                                          -static_cast<std::int64_t>(last),
                                          count,
                                          -count,
                                          specials ? -1 : 0,
                                          hash,
                                          -hash};
    MPI_Allreduce(MPI_IN_PLACE, agreed.data(), static_cast<int>(agreed.size()), MPI_INT64_T,
                  MPI_MIN, comm);
    if (agreed[0] != none) detail::fail_together(comm, rank, static_cast<int>(agreed[0]), error);
    if (agreed[3] != -agreed[4])
        throw shape_error("zg::mpi::value_and_grad_sum: the ranks' parameters differ in size, "
                          "from " + std::to_string(agreed[3]) + " to " +
                          std::to_string(-agreed[4]) + " (this rank's: " +
                          std::to_string(count) + "); every rank passes the same parameters");
    if (agreed[6] != -agreed[7])
        throw zg::error("zg::mpi::value_and_grad_sum: the ranks' parameters differ in value; "
                        "every rank passes the same parameters (zg::mpi::broadcast gives every "
                        "rank one rank's)");

    // One sum of every rank's limbs, each over the union of the windows, then of the special
    // counts if any rank has some.
    sums.cover(static_cast<std::size_t>(agreed[1]), static_cast<std::size_t>(-agreed[2]));
    detail::add_across(comm, sums.limbs());
    if (agreed[5] != 0) detail::add_across(comm, sums.make_special_counts());
    sums.normalize();
    return parallel::detail::rounded(sums);
}

/// The same for parameters in a std::vector<double> (or a braced list) or an Eigen vector.
template <class F, class Shard, zg::detail::jacobian_vector X = std::vector<double>>
value_and_grad_result<std::tuple<std::vector<double>>>
value_and_grad_sum(MPI_Comm comm, F&& f, const X& params, const std::vector<Shard>& local_shards,
                   unsigned threads = 1) {
    return mpi::value_and_grad_sum(comm, std::forward<F>(f), zg::detail::vector_span(params),
                                   local_shards, threads);
}

} // namespace zg::mpi
