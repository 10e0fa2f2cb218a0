// bench/parallel.cpp: zg::parallel::value_and_grad_sum on 1, 2 and 4 threads: the gradient of a
// normal likelihood over 1,000,000 points in 64 or 256 shards, and of ADBench's Gaussian mixture
// objective (d = 10, K = 5, 10,000 points in 100 shards), each written as a user writes it (a
// loop of tape-mode operations per shard). Benchmarks are named
// normal_likelihood/shards:<s>/threads:<t> and gmm/threads:<t>, timed by the wall clock; the
// speed-up of t threads is the time at 1 over the time at t. Before timing, every thread count's
// result is checked to be the same bits as one thread's, and the mixture's against one tape-mode
// gradient of the whole objective.
#include "models/gmm.hpp"
#include "models/normal_likelihood.hpp"

#include <zerograd/parallel.hpp>
#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <tuple>
#include <vector>

namespace {

using models::normal_likelihood::shard_nll;

const std::vector<std::vector<double>>& shards(std::size_t count) {
    static const std::vector<std::vector<double>> sixty_four =
        models::normal_likelihood::draws(64);
    static const std::vector<std::vector<double>> two_hundred_fifty_six =
        models::normal_likelihood::draws(256);
    return count == 64 ? sixty_four : two_hundred_fifty_six;
}

const std::vector<double> params = {1.2, 0.5};

const auto gmm_objective = models::gmm::shard_objective;

const models::gmm::problem& gmm_problem() {
    static const models::gmm::problem p = models::gmm::make(10, 5, 10'000);
    return p;
}

// The mixture's points in shards of 100.
const std::vector<models::gmm::shard>& gmm_shards() {
    static const std::vector<models::gmm::shard> out = models::gmm::shards(gmm_problem(), 100);
    return out;
}

const std::vector<double>& gmm_point() {
    static const std::vector<double> point = models::gmm::point(gmm_problem());
    return point;
}

void normal_likelihood(benchmark::State& state) {
    const auto& data = shards(static_cast<std::size_t>(state.range(0)));
    const auto threads = static_cast<unsigned>(state.range(1));
    for (auto _ : state) {
        auto result = zg::parallel::value_and_grad_sum(shard_nll, params, data, threads);
        benchmark::DoNotOptimize(result);
    }
    state.counters["points"] = 1'000'000;
}

void gmm(benchmark::State& state) {
    const auto threads = static_cast<unsigned>(state.range(0));
    for (auto _ : state) {
        auto result =
            zg::parallel::value_and_grad_sum(gmm_objective, gmm_point(), gmm_shards(), threads);
        benchmark::DoNotOptimize(result);
    }
}

bool same_bits(const auto& a, const auto& b) {
    return std::bit_cast<std::uint64_t>(a.value) == std::bit_cast<std::uint64_t>(b.value) &&
           std::get<0>(a.grad) == std::get<0>(b.grad);
}

} // namespace

BENCHMARK(gmm)->ArgName("threads")->Arg(1)->Arg(2)->Arg(4)->UseRealTime()->Unit(
    benchmark::kMillisecond);
BENCHMARK(normal_likelihood)
    ->ArgNames({"shards", "threads"})
    ->ArgsProduct({{64, 256}, {1, 2, 4}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    for (const std::size_t count : {64, 256}) {
        const auto [value, gradient] =
            zg::parallel::value_and_grad_sum(shard_nll, params, shards(count), 1);
        for (unsigned threads : {2u, 4u}) {
            const auto [v, g] =
                zg::parallel::value_and_grad_sum(shard_nll, params, shards(count), threads);
            if (std::bit_cast<std::uint64_t>(v) != std::bit_cast<std::uint64_t>(value) ||
                std::get<0>(g) != std::get<0>(gradient)) {
                std::fprintf(stderr, "bench/parallel: %u threads do not give one thread's bits\n",
                             threads);
                return EXIT_FAILURE;
            }
        }
    }
    const auto mixture =
        zg::parallel::value_and_grad_sum(gmm_objective, gmm_point(), gmm_shards(), 1);
    for (unsigned threads : {2u, 4u})
        if (!same_bits(
                zg::parallel::value_and_grad_sum(gmm_objective, gmm_point(), gmm_shards(), threads),
                mixture)) {
            std::fprintf(stderr, "bench/parallel: the mixture on %u threads differs\n", threads);
            return EXIT_FAILURE;
        }
    const auto whole = zg::tape::value_and_grad(
        [](std::span<const zg::var> v) { return models::gmm::loop_objective(v, gmm_problem()); },
        gmm_point());
    double worst = std::abs(whole.value - mixture.value) / std::abs(whole.value);
    for (std::size_t i = 0; i < gmm_point().size(); ++i)
        worst =
            std::max(worst, std::abs(std::get<0>(whole.grad)[i] - std::get<0>(mixture.grad)[i]) /
                                std::max(1.0, std::abs(std::get<0>(whole.grad)[i])));
    if (worst > 1e-12) {
        std::fprintf(stderr, "bench/parallel: the sharded mixture is %g from the whole one\n",
                     worst);
        return EXIT_FAILURE;
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
