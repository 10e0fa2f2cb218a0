// test/fuzz/tape.cpp: a libFuzzer target. Bytes decode into a tape program: leaves holding any
// double (NaN, infinities, huge, tiny, subnormal), every elementary operation on any earlier
// variable or a constant, reductions over up to 318 variables, compound assignment, backward
// sweeps, gradient reads and writes, zeroing, scopes opened and closed (so variables dangle),
// zg::tape::grad nested inside, and zg::to_dot. What may happen: zg::error (a dangling variable;
// zg::domain_error in checked builds). What may not: a crash, a sanitizer report, another
// exception, or a tape that is wrong after an error: the invariants below are checked after
// every step.
#include "reader.hpp"

#include <zerograd/tape.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

namespace {

using fuzz::broken;
using fuzz::pick;
using fuzz::reader;
using fuzz::sink;

using zg::var;

using ops = fuzz::operations<var>;

void run(reader& in) {
    auto& tape = zg::tape::this_thread_tape();
    const auto start = tape.size();
    // Scopes are heap objects so that closing one is explicit; each remembers the tape's size.
    std::vector<std::pair<std::unique_ptr<zg::tape::scope>, std::uint32_t>> scopes;
    std::vector<var> vars{var(1.0)};
    const auto any = [&]() -> var& { return vars[in.byte() % vars.size()]; };
    const auto keep = [&](var v) {
        if (vars.size() < 256)
            vars.push_back(v);
        else
            vars[in.byte() % vars.size()] = v;
    };

    for (int step = 0; step < 512 && !in.done(); ++step) {
        const auto size_before = tape.size();
        try {
            switch (in.byte() % 17) {
            case 0: keep(var(in.number())); break;
            case 1: keep(pick(ops::unary, in)(any())); break;
            case 2: {
                const var& l = any();
                keep(pick(ops::binary, in)(l, any()));
                break;
            }
            case 3: {
                const double c = in.number();
                keep(pick(ops::with_constant_right, in)(any(), c));
                break;
            }
            case 4: {
                const double c = in.number();
                keep(pick(ops::with_constant_left, in)(c, any()));
                break;
            }
            case 5: keep(pow(any(), int(in.byte() % 17) - 8)); break;
            case 6: any().backward(); break;
            case 7: {
                const var& v = any();
                sink = v.data() + v.grad();
                break;
            }
            case 8: any().grad() = in.number(); break;
            case 9: zg::tape::zero_grad(); break;
            case 10:
                if (scopes.size() < 8)
                    scopes.emplace_back(std::make_unique<zg::tape::scope>(), tape.size());
                break;
            case 11:
                if (!scopes.empty()) {
                    const auto mark = scopes.back().second;
                    scopes.pop_back();
                    if (tape.size() != mark) broken("a scope did not rewind to its mark");
                }
                break;
            case 12: {
                var& target = any();
                target += any();
                break;
            }
            case 13: {
                const double c = in.number(), x = in.number();
                const var& captured = any();
                const auto g = zg::tape::grad([&](auto a) { return a * captured + sin(a) * c; },
                                              x);
                sink = g[0];
                if (tape.size() != size_before) broken("zg::tape::grad left nodes behind");
                break;
            }
            case 14:
                if (tape.size() - start < 64) sink = double(zg::to_dot(any()).size());
                break;
            case 15: {
                const var& l = any();
                sink = (l < any()) ? 1.0 : 0.0;
                break;
            }
            case 16: {
                // A reduction over up to 318 variables: more than one node's 255 operands.
                const std::size_t count = in.byte() + in.byte() % 64;
                std::vector<var> range;
                for (std::size_t k = 0; k < count; ++k)
                    range.push_back(any());
                switch (in.byte() % 5) {
                case 0:
                    keep(zg::sum(range));
                    break;
                case 1:
                    keep(zg::prod(range));
                    break;
                case 2:
                    keep(zg::log_sum_exp(range));
                    break;
                case 3:
                    keep(zg::dot(range, range));
                    break;
                case 4: {
                    std::vector<double> weights(count);
                    for (double& w : weights)
                        w = in.number();
                    keep(zg::dot(weights, range));
                    break;
                }
                }
                break;
            }
            }
        } catch (const zg::error&) {
            // A dangling variable or, in checked builds, a domain error: the operation recorded
            // nothing, and everything else stays usable.
            if (tape.size() != size_before) broken("a failed operation left a node behind");
        }
    }
    while (!scopes.empty())
        scopes.pop_back();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto& tape = zg::tape::this_thread_tape();
    const zg::tape::scope input_scope(tape);
    reader in(data, size);
    run(in);
    return 0;
}
