// bench/suite.cpp: the standard AD benchmark functions, each as a plain function (`double`), a
// hand-written adjoint (`hand`), expression mode (`expr`), tape mode (`tape`), forward mode
// (`forward`), central finite differences (`fd`), and the peers found at build time: ADOL-C
// (`adolc`), Trilinos Sacado's reverse mode (`sacado`) and libtorch (`libtorch`, in
// suite_torch.cpp); a likelihood by its parameters; and the models of gmm.cpp and ba.cpp.
// Benchmarks are named suite/<case>/<mode>/<n>. Each is checked against `hand` right before it is
// timed (harness.cpp), smallest n first; a mismatch stops the run naming case, mode and n. Each
// also reports the heap allocations and bytes one gradient costs (counted by
// test/allocation_counter.cpp's operator new) and, for tape mode, the recording's size.
//
//   suite                          time every benchmark (Google Benchmark's flags apply)
//   suite --check                  only check every mode of every case at every size
//   suite --memory_probe=<name>    print the resident memory one call of that benchmark adds
#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <benchmark/benchmark.h>

#include "harness.hpp"     // checking and timing, the peers
#include "suite_torch.hpp" // libtorch_modes where libtorch was found

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <numbers>
#include <span>
#include <string>
#include <vector>

namespace {

using bench::recorded_value_and_grad;
using bench::flatten;
using bench::unpack;

/// A mode run from a case's loop form (add_loop_modes): up to n = max_n, checked against hand to
/// `tolerance`.
struct extra_mode {
    std::string name;
    gradient_function run;
    std::size_t max_n;
    double tolerance;
    std::size_t max_inputs = std::size_t(-1); // forward and fd cost one evaluation per input
};

/// One benchmark case: the function alone, and value-with-gradient in each mode. Each mode
/// returns its gradient in a new std::vector, as zg::grad does: the hand-written adjoints
/// allocate theirs too (see `hand`), so every mode pays for one allocation per call.
struct bench_case {
    std::string name;
    std::vector<std::size_t> sizes;
    std::function<double(std::span<const double>)> plain;
    gradient_function hand, expr, tape;
    double (*point)(std::size_t i); // the i-th coordinate of the evaluation point
    // For cases with parameters besides the n-vector: the whole evaluation point for size n.
    std::vector<double> (*whole_point)(std::size_t n) = nullptr;
    std::vector<extra_mode> extra = {}; // forward, fd and the peers (add_loop_modes)
};

std::vector<double> make_point(const bench_case& c, std::size_t n) {
    if (c.whole_point != nullptr) return c.whole_point(n);
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = c.point(i);
    return x;
}

double square(double x) { return x * x; }
double in_unit(std::size_t i) { return 0.9 * std::sin(0.37 * double(i) + 0.1); }
double near_one(std::size_t i) { return 1.0 + 0.05 * std::sin(0.37 * double(i)); }

/// The sizes every case runs at (pair_sin starts at 2, matrix_product counts k up to 128).
const std::vector<std::size_t> powers_of_4{1, 4, 16, 64, 256, 1024, 4096, 16384};

// ---- Loop forms: each case written as a plain loop over a span of any scalar type T, the way a
// user of an operator-overloading library writes it. On doubles they are the plain function
// (`double`); forward mode, finite differences and the peers run them too. `x` is the point as
// doubles (log_sum_exp's shift is chosen from it).

/// Forward mode, central differences, ADOL-C and Sacado for a case, from its loop form.
template <class Loop>
void add_loop_modes(bench_case& c, Loop loop, std::size_t peers_max_n = std::size_t(-1)) {
    peers_max_n = std::min(peers_max_n, c.sizes.back());
    c.extra.push_back({"forward",
                       [loop](std::span<const double> x, std::vector<double>& g) {
                           return unpack(
                               zg::fwd::value_and_grad(
                                   [&](std::span<const zg::dual> v) { return loop(v, x); }, x),
                               g);
                       },
                       256, 1e-10, 512});
    // Central differences with a step from each coordinate's magnitude: accurate to about 1e-8
    // of the value's scale, hence their own tolerance.
    c.extra.push_back({"fd",
                       [plain = c.plain](std::span<const double> x, std::vector<double>& g) {
                           std::vector<double> moved(x.begin(), x.end());
                           g.resize(x.size());
                           for (std::size_t i = 0; i < x.size(); ++i) {
                               const double h = 1e-6 * std::max(1.0, std::abs(x[i]));
                               moved[i] = x[i] + h;
                               const double up = plain(moved);
                               moved[i] = x[i] - h;
                               const double down = plain(moved);
                               moved[i] = x[i];
                               g[i] = (up - down) / (2 * h);
                           }
                           return plain(x);
                       },
                       256, 1e-5, 512});
    std::vector<bench::mode> peers;
    bench::add_peers(peers, loop);
    for (bench::mode& peer : peers)
        c.extra.push_back({peer.name, std::move(peer.run), peers_max_n, peer.tolerance});
}

const auto sum_loop = [](auto v, std::span<const double>) {
    typename decltype(v)::value_type s = 0.0;
    for (const auto& vi : v)
        s += vi;
    return s;
};

const auto prod_loop = [](auto v, std::span<const double>) {
    typename decltype(v)::value_type p = 1.0;
    for (const auto& vi : v)
        p *= vi;
    return p;
};

// Each loop returns T itself: a peer's expression type (Sacado's ADvari, ADOL-C's adub) returned
// by value would leave its recording behind.
const auto log_sum_exp_loop = [](auto v, std::span<const double> x) {
    using std::exp, std::log;
    using T = typename decltype(v)::value_type;
    const double m = *std::max_element(x.begin(), x.end()); // a constant shift
    T s = 0.0;
    for (const auto& vi : v)
        s += exp(vi - m);
    return T(log(s) + m);
};

constexpr double normal_mu = -0.56, normal_sigma = 1.37;
const double normal_constant = -std::log(normal_sigma) - 0.5 * std::log(2 * std::numbers::pi);

const auto normal_log_pdf_loop = [](auto v, std::span<const double>) {
    using T = typename decltype(v)::value_type;
    T s = 0.0;
    for (const auto& vi : v) {
        const T z = (vi - normal_mu) / normal_sigma;
        s += -0.5 * z * z + normal_constant;
    }
    return s;
};

const auto pair_sin_loop = [](auto v, std::span<const double>) {
    using std::sin;
    typename decltype(v)::value_type s = 0.0;
    for (std::size_t i = 0; i + 1 < v.size(); ++i)
        s += v[i] * v[i + 1] + sin(v[i]);
    return s;
};

// ---- Linear regression: y ~ Normal(X w + b, sigma), X of 1000 rows and n columns, standard
// normal priors on w and b, uniform(0.1, 10) on sigma (a constant). The point is (w, b, sigma).

constexpr std::size_t regression_rows = 1000;

using regression_data = regression_arrays;

/// The data for n columns, made once per n and kept.
const regression_data& regression_data_for(std::size_t n) {
    static std::map<std::size_t, regression_data> made;
    auto [it, fresh] = made.try_emplace(n);
    if (fresh) {
        it->second.X.resize(regression_rows * n);
        it->second.y.resize(regression_rows);
        for (std::size_t i = 0; i < it->second.X.size(); ++i)
            it->second.X[i] = std::sin(1.7 * double(i) + 0.3);
        for (std::size_t r = 0; r < regression_rows; ++r)
            it->second.y[r] = std::cos(0.9 * double(r));
    }
    return it->second;
}

std::vector<double> regression_point(std::size_t n) {
    std::vector<double> x(n + 2);
    for (std::size_t j = 0; j < n; ++j)
        x[j] = 0.1 * in_unit(j) / std::sqrt(double(n));
    x[n] = 0.2;     // b
    x[n + 1] = 1.3; // sigma
    return x;
}

/// The log density as a generic lambda of (w, b, sigma): expression mode and tape mode run it.
auto regression_density(const regression_data& data, std::size_t n) {
    return [&data, n](auto w, auto b, auto sigma) {
        const auto likelihood = zg::sum(data.y, [&](auto yr, std::size_t r) {
            const auto row = std::span<const double>(data.X).subspan(r * n, n);
            return -0.5 * square((yr - zg::dot(row, w) - b) / sigma);
        });
        return likelihood - double(regression_rows) * log(sigma) - 0.5 * zg::dot(w, w) -
               0.5 * b * b;
    };
}

const auto regression_loop = [](auto v, std::span<const double>) {
    using std::log;
    using T = typename decltype(v)::value_type;
    const std::size_t n = v.size() - 2;
    const auto& data = regression_data_for(n);
    const T& b = v[n];
    const T& sigma = v[n + 1];
    T total = 0.0;
    for (std::size_t r = 0; r < regression_rows; ++r) {
        T mean = b;
        for (std::size_t j = 0; j < n; ++j)
            mean += data.X[r * n + j] * v[j];
        const T z = (data.y[r] - mean) / sigma;
        total += -0.5 * z * z;
    }
    T prior = 0.0;
    for (std::size_t j = 0; j < n; ++j)
        prior += v[j] * v[j];
    return T(total - double(regression_rows) * log(sigma) - 0.5 * prior - 0.5 * b * b);
};

bench_case regression_case() {
    return {"regression",
            powers_of_4,
            [](std::span<const double> x) { return regression_loop(x, x); },
            [](std::span<const double> x, std::vector<double>& g) {
                const std::size_t n = x.size() - 2;
                const auto& data = regression_data_for(n);
                const double b = x[n], sigma = x[n + 1];
                double total = 0, db = -b, dsigma = -double(regression_rows) / sigma;
                for (std::size_t j = 0; j < n; ++j)
                    g[j] = -x[j];
                for (std::size_t r = 0; r < regression_rows; ++r) {
                    const double* row = data.X.data() + r * n;
                    double mean = b;
                    for (std::size_t j = 0; j < n; ++j)
                        mean += row[j] * x[j];
                    const double z = (data.y[r] - mean) / sigma;
                    total += -0.5 * z * z;
                    const double dmean = z / sigma;
                    for (std::size_t j = 0; j < n; ++j)
                        g[j] += dmean * row[j];
                    db += dmean;
                    dsigma += z * z / sigma;
                }
                double prior = 0;
                for (std::size_t j = 0; j < n; ++j)
                    prior += x[j] * x[j];
                g[n] = db;
                g[n + 1] = dsigma;
                return total - double(regression_rows) * std::log(sigma) - 0.5 * prior -
                       0.5 * b * b;
            },
            [](std::span<const double> x, std::vector<double>& g) {
                const std::size_t n = x.size() - 2;
                const auto f = regression_density(regression_data_for(n), n);
                return flatten(zg::value_and_grad(f, x.first(n), x[n], x[n + 1]), g, x.size());
            },
            [](std::span<const double> x, std::vector<double>& g) {
                const std::size_t n = x.size() - 2;
                const auto f = regression_density(regression_data_for(n), n);
                return flatten(recorded_value_and_grad(f, x.first(n), x[n], x[n + 1]), g, x.size());
            },
            nullptr,
            regression_point};
}

// ---- Stochastic volatility (Stan's model): h = sigma * h_std, h_0 /= sqrt(1 - phi^2), h += mu,
// h_t += phi (h_{t-1} - mu), y ~ Normal(0, exp(h / 2)); priors h_std ~ Normal(0, 1),
// sigma ~ Cauchy(0, 5), mu ~ Cauchy(0, 10), phi ~ uniform(-1, 1). The point is (mu, phi, sigma,
// h_std).

const double log_two_pi = std::log(2 * std::numbers::pi);

/// y_t^2 for n observations, made once per n and kept.
const std::vector<double>& volatility_data_for(std::size_t n) {
    static std::map<std::size_t, std::vector<double>> made;
    auto [it, fresh] = made.try_emplace(n);
    if (fresh)
        for (std::size_t t = 0; t < n; ++t)
            it->second.push_back(square(0.8 * std::sin(0.61 * double(t) + 0.2)));
    return it->second;
}

std::vector<double> volatility_point(std::size_t n) {
    std::vector<double> x{-0.4, 0.85, 0.6};
    for (std::size_t t = 0; t < n; ++t)
        x.push_back(in_unit(t));
    return x;
}

const auto volatility_loop = [](auto v, std::span<const double>) {
    using std::exp, std::log, std::sqrt;
    using T = typename decltype(v)::value_type;
    const std::size_t n = v.size() - 3;
    const auto& y2 = volatility_data_for(n);
    const T &mu = v[0], &phi = v[1], &sigma = v[2];
    T total = -log(1.0 + (sigma / 5.0) * (sigma / 5.0)) - log(1.0 + (mu / 10.0) * (mu / 10.0)) -
              double(n) * log_two_pi;
    T d = sigma * v[3] / sqrt(1.0 - phi * phi);
    for (std::size_t t = 0; t < n; ++t) {
        if (t > 0) d = sigma * v[3 + t] + phi * d;
        const T h = d + mu;
        total += -0.5 * (h + y2[t] * exp(-h)) - 0.5 * v[3 + t] * v[3 + t];
    }
    return total;
};

bench_case stochastic_volatility_case() {
    return {"stochastic_volatility",
            powers_of_4,
            [](std::span<const double> x) { return volatility_loop(x, x); },
            [](std::span<const double> x, std::vector<double>& g) {
                const std::size_t n = x.size() - 3;
                const auto& y2 = volatility_data_for(n);
                const double mu = x[0], phi = x[1], sigma = x[2];
                const auto z = x.subspan(3);
                const double s = std::sqrt(1 - phi * phi);
                // Forward: keep each state; backward: one pass carrying d's adjoint.
                static thread_local std::vector<double> d;
                d.resize(n);
                double total = -std::log1p(square(sigma / 5)) - std::log1p(square(mu / 10)) -
                               double(n) * log_two_pi;
                for (std::size_t t = 0; t < n; ++t) {
                    d[t] = t == 0 ? sigma * z[0] / s : sigma * z[t] + phi * d[t - 1];
                    const double h = d[t] + mu;
                    total += -0.5 * (h + y2[t] * std::exp(-h)) - 0.5 * z[t] * z[t];
                }
                double dmu = -(mu / 50) / (1 + square(mu / 10));
                double dsigma = -(2 * sigma / 25) / (1 + square(sigma / 5)), dphi = 0, a = 0;
                for (std::size_t t = n; t-- > 0;) {
                    const double dh = -0.5 + 0.5 * y2[t] * std::exp(-(d[t] + mu));
                    dmu += dh;
                    a = dh + phi * a;
                    if (t > 0) {
                        dphi += a * d[t - 1];
                        dsigma += a * z[t];
                        g[3 + t] = a * sigma - z[t];
                    } else {
                        dphi += a * d[0] * phi / (s * s);
                        dsigma += a * z[0] / s;
                        g[3] = a * sigma / s - z[0];
                    }
                }
                g[0] = dmu;
                g[1] = dphi;
                g[2] = dsigma;
                return total;
            },
            [](std::span<const double> x, std::vector<double>& g) {
                const std::size_t n = x.size() - 3;
                const auto& y2 = volatility_data_for(n);
                const auto f = [&y2](auto mu, auto phi, auto sigma, auto h_std) {
                    const double count = static_cast<double>(zg::size(h_std));
                    auto d = zg::scan(
                        sigma * h_std, [&](auto d0) { return d0 / sqrt(1 - square(phi)); },
                        [&](auto previous, auto dt) { return dt + phi * previous; });
                    auto h = d + mu;
                    return -0.5 * zg::sum(h + y2 * exp(-h)) - 0.5 * zg::dot(h_std, h_std) -
                           log1p(square(sigma / 5)) - log1p(square(mu / 10)) - count * log_two_pi;
                };
                auto result = zg::value_and_grad(f, x[0], x[1], x[2], x.subspan(3));
                return flatten(result, g, x.size());
            },
            [](std::span<const double> x, std::vector<double>& g) {
                const std::size_t n = x.size() - 3;
                const auto& y2 = volatility_data_for(n);
                const auto f = [&y2](zg::var mu, zg::var phi, zg::var sigma,
                                     std::span<const zg::var> z) {
                    zg::var total = -log1p(square(sigma / 5)) - log1p(square(mu / 10)) -
                                    double(z.size()) * log_two_pi;
                    zg::var d = sigma * z[0] / sqrt(1 - square(phi));
                    for (std::size_t t = 0; t < z.size(); ++t) {
                        if (t > 0) d = sigma * z[t] + phi * d;
                        const zg::var h = d + mu;
                        total += -0.5 * (h + y2[t] * exp(-h)) - 0.5 * square(z[t]);
                    }
                    return total;
                };
                auto result = recorded_value_and_grad(f, x[0], x[1], x[2], x.subspan(3));
                return flatten(result, g, x.size());
            },
            nullptr,
            volatility_point};
}

/// The same case written as a scalar loop in tape mode (sum_iter, prod_iter), as a user of a
/// tape without vector reductions writes it. Expression mode has no runtime loop: its loop form
/// is the reduction itself, so `expr` is the vectorized case's.
template <class Loop>
bench_case as_loop(std::string name, const bench_case& vectorized, Loop loop) {
    bench_case c = vectorized;
    c.name = std::move(name);
    c.tape = [loop](std::span<const double> x, std::vector<double>& g) {
        return unpack(
            recorded_value_and_grad([&](std::span<const zg::var> v) { return loop(v, x); }, x), g);
    };
    return c;
}

// ---- Matrix product: x holds two k-by-k matrices A and B (row-major, A first); f is the sum of
// all entries of A B. Benchmarks are named by k.

std::vector<double> matrix_point(std::size_t k) {
    std::vector<double> x(2 * k * k);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = in_unit(i);
    return x;
}

const auto matrix_product_loop = [](auto v, std::span<const double>) {
    using T = typename decltype(v)::value_type;
    const std::size_t k = std::size_t(std::lround(std::sqrt(double(v.size() / 2))));
    const auto a = v.first(k * k), b = v.subspan(k * k);
    T total = 0.0;
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = 0; j < k; ++j) {
            T entry = 0.0;
            for (std::size_t l = 0; l < k; ++l)
                entry += a[i * k + l] * b[l * k + j];
            total += entry;
        }
    return total;
};

