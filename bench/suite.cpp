// bench/suite.cpp: the standard AD benchmark functions, each as a plain function (`double`), a
// hand-written adjoint (`hand`), expression mode (`expr`) and tape mode (`tape`). Benchmarks are
// named suite/<case>/<mode>/<n>. Before anything is timed, every mode's value and gradient are
// checked against `hand`; a mismatch stops the run naming case, mode and n.
#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numbers>
#include <span>
#include <string>
#include <vector>

namespace {

using gradient_function = std::function<double(std::span<const double>, std::vector<double>&)>;

/// One benchmark case: the function alone, and value-with-gradient in each mode. Each mode
/// returns its gradient in a new std::vector, as zg::grad does: the hand-written adjoints
/// allocate theirs too (see `hand`), so every mode pays for one allocation per call.
struct bench_case {
    std::string name;
    std::vector<std::size_t> sizes;
    std::function<double(std::span<const double>)> plain;
    gradient_function hand, expr, tape;
    double (*point)(std::size_t i); // the i-th coordinate of the evaluation point
};

std::vector<double> make_point(const bench_case& c, std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = c.point(i);
    return x;
}

double in_unit(std::size_t i) { return 0.9 * std::sin(0.37 * double(i) + 0.1); }
double near_one(std::size_t i) { return 1.0 + 0.05 * std::sin(0.37 * double(i)); }

/// Moves a mode's gradient (a std::tuple holding one std::vector) into `out`.
template <class Result>
double unpack(Result&& result, std::vector<double>& out) {
    out = std::move(std::get<0>(result.grad));
    return result.value;
}

constexpr double normal_mu = -0.56, normal_sigma = 1.37;
const double normal_constant = -std::log(normal_sigma) - 0.5 * std::log(2 * std::numbers::pi);

std::vector<bench_case> make_cases() {
    const std::vector<std::size_t> sizes{1, 16, 256, 4096, 16384};
    std::vector<bench_case> cases;

    cases.push_back({"sum", sizes,
                     [](std::span<const double> x) {
                         double s = 0;
                         for (double xi : x) s += xi;
                         return s;
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         double s = 0;
                         for (std::size_t i = 0; i < x.size(); ++i) {
                             s += x[i];
                             g[i] = 1;
                         }
                         return s;
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         return unpack(zg::value_and_grad([](auto v) { return zg::sum(v); }, x), g);
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         return unpack(
                             zg::tape::value_and_grad([](auto v) { return zg::sum(v); }, x), g);
                     },
                     in_unit});

    cases.push_back({"prod", sizes,
                     [](std::span<const double> x) {
                         double p = 1;
                         for (double xi : x) p *= xi;
                         return p;
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         // Prefix products forward, suffix products backward: no division.
                         double p = 1;
                         for (std::size_t i = 0; i < x.size(); ++i) {
                             g[i] = p;
                             p *= x[i];
                         }
                         double suffix = 1;
                         for (std::size_t i = x.size(); i-- > 0;) {
                             g[i] *= suffix;
                             suffix *= x[i];
                         }
                         return p;
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         return unpack(zg::value_and_grad([](auto v) { return zg::prod(v); }, x),
                                       g);
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         return unpack(
                             zg::tape::value_and_grad([](auto v) { return zg::prod(v); }, x), g);
                     },
                     near_one});

    cases.push_back({"log_sum_exp", sizes,
                     [](std::span<const double> x) {
                         double m = -INFINITY, s = 0;
                         for (double xi : x) m = std::max(m, xi);
                         for (double xi : x) s += std::exp(xi - m);
                         return m + std::log(s);
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         double m = -INFINITY, s = 0;
                         for (double xi : x) m = std::max(m, xi);
                         for (std::size_t i = 0; i < x.size(); ++i) s += g[i] = std::exp(x[i] - m);
                         for (double& gi : g) gi /= s;
                         return m + std::log(s);
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         return unpack(
                             zg::value_and_grad([](auto v) { return zg::log_sum_exp(v); }, x), g);
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         return unpack(
                             zg::tape::value_and_grad([](auto v) { return zg::log_sum_exp(v); }, x),
                             g);
                     },
                     in_unit});

    const auto normal_term = [](auto y) {
        return -0.5 * square((y - normal_mu) / normal_sigma) + normal_constant;
    };
    cases.push_back(
        {"normal_log_pdf", sizes,
         [](std::span<const double> y) {
             double s = 0;
             for (double yi : y) {
                 const double z = (yi - normal_mu) / normal_sigma;
                 s += -0.5 * z * z + normal_constant;
             }
             return s;
         },
         [](std::span<const double> y, std::vector<double>& g) {
             double s = 0;
             for (std::size_t i = 0; i < y.size(); ++i) {
                 const double z = (y[i] - normal_mu) / normal_sigma;
                 s += -0.5 * z * z + normal_constant;
                 g[i] = -z / normal_sigma;
             }
             return s;
         },
         [normal_term](std::span<const double> y, std::vector<double>& g) {
             return unpack(zg::value_and_grad([&](auto v) { return zg::sum(v, normal_term); }, y),
                           g);
         },
         [normal_term](std::span<const double> y, std::vector<double>& g) {
             return unpack(
                 zg::tape::value_and_grad([&](auto v) { return zg::sum(v, normal_term); }, y), g);
         },
         in_unit});

    cases.push_back(
        {"pair_sin", {2, 16, 256, 4096, 16384},
         [](std::span<const double> x) {
             double s = 0;
             for (std::size_t i = 0; i + 1 < x.size(); ++i) s += x[i] * x[i + 1] + std::sin(x[i]);
             return s;
         },
         [](std::span<const double> x, std::vector<double>& g) {
             const std::size_t n = x.size();
             double s = 0;
             g[n - 1] = 0;
             double previous = 0; // x[i - 1], the partial of term i - 1 by x[i]
             for (std::size_t i = 0; i + 1 < n; ++i) {
                 s += x[i] * x[i + 1] + std::sin(x[i]);
                 g[i] = x[i + 1] + std::cos(x[i]) + previous;
                 previous = x[i];
             }
             g[n - 1] = previous;
             return s;
         },
         [](std::span<const double> x, std::vector<double>& g) {
             const std::size_t n = x.size();
             return unpack(zg::value_and_grad(
                               [n](auto v) {
                                   const auto head = zg::slice(v, 0, n - 1);
                                   return zg::sum(head * zg::slice(v, 1, n - 1) + sin(head));
                               },
                               x),
                           g);
         },
         [](std::span<const double> x, std::vector<double>& g) {
             return unpack(zg::tape::value_and_grad(
                               [](std::span<const zg::var> v) {
                                   zg::var s = 0.0;
                                   for (std::size_t i = 0; i + 1 < v.size(); ++i)
                                       s += v[i] * v[i + 1] + sin(v[i]);
                                   return s;
                               },
                               x),
                           g);
         },
         in_unit});
    return cases;
}

/// A small scalar expression (24 operations, 4 inputs): where expression mode should beat a
/// runtime tape by an order of magnitude.
const auto small_expression = [](auto a, auto b, auto c, auto d) {
    const auto u = a * b + c / (1.0 + d * d);
    const auto v = exp(-0.5 * u * u) * sin(a - c) + log(1.0 + b * b);
    return v * tanh(d + u) + sqrt(1.0 + a * a) * cos(b * d) - u / (2.0 + v * v);
};

/// A small arithmetic expression (about 40 operations, 4 inputs, no transcendental functions).
const auto small_arithmetic = [](auto a, auto b, auto c, auto d) {
    const auto p = ((a * b + c) * d - a) * (b - c * d) + 3.0 * a * a;
    const auto q = (a + b) * (c + d) / (1.0 + a * a + b * b) - (a - d) * (b + c);
    return p * q + (p - q) / (2.0 + q * q) + a * b * c * d - 0.5 * (p + q) * (a - b);
};

double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
    return worst;
}

