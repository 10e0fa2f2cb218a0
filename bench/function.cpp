// bench/function.cpp: a user's rule (zg::function) against the library's operations doing the same
// math, in expression and tape mode. softplus as a rule against log1p(exp(x)): its partial
// written from x (`function`: one more exp than log1p(exp(x)) computes), and computed with the
// value from one exp (`together`, value_and_dx); and a copy of the library's tanh rule as a
// user's against tanh itself, where only the path differs. Benchmarks are named
// <case>_<mode>/<builtin|function|together>/<n>; bench/report.py gives each time over the
// builtin's.
#include "user_rules.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

// test/user_rules.hpp: log1p(exp(x)) as a rule, logistic(x) its derivative, from x or with the
// value.
using laws::softplus;
using laws::softplus_together;

/// The library's tanh rule, as a user would copy it.
struct user_tanh_rule {
    static constexpr std::string_view name = "user_tanh";
    template <class T>
    T value(const T& x) const {
        using std::tanh;
        return tanh(x);
    }
    template <class T>
    T dx(const T&, const T& y) const {
        return 1 - y * y;
    }
};
constexpr zg::function<user_tanh_rule> user_tanh{};

// Each case twice, by the library's operations and by a user's rule; every form is a generic
// lambda that both modes call.
const auto softplus_builtin = [](auto x) { return log1p(exp(x)); };
const auto softplus_function = [](auto x) { return softplus(x); };
const auto softplus_fused = [](auto x) { return softplus_together(x); };
const auto tanh_builtin = [](auto x) { return tanh(x); };
const auto tanh_function = [](auto x) { return user_tanh(x); };

/// sum_i g(x_i) in expression mode.
template <class G>
auto expr_sum(G g) {
    return [g](auto x) { return zg::sum(x, g); };
}
/// sum_i g(x_i) in tape mode.
template <class G>
auto tape_sum(G g) {
    return [g](std::span<const zg::var> x) {
        zg::var total = 0.0;
        for (const zg::var& xi : x)
            total += g(xi);
        return total;
    };
}
/// g(x y) + g(x - y) of two scalars, in either mode.
template <class G>
auto pair(G g) {
    return [g](auto x, auto y) { return g(x * y) + g(x - y); };
}

std::vector<double> point(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = 3 * std::sin(0.37 * double(i));
    return x;
}

/// Before anything is timed: both forms give one gradient, in both modes.
template <class B, class F>
void check_agreement(const char* name, B builtin, F function) {
    const auto x = point(1000);
    const auto e1 = std::get<0>(zg::grad(expr_sum(builtin), x));
    const auto e2 = std::get<0>(zg::grad(expr_sum(function), x));
    const auto t1 = std::get<0>(zg::tape::grad(tape_sum(builtin), x));
    const auto t2 = std::get<0>(zg::tape::grad(tape_sum(function), x));
    const auto p1 = zg::grad(pair(builtin), 0.3, -1.1);
    const auto p2 = zg::tape::grad(pair(function), 0.3, -1.1);
    double worst = std::abs(p1[0] - p2[0]) + std::abs(p1[1] - p2[1]);
    for (std::size_t i = 0; i < x.size(); ++i)
        worst = std::max(
            {worst, std::abs(e1[i] - e2[i]), std::abs(t1[i] - t2[i]), std::abs(e1[i] - t1[i])});
    if (worst > 1e-12) {
        std::fprintf(stderr, "%s: the user's rule and the library's operations disagree (%g)\n",
                     name, worst);
        std::exit(1);
    }
}

/// Registers <case>_<mode>/<form>/<n>, timing `run`.
template <class F>
void register_benchmark(const char* name, const char* mode, const char* form, std::size_t n,
                        F run) {
    std::string full = name;
    full.append("_").append(mode).append("/").append(form).append("/").append(std::to_string(n));
    benchmark::RegisterBenchmark(full.c_str(), [run](benchmark::State& state) {
        for (auto _ : state) {
            run();
            benchmark::ClobberMemory();
        }
    });
}

template <class G>
void register_form(const char* name, const char* form, G g) {
    const auto x = point(1000);
    register_benchmark(name, "expr", form, 1000,
                       [=] { benchmark::DoNotOptimize(zg::grad(expr_sum(g), x)); });
    register_benchmark(name, "tape", form, 1000,
                       [=] { benchmark::DoNotOptimize(zg::tape::grad(tape_sum(g), x)); });
    register_benchmark(name, "expr", form, 2, [=] {
        std::array<double, 2> at{0.3, -1.1};
        benchmark::DoNotOptimize(at);
        benchmark::DoNotOptimize(zg::grad(pair(g), at[0], at[1]));
    });
    register_benchmark(name, "tape", form, 2, [=] {
        std::array<double, 2> at{0.3, -1.1};
        benchmark::DoNotOptimize(at);
        benchmark::DoNotOptimize(zg::tape::grad(pair(g), at[0], at[1]));
    });
}

} // namespace

int main(int argc, char** argv) {
    check_agreement("softplus", softplus_builtin, softplus_function);
    check_agreement("softplus", softplus_builtin, softplus_fused);
    check_agreement("tanh", tanh_builtin, tanh_function);
    register_form("softplus", "builtin", softplus_builtin);
    register_form("softplus", "function", softplus_function);
    register_form("softplus", "together", softplus_fused);
    register_form("tanh", "builtin", tanh_builtin);
    register_form("tanh", "function", tanh_function);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