bench_case matrix_product_case() {
    bench_case c{
        "matrix_product",
        {1, 2, 4, 8, 16, 32, 64, 128},
        [](std::span<const double> x) { return matrix_product_loop(x, x); },
        // The adjoint of C = A B with every entry's adjoint 1: dA = 1 B^T (each row of
        // dA holds B's row sums), dB = A^T 1 (each column of dB holds A's column sums).
        [](std::span<const double> x, std::vector<double>& g) {
            const double value = matrix_product_loop(x, x);
            const auto k = std::size_t(std::lround(std::sqrt(double(x.size() / 2))));
            const auto a = x.first(k * k), b = x.subspan(k * k);
            for (std::size_t l = 0; l < k; ++l) {
                double row_of_b = 0, column_of_a = 0;
                for (std::size_t m = 0; m < k; ++m) {
                    row_of_b += b[l * k + m];
                    column_of_a += a[m * k + l];
                }
                for (std::size_t m = 0; m < k; ++m) {
                    g[m * k + l] = row_of_b;            // dA[m][l]
                    g[k * k + l * k + m] = column_of_a; // dB[l][m]
                }
            }
            return value;
        },
        nullptr, // expression mode has no matrices (yet)
        [](std::span<const double> x, std::vector<double>& g) {
            return unpack(
                recorded_value_and_grad(
                    [&](std::span<const zg::var> v) { return matrix_product_loop(v, x); }, x),
                g);
        },
        nullptr,
        matrix_point};
    return c;
}

