// bench/harness.cpp: checking, timing and measuring the suite's cases (see harness.hpp).
#include "harness.hpp"

#include <benchmark/benchmark.h>

#include "allocation_counter.hpp" // test/: counts operator new and its bytes

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <unistd.h>

namespace bench {

recording_size last_recording;

namespace {

double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
    return worst;
}

std::string benchmark_name(const sized_case& c, const std::string& mode) {
    return "suite/" + c.name + "/" + mode + "/" + std::to_string(c.n);
}

/// The hand-written gradient as the benchmarks call it: it returns its result in a new vector.
gradient_function allocating(const sized_case& c) {
    const std::size_t outputs = c.outputs != 0 ? c.outputs : c.x.size();
    return [hand = c.hand, outputs](std::span<const double> x, std::vector<double>& g) {
        g = std::vector<double>(outputs);
        return hand(x, g);
    };
}

/// A case and what its hand-written gradient gave, shared by the case's benchmarks.
struct checked_case {
    sized_case c;
    gradient_function hand;
    bool hand_ran = false;
    double hand_value = 0;
    std::vector<double> hand_gradient;

    explicit checked_case(sized_case made) : c(std::move(made)), hand(allocating(c)) {}

    /// Runs `mode` once and stops the program, naming it, if it disagrees with hand.
    void check(const mode& m) {
        if (!hand_ran) {
            hand_value = hand(c.x, hand_gradient);
            hand_ran = true;
        }
        std::vector<double> gradient;
        const double value = m.run(c.x, gradient);
        const double error = gradient.size() != hand_gradient.size()
                                 ? INFINITY
                                 : std::max(relative_error({value}, {hand_value}),
                                            relative_error(gradient, hand_gradient));
        if (!(error <= m.tolerance)) {
            std::fprintf(stderr, "%s disagrees with hand: relative error %g\n",
                         benchmark_name(c, m.name).c_str(), error);
            std::exit(1);
        }
    }
};

/// Resident bytes now, from /proc/self/statm.
long resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    long size = 0, resident = 0;
    statm >> size >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

/// The growth of resident memory one call of the benchmark causes, by a process of its own
/// (this program with --memory_probe); -1 if that fails.
double probed_memory(const std::string& benchmark) {
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return -1;
    const std::string command =
        "'" + std::string(self, std::size_t(length)) + "' --memory_probe=" + benchmark;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return -1;
    double bytes = -1;
    if (std::fscanf(pipe, "%lf", &bytes) != 1) bytes = -1;
    return pclose(pipe) == 0 ? bytes : -1;
}

/// What one mode's benchmark learns on its first run and reports as counters on every run.
struct first_run {
    bool done = false;
    double allocations = 0, bytes = 0, peak = -1;
    recording_size recording;
};

void register_mode(const std::shared_ptr<checked_case>& shared, const mode& m, bool own) {
    const std::string name = benchmark_name(shared->c, m.name);
    auto learned = std::make_shared<first_run>();
    benchmark::RegisterBenchmark(
        name.c_str(), [shared, m, own, name, learned](benchmark::State& state) {
            checked_case& cc = *shared;
            first_run& first = *learned;
            const gradient_function& run = m.name == "hand" ? cc.hand : m.run;
            if (!first.done) {
                if (own) {
                    std::vector<double> warm;
                    run(cc.c.x, warm);
                } else {
                    cc.check(m); // also the warming call
                }
                last_recording = {};
                test::count_allocations(true);
                const long count = test::allocation_count(), bytes = test::allocated_bytes();
                {
                    std::vector<double> fresh;
                    run(cc.c.x, fresh);
                }
                first.allocations = double(test::allocation_count() - count);
                first.bytes = double(test::allocated_bytes() - bytes);
                test::count_allocations(false); // timed calls run without the counter's cost
                first.recording = last_recording;
                if (cc.c.measure_memory) first.peak = probed_memory(name);
                first.done = true;
            }
            for (auto _ : state) {
                std::vector<double> gradient;
                benchmark::DoNotOptimize(run(cc.c.x, gradient));
                benchmark::DoNotOptimize(gradient.data());
            }
            state.counters["allocs"] = first.allocations;
            state.counters["bytes"] = first.bytes;
            if (first.recording.nodes != 0) {
                state.counters["nodes"] = double(first.recording.nodes);
                state.counters["bytes_per_node"] =
                    double(first.recording.bytes) / double(first.recording.nodes);
            }
            if (first.peak >= 0) state.counters["peak_bytes"] = first.peak;
        });
}

void order_by_size(std::vector<sized_case>& cases) {
    std::stable_sort(cases.begin(), cases.end(),
                     [](const sized_case& a, const sized_case& b) { return a.n < b.n; });
}

} // namespace

void register_cases(std::vector<sized_case> cases) {
    order_by_size(cases);
    for (sized_case& made : cases) {
        auto shared = std::make_shared<checked_case>(std::move(made));
        const sized_case& c = shared->c;
        if (c.plain)
            benchmark::RegisterBenchmark(
                benchmark_name(c, "double").c_str(), [shared](benchmark::State& state) {
                    for (auto _ : state)
                        benchmark::DoNotOptimize(shared->c.plain(shared->c.x));
                });
        register_mode(shared, {"hand", nullptr, 0}, true);
        for (const mode& m : c.modes)
            register_mode(shared, m, false);
    }
}

int check_cases(std::vector<sized_case> cases) {
    order_by_size(cases);
    for (sized_case& made : cases) {
        checked_case cc(std::move(made));
        for (const mode& m : cc.c.modes)
            cc.check(m);
        std::printf("%-26s n = %-6zu %zu modes agree with hand\n", cc.c.name.c_str(), cc.c.n,
                    cc.c.modes.size());
    }
    return 0;
}

int probe_memory(const std::vector<sized_case>& cases, const std::string& benchmark) {
    for (const sized_case& c : cases) {
        const auto probe = [&](const gradient_function& run) {
            std::vector<double> g;
            allocating(c)(c.x, g);
            const long before = resident_bytes();
            run(c.x, g);
            rusage usage{};
            getrusage(RUSAGE_SELF, &usage);
            std::printf("%ld\n", std::max(0L, usage.ru_maxrss * 1024 - before));
            return 0;
        };
        if (benchmark_name(c, "hand") == benchmark) return probe(c.hand);
        for (const mode& m : c.modes)
            if (benchmark_name(c, m.name) == benchmark) return probe(m.run);
    }
    std::fprintf(stderr, "no benchmark %s\n", benchmark.c_str());
    return 1;
}

} // namespace bench
