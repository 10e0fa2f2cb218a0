// test/differential/runtime.cpp: differential testing of tape mode, forward mode and finite
// differences on random programs (test/differential/program.hpp). Every program's value must be
// the same in every mode, its gradient by tape mode and by forward mode must agree to rounding,
// and both must agree with central differences wherever those are reliable.
//
//   differential_runtime [--count N] [--seed S] [--first I]
//
// meson test runs 100,000 programs; `--count 10000000` is the long run. A disagreement prints the
// program as a lambda, its point and the values, ready to paste into a regression test.
#include "differential/program.hpp"

#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace {

using differential::close;

double plain_value(const differential::program& p, std::span<const double> x) {
    return differential::evaluate<double>(p, x);
}

/// d f / d x_k by the five-point central difference with step h.
double central_difference(const differential::program& p, std::size_t k, double h) {
    std::vector<double> x = p.point;
    const auto at = [&](double offset) {
        x[k] = p.point[k] + offset;
        return plain_value(p, x);
    };
    return (8 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12 * h);
}

struct tally {
    long programs = 0, nodes = 0, fd_compared = 0, fd_unreliable = 0, failures = 0;
};

void report(const differential::program& p, std::uint64_t seed, std::uint64_t index,
            const std::string& what, std::size_t k, double a, double b, const char* a_name,
            const char* b_name) {
    std::printf("DISAGREEMENT (seed %llu, program %llu): %s, input %zu: %s %.17g, %s %.17g\n",
                (unsigned long long)seed, (unsigned long long)index, what.c_str(), k, a_name, a,
                b_name, b);
    std::printf("    const auto f = %s;\n", differential::print(p).c_str());
    std::printf("    const std::vector<double> x = %s;\n\n", differential::print_point(p).c_str());
}

void check(std::uint64_t seed, std::uint64_t index, tally& count) {
    const differential::program p = differential::generate(seed, index);
    ++count.programs;
    count.nodes += long(p.nodes.size());
    const std::size_t n = p.point.size();
    const auto program_on = [&p](auto inputs) { return differential::evaluate(p, inputs); };

    const double value = plain_value(p, p.point);
    const auto taped = zg::tape::value_and_grad(program_on, p.point);
    const auto forward = zg::fwd::value_and_grad(program_on, p.point);
    const std::vector<double>& tape_grad = std::get<0>(taped.grad);
    const std::vector<double>& forward_grad = std::get<0>(forward.grad);

    bool ok = true;
    const auto expect = [&](bool agree, const std::string& what, std::size_t k, double a,
                            double b, const char* a_name, const char* b_name) {
        if (agree) return;
        if (ok) report(p, seed, index, what, k, a, b, a_name, b_name);
        ok = false;
    };
    // The value comes from the same rules in every mode: equal to the last bit.
    expect(taped.value == value, "value", 0, taped.value, value, "tape", "double");
    expect(forward.value == value, "value", 0, forward.value, value, "forward", "double");
    for (std::size_t k = 0; k < n; ++k) {
        // Same partials, summed in a different order: equal up to rounding.
        expect(close(tape_grad[k], forward_grad[k], 1e-11), "gradient", k, tape_grad[k],
               forward_grad[k], "tape", "forward");
        // Central differences, where steps of 1e-4, 1e-5 and 1e-6 agree with one another: a
        // kink of min, max, abs or relu within reach of a step, or steep curvature, would make
        // them wrong, and then they disagree.
        const double h = 1e-4 * std::max(1.0, std::abs(p.point[k]));
        const double coarse = central_difference(p, k, h), mid = central_difference(p, k, h / 10),
                     fine = central_difference(p, k, h / 100);
        if (!close(coarse, mid, 1e-6) || !close(mid, fine, 1e-6)) {
            ++count.fd_unreliable;
            continue;
        }
        ++count.fd_compared;
        expect(close(tape_grad[k], mid, 1e-6), "finite differences", k, tape_grad[k], mid,
               "tape", "central difference");
    }
    if (!ok) ++count.failures;
}

} // namespace

int main(int argc, char** argv) {
    std::uint64_t count = 20'000, seed = 1, first = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const auto value = std::strtoull(argv[i + 1], nullptr, 10);
        if (std::strcmp(argv[i], "--count") == 0)
            count = value;
        else if (std::strcmp(argv[i], "--seed") == 0)
            seed = value;
        else if (std::strcmp(argv[i], "--first") == 0)
            first = value;
        else {
            std::fprintf(stderr, "usage: %s [--count N] [--seed S] [--first I]\n", argv[0]);
            return 2;
        }
    }
    tally total;
    for (std::uint64_t index = first; index < first + count; ++index) {
        zg::tape::scope program_scope;
        check(seed, index, total);
    }
    std::printf("programs: %ld (seed %llu, %ld nodes in all); tape and forward mode compared on "
                "every gradient; finite differences on %ld gradient entries (%ld skipped where "
                "three step sizes disagree); disagreements: %ld\n",
                total.programs, (unsigned long long)seed, total.nodes, total.fd_compared,
                total.fd_unreliable, total.failures);
    return total.failures == 0 ? 0 : 1;
}
