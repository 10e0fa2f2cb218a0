// bench/parallel.cpp: zg::parallel::value_and_grad_sum on 1, 2 and 4 threads: the gradient of a
// normal likelihood over 1,000,000 points in 64 or 256 shards, written as a user writes it (a
// loop of tape-mode operations per shard). Benchmarks are named
// normal_likelihood/shards:<s>/threads:<t>, timed by the wall clock; the speed-up of t threads is
// the time at 1 over the time at t. Before timing, every thread count's result is checked to be
// the same bits as one thread's.
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

// 1,000,000 draws of N(1.5, 2^2) in `count` shards.
std::vector<std::vector<double>> make_shards(std::size_t count) {
    std::mt19937_64 generator(11);
    std::normal_distribution<double> draw(1.5, 2.0);
    std::vector<std::vector<double>> out(count, std::vector<double>(1'000'000 / count));
    for (auto& shard : out)
        for (double& x : shard)
            x = draw(generator);
    return out;
}

const std::vector<std::vector<double>>& shards(std::size_t count) {
    static const std::vector<std::vector<double>> sixty_four = make_shards(64);
    static const std::vector<std::vector<double>> two_hundred_fifty_six = make_shards(256);
    return count == 64 ? sixty_four : two_hundred_fifty_six;
}

const std::vector<double> params = {1.2, 0.5};

void normal_likelihood(benchmark::State& state) {
    const auto& data = shards(static_cast<std::size_t>(state.range(0)));
    const auto threads = static_cast<unsigned>(state.range(1));
    for (auto _ : state) {
        auto result = zg::parallel::value_and_grad_sum(shard_nll, params, data, threads);
        benchmark::DoNotOptimize(result);
    }
    state.counters["points"] = 1'000'000;
}

} // namespace

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
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
