// bench/mpi.cpp: zg::mpi::value_and_grad_sum on 1, 2 and 4 processes, in one run of
// `mpirun -np 4` (ZG_BENCH=mpi bash bench/run.sh): each benchmark uses the first 1, 2 or 4
// processes, the others wait asleep. The workloads are bench/parallel.cpp's: a normal likelihood
// over 1,000,000 points in 256 shards, and ADBench's Gaussian mixture (d = 10, K = 5, 10,000
// points in 100 shards); then the reduction alone, for the scaling model of docs/distributed.md:
// one tiny shard per process and P parameters. Benchmarks run interleaved, five rounds of each,
// for a fixed number of iterations (every process must make the same calls), timed by process
// 0's wall clock; the end prints each one's median and its speed-up over one process. Before
// timing, every process count's result is checked to be the same bits as the threaded sum over
// every shard.
#include "models/gmm.hpp"
#include "models/normal_likelihood.hpp"

#include <zerograd/mpi.hpp>
#include <zerograd/parallel.hpp>
#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

namespace {

int world_rank = 0, world_size = 1;

// A workload: its shards (every process knows them all and takes its own), its function and the
// point its gradient is taken at.
struct workload {
    std::string name;
    int iterations;
    std::function<zg::value_and_grad_result<std::tuple<std::vector<double>>>(MPI_Comm, int rank,
                                                                            int ranks)>
        mpi_sum;
    std::function<zg::value_and_grad_result<std::tuple<std::vector<double>>>()> threaded_sum;
};

template <class Shard>
std::vector<Shard> every_kth(const std::vector<Shard>& shards, int first, int k) {
    std::vector<Shard> mine;
    for (std::size_t i = static_cast<std::size_t>(first); i < shards.size();
         i += static_cast<std::size_t>(k))
        mine.push_back(shards[i]);
    return mine;
}

template <class F, class Shard>
workload make_workload(std::string name, int iterations, F f, std::vector<double> params,
                       std::vector<Shard> shards) {
    return {std::move(name), iterations,
            // The shards are dealt once per process count, before the timed calls.
            [=, dealt = std::make_shared<std::map<int, std::vector<Shard>>>()](
                MPI_Comm comm, int rank, int ranks) {
                auto [it, fresh] = dealt->try_emplace(ranks);
                if (fresh) it->second = every_kth(shards, rank, ranks);
                return zg::mpi::value_and_grad_sum(comm, f, params, it->second);
            },
            [=] { return zg::parallel::value_and_grad_sum(f, params, shards, 1); }};
}

const models::gmm::problem& gmm_problem() {
    static const models::gmm::problem p = models::gmm::make(10, 5, 10'000);
    return p;
}

// The reduction alone: one shard per process, sum_j c_j p_j with every gradient component
// nonzero, so that all P + 1 of them are reduced.
workload reduction(std::size_t params) {
    std::vector<std::vector<double>> shards(static_cast<std::size_t>(world_size));
    std::mt19937_64 generator(5);
    std::uniform_real_distribution<double> draw(0.5, 2.0);
    for (auto& shard : shards) {
        shard.resize(params);
        for (double& c : shard)
            c = draw(generator);
    }
    const auto f = [](std::span<const zg::var> p, const std::vector<double>& c) {
        zg::var total = 0.0;
        for (std::size_t j = 0; j < c.size(); ++j)
            total += c[j] * p[j];
        return total;
    };
    return make_workload("reduction/params:" + std::to_string(params),
                         params >= 100'000 ? 20 : 200, f, std::vector<double>(params, 1.0),
                         shards);
}

std::vector<workload>& workloads() {
    static std::vector<workload> all = [] {
        std::vector<workload> out;
        out.push_back(make_workload("normal_likelihood/shards:256", 20,
                                    models::normal_likelihood::shard_nll,
                                    std::vector<double>{1.2, 0.5},
                                    models::normal_likelihood::draws(256)));
        out.push_back(make_workload("gmm", 5, models::gmm::shard_objective,
                                    models::gmm::point(gmm_problem()),
                                    models::gmm::shards(gmm_problem(), 100)));
        for (std::size_t params : {10, 1000, 100'000})
            out.push_back(reduction(params));
        return out;
    }();
    return all;
}

// The first `ranks` processes; MPI_COMM_NULL on the others.
MPI_Comm first_processes(int ranks) {
    static std::map<int, MPI_Comm> made;
    auto [it, fresh] = made.try_emplace(ranks, MPI_COMM_NULL);
    if (fresh)
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < ranks ? 0 : MPI_UNDEFINED, world_rank,
                       &it->second);
    return it->second;
}

// A barrier the processes wait at asleep, not polling, so that the ones a benchmark leaves out
// take no core from the ones it times.
void wait_for_every_process() {
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    for (int done = 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done;)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void run(benchmark::State& state, const workload& w, int ranks) {
    const MPI_Comm comm = first_processes(ranks);
    wait_for_every_process();
    for (auto _ : state)
        if (comm != MPI_COMM_NULL) {
            auto result = w.mpi_sum(comm, world_rank, ranks);
            benchmark::DoNotOptimize(result);
        }
    wait_for_every_process();
}

bool same_bits(const zg::value_and_grad_result<std::tuple<std::vector<double>>>& a,
               const zg::value_and_grad_result<std::tuple<std::vector<double>>>& b) {
    const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
    if (bits(a.value) != bits(b.value)) return false;
    return std::ranges::equal(std::get<0>(a.grad), std::get<0>(b.grad),
                              [&](double x, double y) { return bits(x) == bits(y); });
}

// On process 0: Google Benchmark's console output, and each benchmark's times kept for the
// summary.
class recording_reporter : public benchmark::ConsoleReporter {
public:
    std::map<std::string, std::vector<double>> milliseconds;
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs)
            milliseconds[run.run_name.function_name].push_back(run.GetAdjustedRealTime());
        ConsoleReporter::ReportRuns(runs);
    }
};

class silent_reporter : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
};

double median(std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    const std::size_t n = xs.size();
    return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    std::vector<int> counts;
    for (int ranks : {1, 2, 4})
        if (ranks <= world_size) counts.push_back(ranks);

    int failures = 0;
    for (const workload& w : workloads()) {
        const auto reference = w.threaded_sum();
        for (int ranks : counts) {
            const MPI_Comm comm = first_processes(ranks);
            if (comm != MPI_COMM_NULL && !same_bits(w.mpi_sum(comm, world_rank, ranks), reference)) {
                std::fprintf(stderr, "bench/mpi: %s on %d processes is not the threaded sum\n",
                             w.name.c_str(), ranks);
                ++failures;
            }
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (failures != 0) {
        MPI_Finalize();
        return EXIT_FAILURE;
    }

    constexpr int rounds = 5;
    for (int round = 0; round < rounds; ++round)
        for (const workload& w : workloads())
            for (int ranks : counts)
                benchmark::RegisterBenchmark(
                    ("mpi/" + w.name + "/processes:" + std::to_string(ranks)).c_str(),
                    [&w, ranks](benchmark::State& state) { run(state, w, ranks); })
                    ->Iterations(w.iterations)
                    ->UseRealTime()
                    ->Unit(benchmark::kMillisecond);
    // Process 0 alone writes what --benchmark_out asks for.
    if (world_rank != 0)
        argc = static_cast<int>(
            std::remove_if(argv + 1, argv + argc,
                           [](std::string_view a) { return a.starts_with("--benchmark_out"); }) -
            argv);
    benchmark::Initialize(&argc, argv);
    recording_reporter console;
    silent_reporter silent;
    if (world_rank == 0)
        benchmark::RunSpecifiedBenchmarks(&console);
    else
        benchmark::RunSpecifiedBenchmarks(&silent);
    benchmark::Shutdown();

    if (world_rank == 0) {
        std::printf("\nmedians of %d rounds (%d processes launched on %u hardware threads):\n",
                    rounds, world_size, std::thread::hardware_concurrency());
        for (const workload& w : workloads()) {
            const std::string base = "mpi/" + w.name + "/processes:";
            if (console.milliseconds[base + "1"].empty()) continue; // not selected
            const double one = median(console.milliseconds[base + "1"]);
            for (int ranks : counts) {
                const double t = median(console.milliseconds[base + std::to_string(ranks)]);
                std::printf("  %-32s %d process(es) %10.3f ms   speed-up %.2fx\n",
                            w.name.c_str(), ranks, t, one / t);
            }
        }
    }
    MPI_Finalize();
}
