// bench/hvp.cpp: a Hessian-vector product against a gradient of the same function, in expression
// mode (n = 10, the leaves spread from a std::array) and tape mode (n = 10 and 1,000). Benchmarks
// are named <function>_<mode>/<grad|hvp>/<n>; bench/report.py gives each hvp's time over its
// gradient's. Forward-over-reverse promises a few gradients' cost.
#include "functions.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

/// log(sum_i exp(x_i)) for x in (-1, 1), where no shift is needed.
template <class T>
T log_sum_exp(std::span<const T> x) {
    T total = 0.0;
    for (const T& xi : x)
        total += exp(xi);
    return log(total);
}

/// The tape's form: one generic lambda per function, called on double and dual variables alike.
const auto tape_rosenbrock = [](auto x) { return bench::rosenbrock(x); };
const auto tape_pair_sin = [](auto x) { return bench::pair_sin(x); };
const auto tape_log_sum_exp = [](auto x) { return log_sum_exp(x); };

/// Expression mode's form, over one leaf per variable: folds over the leaves (or their
/// neighbouring pairs).
template <class Term>
auto fold_pairs(Term term) {
    return [term](auto... y) {
        const std::tuple leaves{y...};
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return (term(std::get<I>(leaves), std::get<I + 1>(leaves)) + ...);
        }
        (std::make_index_sequence<sizeof...(y) - 1>{});
    };
}
const auto expr_rosenbrock =
    fold_pairs([](auto a, auto b) { return 100 * square(b - a * a) + square(1 - a); });
const auto expr_pair_sin = fold_pairs([](auto a, auto b) { return a * b + sin(a); });
const auto expr_log_sum_exp = [](auto... y) { return log((exp(y) + ...)); };

std::vector<double> point(std::size_t n, double phase) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = std::sin(0.37 * double(i) + phase) * 0.9; // in (-1, 1)
    return x;
}

/// Before anything is timed: the product agrees with central differences of the tape's gradient
/// along v, and expression mode's with the tape's.
template <class TapeF, class ExprF>
void check_agreement(const char* name, const TapeF& taped, const ExprF& expr, std::size_t n) {
    const auto x = point(n, 0.0), v = point(n, 1.0);
    const auto hv = zg::tape::hvp(taped, x, v);
    const double h = 1e-5;
    auto forward = x, backward = x;
    for (std::size_t i = 0; i < n; ++i) {
        forward[i] += h * v[i];
        backward[i] -= h * v[i];
    }
    const auto plus = zg::tape::grad(taped, forward), minus = zg::tape::grad(taped, backward);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double difference = (std::get<0>(plus)[i] - std::get<0>(minus)[i]) / (2 * h);
        worst = std::max(worst, std::abs(hv[i] - difference) / std::max(1.0, std::abs(hv[i])));
    }
    if (n == 10) {
        std::array<double, 10> xa{}, va{};
        std::copy(x.begin(), x.end(), xa.begin());
        std::copy(v.begin(), v.end(), va.begin());
        const auto expr_hv = zg::hvp(expr, xa, va);
        for (std::size_t i = 0; i < n; ++i)
            worst = std::max(worst, std::abs(expr_hv[i] - hv[i]) / std::max(1.0, std::abs(hv[i])));
    }
    if (worst > 1e-6) {
        std::fprintf(stderr, "%s: the Hessian-vector product disagrees (relative error %g)\n", name,
                     worst);
        std::exit(1);
    }
}

/// Registers <function>_<mode>/<kind>/<n>, timing `run`.
template <class F>
void register_benchmark(const char* function, const char* mode, const char* kind, std::size_t n,
                        F run) {
    std::string name = function;
    name.append("_").append(mode).append("/").append(kind).append("/").append(std::to_string(n));
    benchmark::RegisterBenchmark(name.c_str(), [run](benchmark::State& state) {
        for (auto _ : state) {
            run();
            benchmark::ClobberMemory();
        }
    });
}

template <class TapeF, class ExprF>
void register_function(const char* name, const TapeF& taped, const ExprF& expr) {
    for (std::size_t n : {10, 1000}) {
        check_agreement(name, taped, expr, n);
        const auto x = point(n, 0.0), v = point(n, 1.0);
        register_benchmark(name, "tape", "grad", n,
                           [=] { benchmark::DoNotOptimize(zg::tape::grad(taped, x)); });
        register_benchmark(name, "tape", "hvp", n,
                           [=] { benchmark::DoNotOptimize(zg::tape::hvp(taped, x, v)); });
    }
    std::array<double, 10> x{}, v{};
    const auto xs = point(10, 0.0), vs = point(10, 1.0);
    std::copy(xs.begin(), xs.end(), x.begin());
    std::copy(vs.begin(), vs.end(), v.begin());
    register_benchmark(name, "expr", "grad", 10, [=] {
        auto at = x;
        benchmark::DoNotOptimize(at);
        benchmark::DoNotOptimize(zg::grad(expr, at));
    });
    register_benchmark(name, "expr", "hvp", 10, [=] {
        auto at = x;
        benchmark::DoNotOptimize(at);
        benchmark::DoNotOptimize(zg::hvp(expr, at, v));
    });
}

} // namespace

int main(int argc, char** argv) {
    register_function("rosenbrock", tape_rosenbrock, expr_rosenbrock);
    register_function("pair_sin", tape_pair_sin, expr_pair_sin);
    register_function("log_sum_exp", tape_log_sum_exp, expr_log_sum_exp);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
