// The micrograd lecture's worked example in expression mode: the type tree of L = (a*b + c) * f,
// with the value and the adjoint the reverse sweep gives every node, as text and as Graphviz DOT.
#include <zerograd/expr.hpp>

#include <cstdio>

int main() {
    const auto L = zg::expr::build([](auto a, auto b, auto c, auto f) { return (a * b + c) * f; },
                                   2.0, -3.0, 10.0, -2.0);
    std::printf("%s\n", zg::expr::to_text(L).c_str());
    // x0..x3 are a, b, c, f: their adjoints 6, -4, -2, 4 are the lecture's hand-computed gradient.
    const auto g = zg::grad([](auto a, auto b, auto c, auto f) { return (a * b + c) * f; }, 2.0,
                            -3.0, 10.0, -2.0);
    std::printf("grad = (%g, %g, %g, %g)\n\n", g[0], g[1], g[2], g[3]);
    std::printf("%s", zg::expr::to_dot(L).c_str()); // render with: dot -Tsvg
}
