// A micrograd-style engine's tests: x^2 and (x + 2) * x at x = 3, the second checked against
// PyTorch there.
#include <zerograd/tape.hpp>

#include <cstdio>

int main() {
    zg::var x = 3.0;
    zg::var y = pow(x, 2);
    y.backward();
    std::printf("d(x^2)/dx at 3       = %.1f\n", x.grad()); // 6.0

    zg::var z = 3.0;
    zg::var w = (z + 2.0) * z;
    w.backward();
    std::printf("d((x+2)*x)/dx at 3   = %.1f\n", z.grad()); // 8.0 (PyTorch: tensor(8.))
}
