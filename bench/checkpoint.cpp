// bench/checkpoint.cpp: the gradient of a 100,000-step recurrence (bench/models/pendulum.hpp)
// recorded whole and in checkpoints of sqrt(T) steps, which the sweep records again one at a
// time. Benchmarks are named pendulum/<grad|checkpointed>/<steps>, with the tape's peak bytes
// as a counter; bench/report.py gives the checkpointed time over the plain one.
#include "models/pendulum.hpp"

#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

/// The most bytes the calling thread's tape held at the points note_bytes() was called.
std::size_t peak_bytes = 0;
void note_bytes() { peak_bytes = std::max(peak_bytes, zg::tape::this_thread_tape().bytes_used()); }

/// The loss after `steps` steps from `start`, in checkpoints of k steps (0: none).
zg::var loss(std::span<const zg::var> start, std::size_t steps, std::size_t k) {
    std::vector<zg::var> state(start.begin(), start.end());
    if (k == 0) {
        state = bench::pendulum(std::span<const zg::var>(state), steps);
    } else {
        for (std::size_t done = 0; done < steps; done += k) {
            const std::size_t now = std::min(k, steps - done);
            state = zg::tape::checkpoint(
                [now](auto s) {
                    auto out = bench::pendulum(s, now);
                    note_bytes(); // the recording's peak, when the sweep runs it again
                    return out;
                },
                state);
        }
    }
    note_bytes();
    return state[0] * state[0] + 0.5 * state[1];
}

std::vector<double> gradient(std::size_t steps, std::size_t k) {
    const std::vector<double> start{1.0, 0.0, 9.81};
    return std::get<0>(
        zg::tape::grad([&](std::span<const zg::var> s) { return loss(s, steps, k); }, start));
}

} // namespace

int main(int argc, char** argv) {
    const std::size_t steps = 100000;
    const auto k = std::size_t(std::sqrt(double(steps)));
    if (gradient(steps, 0) != gradient(steps, k)) {
        std::fprintf(stderr, "the checkpointed gradient differs from the plain one\n");
        return 1;
    }
    for (const std::size_t every : {std::size_t(0), k}) {
        const std::string name = every == 0 ? "pendulum/grad/" : "pendulum/checkpointed/";
        benchmark::RegisterBenchmark((name + std::to_string(steps)).c_str(),
                                     [every, steps](benchmark::State& state) {
                                         peak_bytes = 0;
                                         for (auto _ : state)
                                             benchmark::DoNotOptimize(gradient(steps, every));
                                         state.counters["peak_bytes"] = double(peak_bytes);
                                     });
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
