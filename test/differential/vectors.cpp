// Differential testing of the reductions: programs over a vector (test/differential/vectors.hpp)
// with named intermediates used several times, on inputs with 0, infinities, NaN and empty
// vectors, through expression mode, tape mode, forward mode and (where the program has only
// sums and dots) tensors. Tape and forward mode must agree on the value to the bit; every mode's
// value must agree with the tape's (NaN where it has NaN, the same infinity where it has one,
// to a relative 1e-13 elsewhere), and so must every gradient entry: finite where the tape's is,
// and then to a relative 1e-11 (forward mode's only where the value is not NaN). The shapes are
// seeds SHAPES_FIRST to
// SHAPES_FIRST + SHAPES - 1 (set by test/differential/meson.build, one slice per program).
#include "differential/vectors.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>
#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace differential::vectors;

template <std::uint64_t Seed>
inline constexpr shape shape_of = make_shape(Seed);

/// Tensors have sums; a dot is the sum of the product.
struct tensor_reductions {
    static zg::tensor sum(const zg::tensor& v) { return zg::sum(v); }
    static zg::tensor dot(const zg::tensor& v, const zg::tensor& w) { return zg::sum(v * w); }
    static zg::tensor prod(const zg::tensor& v) { return v; } // never built: sums_only
    static zg::tensor log_sum_exp(const zg::tensor& v) { return v; }
};

/// Values: both NaN, the same infinity, or equal to `tolerance` (0: to the bit).
bool agree(double a, double b, double tolerance) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

/// Gradient entries: both finite and equal to a relative 1e-11, or both infinite or NaN. Where
/// infinities meet, the order of accumulation decides between them: reverse mode adds inf and
/// -inf adjoints (NaN) where forward mode scales a finite difference of tangents by inf.
bool gradients_agree(double a, double b) {
    if (!std::isfinite(a) || !std::isfinite(b)) return !std::isfinite(a) && !std::isfinite(b);
    return agree(a, b, 1e-11);
}

std::string text(const std::vector<double>& x) {
    std::ostringstream out;
    out.precision(17);
    out << '{';
    for (std::size_t k = 0; k < x.size(); ++k)
        out << (k ? ", " : "") << x[k];
    out << '}';
    return out.str();
}

struct tally {
    long programs = 0, tensor_programs = 0, disagreements = 0;
};

void compare(const char* mode, double value, const std::vector<double>& gradient, double tape_value,
             const std::vector<double>& tape_gradient, double tolerance, const shape& s,
             const std::vector<double>& x, tally& counts) {
    bool same = agree(value, tape_value, tolerance) && gradient.size() == tape_gradient.size();
    for (std::size_t k = 0; same && k < gradient.size(); ++k)
        same = gradients_agree(gradient[k], tape_gradient[k]);
    if (same) return;
    if (++counts.disagreements <= 5) {
        std::ostringstream report;
        report.precision(17);
        report << "DISAGREEMENT: " << mode << " against tape mode\n    " << describe(s)
               << "\n    x = " << text(x) << "\n    value " << value << " against " << tape_value
               << ", gradient " << text(gradient) << " against " << text(tape_gradient);
        FAIL_CHECK(report.str());
    }
}

template <std::uint64_t Seed>
void run_shape(int inputs, tally& counts) {
    static constexpr const shape& s = shape_of<Seed>;
    const auto f = [](auto x) { return build<s>(x); };
    differential::random rng(Seed * 1000003 + 17);
    for (int i = 0; i < inputs; ++i) {
        const std::vector<double> x = draw_input(rng);
        ++counts.programs;
        const auto tape = zg::tape::value_and_grad(f, x);
        const std::vector<double>& tape_gradient = std::get<0>(tape.grad);
        const auto forward = zg::fwd::value_and_grad(f, x);
        // At a NaN value forward mode's gradient is not compared: a tangent that cancels to
        // exactly 0 passes nothing through NaN, where the adjoint of the NaN does.
        compare("forward mode", forward.value,
                std::isnan(tape.value) ? tape_gradient : std::get<0>(forward.grad), tape.value,
                tape_gradient, 0, s, x, counts);
        const auto expr = zg::value_and_grad(f, x);
        compare("expression mode", expr.value, std::get<0>(expr.grad), tape.value, tape_gradient,
                1e-13, s, x, counts);
        if constexpr (sums_only(s)) {
            ++counts.tensor_programs;
            const zg::tensor::scope step;
            const auto leaf = zg::tensor::from(x, {x.size()}, true);
            const zg::tensor y = build<s, tensor_reductions>(leaf);
            y.backward();
            const auto g = leaf.grad();
            compare("tensors", y.item(), std::vector<double>(g.begin(), g.end()), tape.value,
                    tape_gradient, 1e-13, s, x, counts);
        }
    }
}

template <std::uint64_t... Seeds>
void run_shapes(std::integer_sequence<std::uint64_t, Seeds...>, int inputs, tally& counts) {
    (run_shape<SHAPES_FIRST + Seeds>(inputs, counts), ...);
}

} // namespace

TEST_CASE("reductions over vectors agree in every mode, at infinities, NaN and empty vectors") {
    tally counts;
    run_shapes(std::make_integer_sequence<std::uint64_t, SHAPES>{}, INPUTS, counts);
    MESSAGE(counts.programs, " programs (", counts.tensor_programs, " also on tensors), ",
            counts.disagreements, " disagreements");
    CHECK(counts.disagreements == 0);
}