void check_against_hand(const std::string& name, const std::string& mode, std::size_t n,
                        double value, const std::vector<double>& gradient, double hand_value,
                        const std::vector<double>& hand_gradient) {
    const double error = std::max(relative_error({value}, {hand_value}),
                                  relative_error(gradient, hand_gradient));
    if (!(error <= 1e-10)) {
        std::fprintf(stderr, "suite/%s/%s/%zu disagrees with hand: relative error %g\n",
                     name.c_str(), mode.c_str(), n, error);
        std::exit(1);
    }
}

void register_sizes(const bench_case& c);

/// A hand-written adjoint as the benchmarks call it: it returns its gradient in a new vector.
gradient_function allocating(gradient_function hand) {
    return [hand](std::span<const double> x, std::vector<double>& g) {
        g = std::vector<double>(x.size());
        return hand(x, g);
    };
}

void register_case(bench_case c) {
    c.hand = allocating(c.hand);
    static std::vector<bench_case> kept; // the benchmarks refer to the cases until the end
    kept.reserve(16);
    const bench_case& kept_case = kept.emplace_back(std::move(c));
    register_sizes(kept_case);
}

void register_sizes(const bench_case& c) {
    for (std::size_t n : c.sizes) {
        const auto x = make_point(c, n);
        std::vector<double> hand, other;
        const double hand_value = c.hand(x, hand);
        check_against_hand(c.name, "expr", n, c.expr(x, other), other, hand_value, hand);
        check_against_hand(c.name, "tape", n, c.tape(x, other), other, hand_value, hand);
        const std::string prefix = "suite/" + c.name + "/";
        const std::string suffix = "/" + std::to_string(n);
        benchmark::RegisterBenchmark((prefix + "double" + suffix).c_str(),
                                     [&c, x](benchmark::State& state) {
                                         for (auto _ : state) benchmark::DoNotOptimize(c.plain(x));
                                     });
        for (const auto& [mode, run] :
             {std::pair{"hand", &c.hand}, std::pair{"expr", &c.expr}, std::pair{"tape", &c.tape}})
            benchmark::RegisterBenchmark((prefix + mode + suffix).c_str(),
                                         [run, x](benchmark::State& state) {
                                             for (auto _ : state) {
                                                 std::vector<double> g;
                                                 benchmark::DoNotOptimize((*run)(x, g));
                                                 benchmark::DoNotOptimize(g.data());
                                             }
                                         });
    }
}

