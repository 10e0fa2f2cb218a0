// zerograd/parallel/value_and_grad_sum.hpp: the value and gradient of a sum over shards of data
// (a likelihood's terms, a batch's examples), the shards differentiated on worker threads, each
// on its own tape, and their results added by exact_sum: the same bits for any number of threads
// and any order the shards are taken in.
#pragma once

#include "zerograd/core/arguments.hpp" // value_and_grad_result, jacobian_vector, vector_span
#include "zerograd/parallel/exact_sum.hpp"
#include "zerograd/tape/grad.hpp"
#include "zerograd/tape/var.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <limits>
#include <span>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::parallel {

namespace detail {

/// What one worker adds up: the exact sums of the value (sum 0) and of every gradient component
/// (sums 1 to P), and the first error it met.
struct partial_sums {
    exact_sums sums;
    std::exception_ptr error;
    std::size_t error_shard = std::numeric_limits<std::size_t>::max();
};

/// Differentiates shards, taken one at a time from `next`, until there are none left or a worker
/// has failed.
template <class F, class Shard>
void differentiate_shards(F& f, std::span<const double> params, const std::vector<Shard>& shards,
                          std::atomic<std::size_t>& next, std::atomic<bool>& failed,
                          partial_sums& sums) {
    while (!failed.load(std::memory_order_relaxed)) {
        const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
        if (i >= shards.size()) return;
        try {
            const auto [value, gradient] = zg::tape::value_and_grad(
                [&](std::span<const var> p) { return f(p, shards[i]); }, params);
            sums.sums.add(0, value);
            const std::vector<double>& g = std::get<0>(gradient);
            for (std::size_t j = 0; j < g.size(); ++j)
                sums.sums.add(j + 1, g[j]);
        } catch (...) {
            sums.error = std::current_exception();
            sums.error_shard = i;
            failed.store(true, std::memory_order_relaxed);
            return;
        }
    }
}

/// The exact sums of every shard's value and gradient, differentiated on `threads` workers (0: one
/// per hardware thread), the caller among them; `error` holds the lowest failing shard's
/// exception, if any, once every worker has been joined.
template <class F, class Shard>
partial_sums sum_shards(F& f, std::span<const double> params, const std::vector<Shard>& shards,
                        unsigned threads) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t workers =
        std::max<std::size_t>(1, std::min<std::size_t>(threads, shards.size()));
    std::vector<partial_sums> sums(workers);
    for (partial_sums& s : sums)
        s.sums = exact_sums(params.size() + 1);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    {
        std::vector<std::jthread> helpers;
        helpers.reserve(workers - 1);
        try {
            for (std::size_t w = 1; w < workers; ++w)
                helpers.emplace_back(
                    [&, w] { differentiate_shards(f, params, shards, next, failed, sums[w]); });
        } catch (...) { // a thread that could not start: stop the others, then report it
            failed.store(true);
            throw;
        }
        differentiate_shards(f, params, shards, next, failed, sums[0]);
    } // the helpers are joined here
    const auto first_error =
        std::min_element(sums.begin(), sums.end(), [](const auto& a, const auto& b) {
            return a.error_shard < b.error_shard;
        });
    if (first_error->error) return std::move(*first_error);
    for (std::size_t w = 1; w < workers; ++w)
        sums[0].sums.merge(sums[w].sums);
    return std::move(sums[0]);
}

/// The sums rounded: {value, std::tuple{gradient}}.
inline value_and_grad_result<std::tuple<std::vector<double>>> rounded(const exact_sums& sums) {
    std::vector<double> gradient(sums.size() - 1);
    for (std::size_t j = 0; j < gradient.size(); ++j)
        gradient[j] = sums.value(j + 1);
    return {sums.value(0), std::tuple{std::move(gradient)}};
}

} // namespace detail

/// The value and gradient by `params` of the sum over `shards` of f(params, shard), where f takes
/// a std::span<const zg::var> of the parameters and one shard (any type) and returns a zg::var.
/// `threads` workers (0: one per hardware thread; never more than the shards), the calling thread
/// among them, each differentiate whole shards on their own tape, taking the next shard when done.
/// Each shard's value and gradient are added exactly and rounded once (exact_sum), so the result is
/// the same bits for any number of threads and any scheduling. The result is as
/// zg::tape::value_and_grad's with one vector argument: {value, std::tuple{gradient}}.
///
/// A shard's exception stops the workers (each finishes the shard it is on) and reaches the
/// caller, once every worker has been joined; when several shards fail, the lowest one's.
///
///     std::vector<std::vector<double>> shards = ...;     // the data, in pieces
///     auto [nll, grad] = zg::parallel::value_and_grad_sum(
///         [](std::span<const zg::var> p, const std::vector<double>& xs) {
///             zg::var total = 0.0;
///             for (double x : xs) total += 0.5 * square((x - p[0]) / p[1]) + log(p[1]);
///             return total;
///         },
///         std::vector{0.0, 1.0}, shards, 2);
///     // std::get<0>(grad): d nll / d mu, d nll / d sigma
template <class F, class Shard>
value_and_grad_result<std::tuple<std::vector<double>>>
value_and_grad_sum(F&& f, std::span<const double> params, const std::vector<Shard>& shards,
                   unsigned threads = 0) {
    static_assert(std::is_invocable_v<F&, std::span<const var>, const Shard&>,
                  "zg::parallel::value_and_grad_sum: f is called as f(std::span<const zg::var> "
                  "params, const Shard& shard) for each shard; give it those parameters (or "
                  "write it as a generic lambda: [](auto params, const auto& shard) {...})");
    detail::partial_sums sums = detail::sum_shards(f, params, shards, threads);
    if (sums.error) std::rethrow_exception(sums.error);
    return detail::rounded(sums.sums);
}

/// The same for parameters in a std::vector<double> (or a braced list) or an Eigen vector.
template <class F, class Shard, zg::detail::jacobian_vector X = std::vector<double>>
value_and_grad_result<std::tuple<std::vector<double>>>
value_and_grad_sum(F&& f, const X& params, const std::vector<Shard>& shards, unsigned threads = 0) {
    return parallel::value_and_grad_sum(std::forward<F>(f), zg::detail::vector_span(params), shards,
                                        threads);
}

} // namespace zg::parallel
