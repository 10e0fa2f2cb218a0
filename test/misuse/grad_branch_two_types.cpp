// An if on values whose two returns are different computations: zg::select picks between them.
#include <zerograd/expr.hpp>

int main() {
#ifdef ZG_ERROR
    const auto f = [](auto x, auto y) {
        if (x > y) return x * y;
        return sin(x) + y;
    };
#else
    const auto f = [](auto x, auto y) { return zg::select(x > y, x * y, sin(x) + y); };
#endif
    (void)zg::grad(f, 1.0, 2.0);
}
