// An intermediate declared double: an expression is not a number; auto keeps it differentiable.
#include <zerograd/expr.hpp>

int main() {
#ifdef ZG_ERROR
    const auto f = [](auto x, auto y) {
        double t = x * y;
        return t * x;
    };
#else
    const auto f = [](auto x, auto y) {
        auto t = x * y;
        return t * x;
    };
#endif
    (void)zg::grad(f, 1.0, 2.0);
}
