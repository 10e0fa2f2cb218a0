// The cost of a full gradient of f: R^n -> R by forward mode (n evaluations on duals) and by
// reverse mode (one recording, one sweep), for n = 1 to 10,000, in evaluations of f. Writes
// forward_vs_reverse.csv (docs/images/plot.py draws it) into the directory given as the first
// argument (default: the current one); the timings go there and to stderr, since they change
// from run to run, and stdout says only what was written and whether the gradients agree.
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace {

/// f(x) = sum_i sin(x_i) + x_i x_{i+1}: every input matters, and the cost is linear in n.
template <class T>
T f(std::span<const T> x) {
    using std::sin; // for T = double; zerograd's scalars bring their own
    T total = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        total += sin(x[i]);
        if (i + 1 < x.size()) total += x[i] * x[i + 1];
    }
    return total;
}

/// Keeps the compiler from dropping or hoisting a computation whose result is unused (the
/// barrier Google Benchmark's DoNotOptimize uses).
template <class T>
void keep(const T& value) {
    __asm__ __volatile__("" : : "r,m"(value) : "memory");
}

/// Nanoseconds per call of `run`: batches double in size until one takes at least 10 ms, and
/// the best of five such batches counts (a call that alone takes longer runs once).
template <class Run>
double nanoseconds_per_call(Run run) {
    using clock = std::chrono::steady_clock;
    const auto time_batch = [&](long calls) {
        const auto start = clock::now();
        for (long i = 0; i < calls; ++i)
            keep(run());
        return std::chrono::duration<double, std::nano>(clock::now() - start).count();
    };
    long calls = 1;
    double elapsed = time_batch(calls);
    if (elapsed >= 1e7) return elapsed;
    while (elapsed < 1e7) {
        calls *= 2;
        elapsed = time_batch(calls);
    }
    for (int repeat = 0; repeat < 4; ++repeat)
        elapsed = std::min(elapsed, time_batch(calls));
    return elapsed / double(calls);
}

struct measurement {
    std::size_t n;
    double f_ns, forward_ns, reverse_ns;
};

} // namespace

int main(int argc, char** argv) {
    const std::string directory = argc > 1 ? std::string(argv[1]) + "/" : "";
    const std::vector<std::size_t> sizes{1,   2,    3,    5,    7,    10,   15,   20,
                                         30,  50,   70,   100,  150,  200,  300,  500,
                                         700, 1000, 1500, 2000, 3000, 5000, 7000, 10000};
    std::vector<measurement> rows;
    bool agree = true;
    for (std::size_t n : sizes) {
        std::vector<double> x(n);
        for (std::size_t i = 0; i < n; ++i)
            x[i] = std::sin(0.37 * double(i)) * 0.9;
        // The timed calls keep their last gradient, so that the two can be compared.
        zg::gradient_t<std::vector<double>> forward, reverse;
        measurement m{n, 0, 0, 0};
        m.f_ns = nanoseconds_per_call([&] { return f<double>(x); });
        m.forward_ns = nanoseconds_per_call([&] {
            forward = zg::fwd::grad(f<zg::dual>, x);
            return std::get<0>(forward)[0];
        });
        m.reverse_ns = nanoseconds_per_call([&] {
            reverse = zg::tape::grad(f<zg::var>, x);
            return std::get<0>(reverse)[0];
        });
        for (std::size_t i = 0; i < n; ++i)
            agree = agree && std::abs(std::get<0>(forward)[i] - std::get<0>(reverse)[i]) <=
                                 1e-12 * std::max(1.0, std::abs(std::get<0>(reverse)[i]));
        std::fprintf(
            stderr,
            "n = %5zu: f %12.0f ns, forward %14.0f ns (%9.1f f), reverse %10.0f ns (%5.1f f)\n", n,
            m.f_ns, m.forward_ns, m.forward_ns / m.f_ns, m.reverse_ns, m.reverse_ns / m.f_ns);
        rows.push_back(m);
    }

    std::ofstream csv(directory + "forward_vs_reverse.csv");
    csv << "n,f_ns,forward_ns,reverse_ns,forward_over_f,reverse_over_f\n";
    for (const auto& r : rows)
        csv << r.n << ',' << r.f_ns << ',' << r.forward_ns << ',' << r.reverse_ns << ','
            << r.forward_ns / r.f_ns << ',' << r.reverse_ns / r.f_ns << '\n';

    std::printf("measured the gradient of f: R^n -> R at %zu sizes, n = 1 to 10000\n", rows.size());
    std::printf("forward and reverse gradients agree to 1e-12 at every size: %s\n",
                agree ? "yes" : "no");
    std::printf("wrote forward_vs_reverse.csv\n");
    return agree ? 0 : 1;
}
