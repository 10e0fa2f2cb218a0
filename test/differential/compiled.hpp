// test/differential/compiled.hpp: the check run on each generated program (see codegen.cpp):
// expression mode, tape mode and forward mode differentiate the same compiled lambda, and tape
// mode differentiates the interpreted program it was printed from.
#pragma once

#include "differential/program.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <tuple>

namespace differential {

struct checker {
    long programs = 0, failures = 0;

    template <class F, std::size_t N>
    void operator()(std::uint64_t seed, std::uint64_t index, F f,
                    const std::array<double, N>& literal) {
        ++programs;
        // The point passes through volatile memory, so that no mode is folded at compile time
        // for these literal inputs.
        std::array<double, N> x;
        for (std::size_t k = 0; k < N; ++k) {
            volatile double opaque = literal[k];
            x[k] = opaque;
        }
        zg::tape::scope program_scope;
        const auto on = [&](auto mode) {
            return std::apply([&](auto... v) { return mode(f, v...); }, x);
        };
        const auto expr = on([](auto g, auto... v) { return zg::value_and_grad(g, v...); });
        const auto tape = on([](auto g, auto... v) { return zg::tape::value_and_grad(g, v...); });
        const auto forward = on([](auto g, auto... v) { return zg::fwd::value_and_grad(g, v...); });
        const program p = generate(seed, index);
        const auto interpreted = zg::tape::value_and_grad(
            [&p](auto inputs) { return evaluate(p, inputs); }, p.point);
        const auto& interpreted_grad = std::get<0>(interpreted.grad);

        bool ok = true;
        const auto expect = [&](bool agree, const char* what, std::size_t k, double a, double b) {
            if (agree) return;
            if (ok)
                std::printf("DISAGREEMENT (seed %llu, program %llu): %s, input %zu: %.17g and "
                            "%.17g\n    const auto f = %s;\n    const std::array x = %s;\n\n",
                            (unsigned long long)seed, (unsigned long long)index, what, k, a, b,
                            print(p).c_str(), print_point(p).c_str());
            ok = false;
        };
        // Every mode evaluates the same rules in the same order, so values agree to the last bit
        // or two: an optimizer may still fold a branch that ends in constants (min(x, -1.75)
        // when that is -1.75) at compile time, where cbrt or expm1 round differently from the C
        // library the other modes call.
        expect(close(expr.value, tape.value, 1e-15), "value, expression and tape mode", 0,
               expr.value, tape.value);
        expect(close(forward.value, tape.value, 1e-15), "value, forward and tape mode", 0,
               forward.value, tape.value);
        expect(close(interpreted.value, tape.value, 1e-15), "value, interpreted and compiled", 0,
               interpreted.value, tape.value);
        // The same partials, summed in different orders: equal up to rounding.
        for (std::size_t k = 0; k < N; ++k) {
            expect(close(expr.grad[k], tape.grad[k], 1e-11), "gradient, expression and tape mode",
                   k, expr.grad[k], tape.grad[k]);
            expect(close(forward.grad[k], tape.grad[k], 1e-11), "gradient, forward and tape mode",
                   k, forward.grad[k], tape.grad[k]);
            expect(close(interpreted_grad[k], tape.grad[k], 1e-11),
                   "gradient, interpreted and compiled", k, interpreted_grad[k], tape.grad[k]);
        }
        if (!ok) ++failures;
    }
};

void run_part_0(checker&);
void run_part_1(checker&);
void run_part_2(checker&);
void run_part_3(checker&);

} // namespace differential
