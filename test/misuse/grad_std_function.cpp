// std::exp on an expression: <cmath>'s functions take doubles; unqualified, exp(x) is zerograd's.
#include <zerograd/expr.hpp>

#include <cmath>

int main() {
#ifdef ZG_ERROR
    const auto f = [](auto x, auto y) { return std::exp(x) * y; };
#else
    const auto f = [](auto x, auto y) { return exp(x) * y; };
#endif
    (void)zg::grad(f, 1.0, 2.0);
}
