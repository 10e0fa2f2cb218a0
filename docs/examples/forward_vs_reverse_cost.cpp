// The cost of a full gradient of f: R^n -> R by forward mode (n evaluations on duals) and by
// reverse mode (one recording, one sweep), for n = 1 to 10,000, in evaluations of f. Writes
// forward_vs_reverse.csv and forward_vs_reverse.svg into the directory given as the first
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

/// n where forward and reverse cost the same, interpolated in log-log between the last size
/// where forward was cheaper and the next; 0 if forward never was, or always was.
double crossover(const std::vector<measurement>& rows) {
    for (std::size_t k = 1; k < rows.size(); ++k) {
        const auto& a = rows[k - 1];
        const auto& b = rows[k];
        const double ga = std::log(a.forward_ns / a.reverse_ns);
        const double gb = std::log(b.forward_ns / b.reverse_ns);
        if (ga < 0 && gb >= 0) {
            const double t = ga / (ga - gb);
            return std::exp(std::log(double(a.n)) +
                            t * (std::log(double(b.n)) - std::log(double(a.n))));
        }
    }
    return 0;
}

std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
}

/// A power of ten with thousands separators: 10,000.
std::string tick(int decade) {
    std::string text;
    for (int d = decade; d >= 0; --d) {
        text += d == decade ? '1' : '0';
        if (d > 0 && d % 3 == 0) text += ',';
    }
    return text;
}

#if defined(__clang__)
const char* const compiler = "clang++ " __clang_version__;
#else
const char* const compiler = "g++ " __VERSION__;
#endif

/// A log-log plot of the cost of a gradient in evaluations of f, drawn by hand as SVG.
void write_svg(const std::string& path, const std::vector<measurement>& rows, double cross) {
    const double width = 760, height = 500, left = 80, right = 30, top = 60, bottom = 70;
    const double plot_w = width - left - right, plot_h = height - top - bottom;
    double y_max = 1;
    for (const auto& r : rows)
        y_max = std::max({y_max, r.forward_ns / r.f_ns, r.reverse_ns / r.f_ns});
    const int top_decade = int(std::ceil(std::log10(y_max)));
    const auto px = [&](double n) { return left + plot_w * std::log10(n) / 4; };
    const auto py = [&](double ratio) {
        return top + plot_h * (1 - std::log10(ratio) / top_decade);
    };
    std::ofstream out(path);
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << width / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">"
        << "Cost of the full gradient of f: R^n \u2192 R, in evaluations of f</text>\n";
    for (int d = 0; d <= 4; ++d) { // vertical grid: n = 1, 10, ..., 10,000
        const double x = px(std::pow(10.0, d));
        out << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\""
            << top + plot_h << "\" stroke=\"#ddd\"/>\n"
            << "<text x=\"" << x << "\" y=\"" << top + plot_h + 20 << "\" text-anchor=\"middle\">"
            << tick(d) << "</text>\n";
    }
    for (int d = 0; d <= top_decade; ++d) { // horizontal grid: 1, 10, 100, ... evaluations
        const double y = py(std::pow(10.0, d));
        out << "<line x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << left + plot_w << "\" y2=\""
            << y << "\" stroke=\"#ddd\"/>\n"
            << "<text x=\"" << left - 8 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">"
            << tick(d) << "</text>\n";
    }
    out << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\""
        << plot_h << "\" fill=\"none\" stroke=\"#333\"/>\n"
        << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << height - 25
        << "\" text-anchor=\"middle\">n (inputs)</text>\n"
        << "<text transform=\"translate(22," << top + plot_h / 2
        << ") rotate(-90)\" text-anchor=\"middle\">time of the gradient / time of f</text>\n";
    const auto polyline = [&](const char* colour, auto ratio) {
        out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
        for (const auto& r : rows)
            out << px(double(r.n)) << ',' << py(ratio(r)) << ' ';
        out << "\"/>\n";
        for (const auto& r : rows)
            out << "<circle cx=\"" << px(double(r.n)) << "\" cy=\"" << py(ratio(r))
                << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
    };
    polyline("#c0392b", [](const measurement& r) { return r.forward_ns / r.f_ns; });
    polyline("#2471a3", [](const measurement& r) { return r.reverse_ns / r.f_ns; });
    if (cross > 0) {
        const double x = px(cross);
        out << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\""
            << top + plot_h << "\" stroke=\"#555\" stroke-dasharray=\"5,4\"/>\n"
            << "<text x=\"" << x + 6 << "\" y=\"" << top + plot_h - 10 << "\">crossover n \u2248 "
            << number(std::round(cross * 10) / 10) << "</text>\n";
    }
    const double lx = left + 20, ly = top + 20;
    out << "<line x1=\"" << lx << "\" y1=\"" << ly << "\" x2=\"" << lx + 30 << "\" y2=\"" << ly
        << "\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << ly + 4
        << "\">forward (zg::fwd::grad): n evaluations on duals</text>\n"
        << "<line x1=\"" << lx << "\" y1=\"" << ly + 22 << "\" x2=\"" << lx + 30 << "\" y2=\""
        << ly + 22 << "\" stroke=\"#2471a3\" stroke-width=\"2\"/>\n"
        << "<text x=\"" << lx + 38 << "\" y=\"" << ly + 26
        << "\">reverse (zg::tape::grad): one recording, one sweep</text>\n"
        << "<text x=\"" << width - right << "\" y=\"" << height - 6
        << "\" text-anchor=\"end\" font-size=\"11\" fill=\"#666\">f(x) = \u03a3 sin x_i + "
           "x_i x_(i+1); docs/examples/forward_vs_reverse_cost.cpp, "
        << compiler << "</text>\n"
        << "</svg>\n";
}

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
    const double cross = crossover(rows);
    std::fprintf(stderr, "crossover: forward and reverse cost the same at n = %.1f\n", cross);

    std::ofstream csv(directory + "forward_vs_reverse.csv");
    csv << "n,f_ns,forward_ns,reverse_ns,forward_over_f,reverse_over_f\n";
    for (const auto& r : rows)
        csv << r.n << ',' << r.f_ns << ',' << r.forward_ns << ',' << r.reverse_ns << ','
            << r.forward_ns / r.f_ns << ',' << r.reverse_ns / r.f_ns << '\n';
    write_svg(directory + "forward_vs_reverse.svg", rows, cross);

    std::printf("measured the gradient of f: R^n -> R at %zu sizes, n = 1 to 10000\n", rows.size());
    std::printf("forward and reverse gradients agree to 1e-12 at every size: %s\n",
                agree ? "yes" : "no");
    std::printf("wrote forward_vs_reverse.csv and forward_vs_reverse.svg\n");
    return agree ? 0 : 1;
}