std::vector<bench_case> make_cases() {
    const std::vector<std::size_t>& sizes = powers_of_4;
    std::vector<bench_case> cases;

    cases.push_back({"sum", sizes, [](std::span<const double> x) { return sum_loop(x, x); },
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
                             recorded_value_and_grad([](auto v) { return zg::sum(v); }, x), g);
                     },
                     in_unit});
    add_loop_modes(cases.back(), sum_loop);
    cases.push_back(as_loop("sum_iter", cases.back(), sum_loop));

    cases.push_back(
        {"prod", sizes, [](std::span<const double> x) { return prod_loop(x, x); },
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
             return unpack(zg::value_and_grad([](auto v) { return zg::prod(v); }, x), g);
         },
         [](std::span<const double> x, std::vector<double>& g) {
             return unpack(recorded_value_and_grad([](auto v) { return zg::prod(v); }, x), g);
         },
         near_one});
    add_loop_modes(cases.back(), prod_loop);
    cases.push_back(as_loop("prod_iter", cases.back(), prod_loop));

    cases.push_back(
        {"log_sum_exp", sizes, [](std::span<const double> x) { return log_sum_exp_loop(x, x); },
         [](std::span<const double> x, std::vector<double>& g) {
             double m = -INFINITY, s = 0;
             for (double xi : x)
                 m = std::max(m, xi);
             for (std::size_t i = 0; i < x.size(); ++i)
                 s += g[i] = std::exp(x[i] - m);
             for (double& gi : g)
                 gi /= s;
             return m + std::log(s);
         },
         [](std::span<const double> x, std::vector<double>& g) {
             return unpack(zg::value_and_grad([](auto v) { return zg::log_sum_exp(v); }, x), g);
         },
         [](std::span<const double> x, std::vector<double>& g) {
             return unpack(recorded_value_and_grad([](auto v) { return zg::log_sum_exp(v); }, x),
                           g);
         },
         in_unit});
    add_loop_modes(cases.back(), log_sum_exp_loop);

    const auto normal_term = [](auto y) {
        return -0.5 * square((y - normal_mu) / normal_sigma) + normal_constant;
    };
    cases.push_back(
        {"normal_log_pdf", sizes,
         [](std::span<const double> y) { return normal_log_pdf_loop(y, y); },
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
                 recorded_value_and_grad([&](auto v) { return zg::sum(v, normal_term); }, y), g);
         },
         in_unit});
    add_loop_modes(cases.back(), normal_log_pdf_loop);

    cases.push_back({"pair_sin",
                     {2, 4, 16, 64, 256, 1024, 4096, 16384},
                     [](std::span<const double> x) { return pair_sin_loop(x, x); },
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
                                               return zg::sum(head * zg::slice(v, 1, n - 1) +
                                                              sin(head));
                                           },
                                           x),
                                       g);
                     },
                     [](std::span<const double> x, std::vector<double>& g) {
                         return unpack(recorded_value_and_grad(
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
    add_loop_modes(cases.back(), pair_sin_loop);
    // Recording 2 n nodes per row of X: the peers stop at n = 1,024 (2 million operations).
    cases.push_back(regression_case());
    add_loop_modes(cases.back(), regression_loop, 1024);
    cases.push_back(stochastic_volatility_case());
    add_loop_modes(cases.back(), volatility_loop);
    // k^3 multiply-adds: the peers stop at k = 64.
    cases.push_back(matrix_product_case());
    add_loop_modes(cases.back(), matrix_product_loop, 64);
    return cases;
}

// ---- A likelihood by its parameters: sum_i ((y_i - mu) / sigma)^2 / 2 + log(sigma) over n data
// points, by (mu, sigma) alone. The hand-written gradient hoists what does not depend on the
// point (1 / sigma, log sigma) out of its loop; the modes are written as their users write them.

/// n data points, made once per n and kept.
const std::vector<double>& likelihood_data_for(std::size_t n) {
    static std::map<std::size_t, std::vector<double>> made;
    auto [it, fresh] = made.try_emplace(n);
    if (fresh)
        for (std::size_t i = 0; i < n; ++i)
            it->second.push_back(0.4 + 1.3 * std::sin(0.73 * double(i) + 0.4));
    return it->second;
}

std::vector<bench::sized_case> likelihood_cases() {
    std::vector<bench::sized_case> cases;
    for (std::size_t n : powers_of_4) {
        const std::vector<double>& y = likelihood_data_for(n);
        const auto density = [&y](auto mu, auto sigma) {
            return zg::sum(y,
                           [&](auto yi) { return 0.5 * square((yi - mu) / sigma) + log(sigma); });
        };
        const auto loop = [&y](auto v, std::span<const double>) {
            using std::log;
            using T = typename decltype(v)::value_type;
            T total = 0.0;
            for (double yi : y) {
                const T z = (yi - v[0]) / v[1];
                total += 0.5 * z * z + log(v[1]);
            }
            return total;
        };
        bench::sized_case c{"likelihood",
                            n,
                            {0.3, 1.4},
                            [loop](std::span<const double> x) { return loop(x, x); },
                            [&y](std::span<const double> x, std::vector<double>& g) {
                                const double mu = x[0], inverse = 1 / x[1];
                                double centered = 0, squares = 0;
                                for (double yi : y) {
                                    centered += yi - mu;
                                    squares += (yi - mu) * (yi - mu);
                                }
                                const double count = double(y.size());
                                g[0] = -inverse * inverse * centered;
                                g[1] = -inverse * inverse * inverse * squares + count * inverse;
                                return 0.5 * inverse * inverse * squares + count * std::log(x[1]);
                            },
                            {}};
        const auto pack = [](const auto& result, std::vector<double>& g) {
            g.assign(result.grad.begin(), result.grad.end());
            return result.value;
        };
        c.modes.push_back(
            {"expr", [density, pack](std::span<const double> x, std::vector<double>& g) {
                 return pack(zg::value_and_grad(density, x[0], x[1]), g);
             }});
        c.modes.push_back(
            {"tape", [density, pack](std::span<const double> x, std::vector<double>& g) {
                 return pack(recorded_value_and_grad(density, x[0], x[1]), g);
             }});
        c.modes.push_back({"forward", [loop](std::span<const double> x, std::vector<double>& g) {
                               return unpack(
                                   zg::fwd::value_and_grad(
                                       [&](std::span<const zg::dual> v) { return loop(v, x); }, x),
                                   g);
                           }});
        bench::add_peers(c.modes, loop);
        cases.push_back(std::move(c));
    }
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

const auto small_arithmetic_let = [](auto a, auto b, auto c, auto d) {
    const auto p = zg::let(((a * b + c) * d - a) * (b - c * d) + 3.0 * a * a);
    const auto q = zg::let((a + b) * (c + d) / (1.0 + a * a + b * b) - (a - d) * (b + c));
    return p * q + (p - q) / (2.0 + q * q) + a * b * c * d - 0.5 * (p + q) * (a - b);
};

/// Functions of two and three numbers, with their gradients by hand: what expression mode must do
/// at the cost of the hand-written adjoint, called millions of times in an optimizer's loop.
const auto rosenbrock_2d = [](auto x, auto y) { return 100.0 * square(y - x * x) + square(1.0 - x); };
const auto rosenbrock_2d_gradient = [](std::array<double, 2> v) {
    const double x = v[0], y = v[1], d = y - x * x;
    return std::array{-400 * d * x - 2 * (1 - x), 200 * d};
};
const auto three_inputs = [](auto x, auto y, auto z) { return x * y * z + sin(x * y) + exp(z * x); };
const auto three_inputs_gradient = [](std::array<double, 3> v) {
    const double x = v[0], y = v[1], z = v[2], c = std::cos(x * y), e = std::exp(z * x);
    return std::array{y * z + c * y + e * z, x * z + c * x, x * y + e * x};
};
const auto product = [](auto x, auto y) { return x * y; };
const auto product_gradient = [](std::array<double, 2> v) { return std::array{v[1], v[0]}; };

/// suite/<name>/{hand,expr,tape}/<N>: the gradient of f at x (zg::grad, which returns a
/// std::array), against `hand`, after checking that they agree.
template <class F, class Hand, std::size_t N>
void register_small_gradient(const std::string& name, F f, Hand hand, std::array<double, N> x) {
    const auto expr = zg::grad(f, x);
    const auto by_hand = hand(x);
    for (std::size_t i = 0; i < N; ++i)
        if (!(std::abs(by_hand[i] - expr[i]) <= 1e-12 * std::max(1.0, std::abs(by_hand[i])))) {
            std::fprintf(stderr, "suite/%s: expression mode disagrees with the gradient by hand\n",
                         name.c_str());
            std::exit(1);
        }
    const std::string n = std::to_string(N);
    benchmark::RegisterBenchmark(("suite/" + name + "/hand/" + n).c_str(),
                                 [x, hand](benchmark::State& state) {
                                     for (auto _ : state) {
                                         auto y = x;
                                         benchmark::DoNotOptimize(y);
                                         benchmark::DoNotOptimize(hand(y));
                                     }
                                 });
    benchmark::RegisterBenchmark(("suite/" + name + "/expr/" + n).c_str(),
                                 [x, f](benchmark::State& state) {
                                     for (auto _ : state) {
                                         auto y = x;
                                         benchmark::DoNotOptimize(y);
                                         benchmark::DoNotOptimize(zg::grad(f, y));
                                     }
                                 });
    benchmark::RegisterBenchmark(("suite/" + name + "/tape/" + n).c_str(),
                                 [x, f](benchmark::State& state) {
                                     for (auto _ : state) {
                                         auto y = x;
                                         benchmark::DoNotOptimize(y);
                                         benchmark::DoNotOptimize(zg::tape::grad(f, y));
                                     }
                                 });
}

/// A classic case at each of its sizes, with the modes that run there.
void expand(const bench_case& c, std::vector<bench::sized_case>& out) {
    for (std::size_t n : c.sizes) {
        bench::sized_case sized{c.name, n, make_point(c, n), c.plain, c.hand, {}};
        if (c.expr) sized.modes.push_back({"expr", c.expr});
        sized.modes.push_back({"tape", c.tape});
        for (const extra_mode& m : c.extra)
            if (n <= m.max_n && sized.x.size() <= m.max_inputs)
                sized.modes.push_back({m.name, m.run, m.tolerance});
        out.push_back(std::move(sized));
    }
}

template <class F>
void register_small(const std::string& name, F f) {
    const std::array<double, 4> x{0.3, -0.7, 1.1, 0.4};
    const auto expr = zg::value_and_grad(f, x);
    const auto tape = recorded_value_and_grad(f, x);
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!(std::abs(tape.grad[i] - expr.grad[i]) <=
              1e-10 * std::max(1.0, std::abs(expr.grad[i])))) {
            std::fprintf(stderr, "suite/%s: tape mode disagrees with expression mode\n",
                         name.c_str());
            std::exit(1);
        }
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
                                         benchmark::DoNotOptimize(recorded_value_and_grad(f, y));
                                     }
                                 });
}

} // namespace

