// zerograd/mpi/value_and_grad_sum.hpp: the value and gradient of a sum over shards of data spread
// across the processes (ranks) of an MPI program. Each rank differentiates its own shards, then
// one reduction of their exact sums gives every rank the same result: the same bits for any
// number of ranks and any assignment of shards to ranks.
#pragma once

#include "zerograd/core/arguments.hpp" // value_and_grad_result, jacobian_vector, vector_span
#include "zerograd/core/error.hpp"
#include "zerograd/mpi/error.hpp" // <mpi.h>, remote_error, mpi_error
#include "zerograd/parallel/exact_sum.hpp"
#include "zerograd/parallel/value_and_grad_sum.hpp"
#include "zerograd/tape/var.hpp"

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

namespace detail {

inline constexpr const char* sum_operation = "zg::mpi::value_and_grad_sum";

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
    throw_if_failed(MPI_Bcast(&length, 1, MPI_INT, failed_rank, comm), sum_operation, "MPI_Bcast");
    message.resize(static_cast<std::size_t>(length));
    throw_if_failed(MPI_Bcast(message.data(), length, MPI_CHAR, failed_rank, comm), sum_operation,
                    "MPI_Bcast");
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
        throw_if_failed(MPI_Allreduce(MPI_IN_PLACE, buffer.data() + offset,
                                      static_cast<int>(std::min(piece, buffer.size() - offset)),
                                      MPI_INT64_T, MPI_SUM, comm),
                        sum_operation, "MPI_Allreduce");
    std::copy(buffer.begin(), buffer.end(), numbers.begin());
}

// Workers beside the calling thread need MPI_THREAD_FUNNELED or above (they make no MPI calls),
// and under FUNNELED the calling thread, which makes the MPI calls, must be MPI's main thread
// whatever the number of workers.
inline void require_thread_support(unsigned threads) {
    const auto asked = [threads] {
        return threads == 0 ? std::string("threads = 0 (one per hardware thread)")
                            : "threads = " + std::to_string(threads);
    };
    int provided = MPI_THREAD_SINGLE;
    throw_if_failed(MPI_Query_thread(&provided), sum_operation, "MPI_Query_thread");
    if (threads != 1 && provided < MPI_THREAD_FUNNELED)
        throw zg::error(std::string(sum_operation) + ": " + asked() +
                        ", but MPI was started without thread support; start it with "
                        "MPI_Init_thread(..., MPI_THREAD_FUNNELED, ...) or pass threads = 1");
    int main_thread = 1;
    if (provided == MPI_THREAD_FUNNELED)
        throw_if_failed(MPI_Is_thread_main(&main_thread), sum_operation, "MPI_Is_thread_main");
    if (!main_thread)
        throw zg::error(std::string(sum_operation) + ": " + asked() +
                        ", called from a thread other than MPI's main thread (the one that "
                        "called MPI_Init_thread) under MPI_THREAD_FUNNELED; call it from that "
                        "thread or start MPI at MPI_THREAD_SERIALIZED or above");
}

// Throws, on every rank, the error for parameters that differ in size (`low` and `high`: the
// smallest and largest count) or else in value (the smallest and largest hash), naming the lowest
// rank holding each: one more small agreement, which every rank makes, as every rank saw the
// same extremes.
[[noreturn]] inline void fail_on_mismatch(MPI_Comm comm, int rank, bool sizes, std::int64_t mine,
                                          std::int64_t low, std::int64_t high) {
    std::array<int, 2> holders = {mine == low ? rank : INT_MAX, mine == high ? rank : INT_MAX};
    throw_if_failed(MPI_Allreduce(MPI_IN_PLACE, holders.data(), 2, MPI_INT, MPI_MIN, comm),
                    sum_operation, "MPI_Allreduce");
    const bool low_first = holders[0] < holders[1];
    const std::string first = "rank " + std::to_string(low_first ? holders[0] : holders[1]);
    const std::string second = "rank " + std::to_string(low_first ? holders[1] : holders[0]);
    if (sizes)
        throw shape_error(std::string(sum_operation) + ": the ranks' parameters differ in size: " +
                          std::to_string(low_first ? low : high) + " on " + first + ", " +
                          std::to_string(low_first ? high : low) + " on " + second +
                          "; every rank passes the same parameters");
    throw zg::error(std::string(sum_operation) +
                    ": the ranks' parameters differ in value: " + first + "'s and " + second +
                    "'s are not the same bits; every rank passes the same parameters "
                    "(zg::mpi::broadcast gives every rank one rank's)");
}

} // namespace detail

/// The value and gradient by `params` of the sum, over every rank of `comm`, of f(params, shard)
/// for each of the rank's `local_shards` (any type; any number, none included). Collective: every
/// rank of `comm` calls it with the same parameters and gets the same result,
/// {value, std::tuple{gradient}}, as zg::parallel::value_and_grad_sum's: each shard's value and
/// gradient are added exactly and rounded once, so the bits do not depend on how many ranks there
/// are or which holds which shard. `threads` workers inside each rank (0: one per hardware
/// thread); they make no MPI calls, but any value other than 1 needs MPI started with
/// MPI_Init_thread at MPI_THREAD_FUNNELED or above; under FUNNELED, every call must come from
/// MPI's main thread. A rank where this does not hold throws zg::error without running f (the
/// others, remote_error).
///
/// One reduction of the exact sums over the range of magnitudes they span (48 to 64 bytes per
/// gradient component for terms within a factor of 2^60 of each other), after one small agreement
/// that also carries errors: when f throws on any rank, every rank throws (see remote_error) and
/// no rank is left waiting. Ranks whose parameters differ in size or in value (their bits: -0.0
/// differs from 0.0) all throw too, after f ran on each rank's own; an error of f comes first.
/// An intercommunicator throws zg::error on every rank; an error MPI returns, zg::mpi::mpi_error
/// on the ranks where it returns it.
template <class F, class Shard>
value_and_grad_result<std::tuple<std::vector<double>>>
value_and_grad_sum(MPI_Comm comm, F&& f, std::span<const double> params,
                   const std::vector<Shard>& local_shards, unsigned threads = 1) {
    static_assert(std::is_invocable_v<F&, std::span<const var>, const Shard&>,
                  "zg::mpi::value_and_grad_sum: f is called as f(std::span<const zg::var> "
                  "params, const Shard& shard) for each local shard; give it those parameters "
                  "(or write it as a generic lambda: [](auto params, const auto& shard) {...})");
    detail::require_intracommunicator(comm, detail::sum_operation);
    int rank = 0;
    detail::throw_if_failed(MPI_Comm_rank(comm, &rank), detail::sum_operation, "MPI_Comm_rank");
    std::exception_ptr error;
    parallel::detail::partial_sums local;
    try {
        // Its error, like f's, reaches every rank through the agreement below.
        detail::require_thread_support(threads);
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
    detail::throw_if_failed(MPI_Allreduce(MPI_IN_PLACE, agreed.data(),
                                          static_cast<int>(agreed.size()), MPI_INT64_T, MPI_MIN,
                                          comm),
                            detail::sum_operation, "MPI_Allreduce");
    if (agreed[0] != none) detail::fail_together(comm, rank, static_cast<int>(agreed[0]), error);
    if (agreed[3] != -agreed[4])
        detail::fail_on_mismatch(comm, rank, true, count, agreed[3], -agreed[4]);
    if (agreed[6] != -agreed[7])
        detail::fail_on_mismatch(comm, rank, false, hash, agreed[6], -agreed[7]);

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