template <class F>
void register_small(const std::string& name, F f) {
    const std::array<double, 4> x{0.3, -0.7, 1.1, 0.4};
    const auto expr = zg::value_and_grad(f, x);
    const auto tape = zg::tape::value_and_grad(f, x);
    const std::vector<double> eg(expr.grad.begin(), expr.grad.end());
    const std::vector<double> tg(tape.grad.begin(), tape.grad.end());
    check_against_hand(name, "tape", 4, tape.value, tg, expr.value, eg);
    benchmark::RegisterBenchmark(("suite/" + name + "/double/4").c_str(),
                                 [x, f](benchmark::State& state) {
                                     for (auto _ : state) {
                                         auto y = x;
                                         benchmark::DoNotOptimize(y);
                                         benchmark::DoNotOptimize(f(y[0], y[1], y[2], y[3]));
                                     }
                                 });
    benchmark::RegisterBenchmark(("suite/" + name + "/expr/4").c_str(),
                                 [x, f](benchmark::State& state) {
                                     for (auto _ : state) {
                                         auto y = x;
                                         benchmark::DoNotOptimize(y);
                                         benchmark::DoNotOptimize(zg::value_and_grad(f, y));
                                     }
                                 });
    benchmark::RegisterBenchmark(("suite/" + name + "/tape/4").c_str(),
                                 [x, f](benchmark::State& state) {
                                     for (auto _ : state) {
                                         auto y = x;
                                         benchmark::DoNotOptimize(y);
                                         benchmark::DoNotOptimize(zg::tape::value_and_grad(f, y));
                                     }
                                 });
}

} // namespace

int main(int argc, char** argv) {
    for (auto& c : make_cases()) register_case(std::move(c));
    register_small("small_expression", small_expression);
    register_small("small_arithmetic", small_arithmetic);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
