// A micrograd-style engine's check against calculus: L = (a*b + c)^2 at a = 2, b = 3, c = 1
// gives 42, 28, 14.
#include <zerograd/tape.hpp>

#include <cstdio>

int main() {
    zg::var a = 2.0, b = 3.0, c = 1.0;
    zg::var L = pow(a * b + c, 2);
    L.backward();
    std::printf("L = %.1f\n", L.data()); // 49.0
    std::printf("dL/da = %.1f, dL/db = %.1f, dL/dc = %.1f\n", a.grad(), b.grad(),
                c.grad()); // 42 28 14
}
