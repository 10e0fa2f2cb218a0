// The README's quick start: a gradient in tape mode, then the same in expression mode.
#include <zerograd/zerograd.hpp>

#include <cstdio>

int main() {
    zg::var a = 2.0, b = -3.0;     // tape mode: micrograd's Value, grown up
    zg::var c = a * b + pow(a, 2); // -2
    zg::var d = tanh(c);
    d.backward();
    std::printf("d     = %.5f\n", d.data()); // -0.96403
    std::printf("dd/da = %.5f\n", a.grad()); //  0.07065
    std::printf("dd/db = %.5f\n", b.grad()); //  0.14130

    // Expression mode: the lambda's type is the computation; no tape, no heap.
    auto f = [](auto x, auto y) { return x * y + sin(x); };
    auto [value, grad] = zg::value_and_grad(f, 2.0, 3.0);
    // f = 6.90930, grad = (2.58385, 2.00000)
    std::printf("f = %.5f, grad = (%.5f, %.5f)\n", value, grad[0], grad[1]);
}
