// A backpropagation-from-scratch tutorial's usage example: d = tanh(a*b + a^2) at a = 2, b = -3,
// and its graph.
#include <zerograd/tape.hpp>

#include <cstdio>

int main() {
    zg::var a = 2.0, b = -3.0;
    zg::var ab = a * b; // its own statement: C++ leaves the order of a * b + pow(a, 2) open,
    zg::var c = ab + pow(a, 2); // and the picture below numbers nodes in recording order
    zg::var d = tanh(c);
    d.backward();
    std::printf("d = %.5f, dd/da = %.5f, dd/db = %.5f\n", d.data(), a.grad(), b.grad());
    std::printf("%s", zg::to_dot(d).c_str()); // render with: dot -Tsvg
}
