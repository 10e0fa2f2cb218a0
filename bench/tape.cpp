// bench/tape.cpp: tape mode against the plain function and a hand-written gradient, for three
// functions at n = 10, 1,000 and 100,000. Benchmarks are named <function>/<mode>/<n>.
#include "functions.hpp"

#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

std::vector<double> point(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = std::sin(0.37 * double(i)) * 0.9; // in (-1, 1)
    return x;
}

struct function_case {
    const char* name;
    double (*plain)(std::span<const double>);
    zg::var (*taped)(std::span<const zg::var>);
    double (*hand)(std::span<const double>, std::span<double>);
};

const function_case cases[] = {
    {"pair_sin", bench::pair_sin<double>, bench::pair_sin<zg::var>, bench::pair_sin_gradient},
    {"rosenbrock", bench::rosenbrock<double>, bench::rosenbrock<zg::var>,
     bench::rosenbrock_gradient},
    {"log_sum_exp", bench::log_sum_exp<double>, bench::log_sum_exp<zg::var>,
     bench::log_sum_exp_gradient},
};

/// Before anything is timed, tape mode must agree with the hand-written gradient.
void check_agreement(const function_case& c, std::size_t n) {
    const auto x = point(n);
    std::vector<double> hand(n);
    const double hand_value = c.hand(x, hand);
    const auto [value, grad] = zg::tape::value_and_grad(c.taped, x);
    const auto& tape_grad = std::get<0>(grad);
    double worst = std::abs(value - hand_value) / std::max(1.0, std::abs(hand_value));
    for (std::size_t i = 0; i < n; ++i)
        worst =
            std::max(worst, std::abs(tape_grad[i] - hand[i]) / std::max(1.0, std::abs(hand[i])));
    if (worst > 1e-10) {
        std::fprintf(stderr, "%s/tape/%zu disagrees with hand: relative error %g\n", c.name, n,
                     worst);
        std::exit(1);
    }
}

} // namespace

int main(int argc, char** argv) {
    for (const function_case& c : cases)
        for (std::size_t n : {10, 1000, 100000}) {
            check_agreement(c, n);
            const std::string suffix = "/" + std::to_string(n);
            benchmark::RegisterBenchmark((std::string(c.name) + "/double" + suffix).c_str(),
                                         [&c, n](benchmark::State& state) {
                                             const auto x = point(n);
                                             for (auto _ : state)
                                                 benchmark::DoNotOptimize(c.plain(x));
                                         });
            benchmark::RegisterBenchmark((std::string(c.name) + "/hand" + suffix).c_str(),
                                         [&c, n](benchmark::State& state) {
                                             const auto x = point(n);
                                             std::vector<double> g(n);
                                             for (auto _ : state) {
                                                 benchmark::DoNotOptimize(c.hand(x, g));
                                                 benchmark::ClobberMemory();
                                             }
                                         });
            benchmark::RegisterBenchmark((std::string(c.name) + "/tape" + suffix).c_str(),
                                         [&c, n](benchmark::State& state) {
                                             const auto x = point(n);
                                             for (auto _ : state) {
                                                 auto result = zg::tape::value_and_grad(c.taped, x);
                                                 benchmark::DoNotOptimize(result);
                                             }
                                         });
        }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
