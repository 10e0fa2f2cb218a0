// An exercise from a backpropagation-from-scratch tutorial: f(x, y, z) = x + y + z by forward mode
// (one sweep per input) and by reverse mode (one recording and one sweep for every input at once).
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <cstdio>
#include <vector>

int main() {
    const auto f = [](auto x, auto y, auto z) { return x + y + z; };
    const double x = 1, y = 2, z = 3;

    // Forward: a dual carries a value and its derivative by one chosen input. Seeding input k
    // with derivative 1 (the others 0) gives df/dk, one column of the 1 x 3 Jacobian per sweep.
    std::printf("forward mode: one sweep per input\n");
    const char* names[] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k) {
        const zg::dual dx(x, k == 0), dy(y, k == 1), dz(z, k == 2);
        const zg::dual result = f(dx, dy, dz);
        std::printf("  sweep %d: seed (%g, %g, %g) -> f = %g, df/d%s = %g\n", k + 1, dx.deriv,
                    dy.deriv, dz.deriv, result.value, names[k], result.deriv);
    }

    // Reverse: record f once, then one sweep back from f gives every partial: the Jacobian's
    // only row.
    auto& tape = zg::tape::this_thread_tape();
    const auto before = tape.size();
    zg::var vx = x, vy = y, vz = z;
    zg::var result = f(vx, vy, vz);
    result.backward();
    std::printf("reverse mode: one recording (%u nodes: 3 inputs, 1 statement), one sweep\n",
                unsigned(tape.size() - before));
    std::printf("  f = %g, grad = (%g, %g, %g)\n", result.data(), vx.grad(), vy.grad(), vz.grad());

    // The same through the library's entry points.
    const auto forward = zg::fwd::grad(f, x, y, z);  // 3 evaluations on duals
    const auto reverse = zg::tape::grad(f, x, y, z); // 1 recording, 1 sweep
    std::printf("zg::fwd::grad  = (%g, %g, %g)\n", forward[0], forward[1], forward[2]);
    std::printf("zg::tape::grad = (%g, %g, %g)\n", reverse[0], reverse[1], reverse[2]);

    // zg::jacobian counts: n = 3 inputs, m = 1 output, so 1 reverse sweep beats 3 forward ones.
    const auto jacobian =
        zg::jacobian([&](auto v) { return std::vector{f(v[0], v[1], v[2])}; }, {x, y, z});
    std::printf("zg::jacobian   = [[%g, %g, %g]] (m = 1 < n = 3: reverse)\n", jacobian[0][0],
                jacobian[0][1], jacobian[0][2]);
}