int main(int argc, char** argv) {
    std::vector<bench_case> classic = make_cases();
#ifdef ZG_HAVE_LIBTORCH
    const torch_data data{normal_mu, normal_sigma, normal_constant, regression_data_for,
                          volatility_data_for};
    auto torch_modes = libtorch_modes(data);
    for (bench_case& c : classic)
        if (auto mode = torch_modes.find(c.name); mode != torch_modes.end())
            // stochastic_volatility runs one small torch operation per time step: up to 4,096.
            c.extra.push_back({"libtorch", mode->second,
                               c.name == "stochastic_volatility" ? 4096 : c.sizes.back(), 1e-10});
#endif
    std::vector<bench::sized_case> cases;
    for (const bench_case& c : classic)
        expand(c, cases);
    for (auto* more : {likelihood_cases, bench::gmm_cases, bench::ba_cases, bench::lstm_cases,
                       bench::everyday_cases})
        for (bench::sized_case& c : more())
            cases.push_back(std::move(c));
    const std::string probe = "--memory_probe=";
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--check") return bench::check_cases(std::move(cases));
        if (argument.starts_with(probe))
            return bench::probe_memory(cases, argument.substr(probe.size()));
    }
    bench::register_cases(std::move(cases));
    register_small_gradient("rosenbrock_2d", rosenbrock_2d, rosenbrock_2d_gradient,
                            std::array{1.2, 0.8});
    register_small_gradient("three_inputs", three_inputs, three_inputs_gradient,
                            std::array{1.2, 0.8, -0.3});
    register_small_gradient("product", product, product_gradient, std::array{1.2, 0.8});
    register_small("small_expression", small_expression);
    register_small("small_arithmetic", small_arithmetic);
    register_small("small_arithmetic_let", small_arithmetic_let);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
