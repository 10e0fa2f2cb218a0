// A backpropagation-from-scratch tutorial's usage example: d = tanh(a*b + a^2) at a = 2, b = -3,
// and its graph.
#include <zerograd/tape.hpp>

#include <cstdio>

int main() {
    zg::var a = 2.0, b = -3.0;
    // Each statement records one node. One operation a statement, as micrograd draws them; written
    // as one statement, a * b + pow(a, 2) would be one node, labelled with its formula.
    zg::var ab = a * b;
    zg::var a_squared = pow(a, 2);
    zg::var c = ab + a_squared;
    zg::var d = tanh(c);
    d.backward();
    std::printf("d = %.5f, dd/da = %.5f, dd/db = %.5f\n", d.data(), a.grad(), b.grad());
    std::printf("%s", zg::to_dot(d).c_str()); // render with: dot -Tsvg
}
