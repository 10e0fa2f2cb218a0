// A zg::dual given to zg::grad, which makes its own leaves from numbers.
#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>

int main() {
    const auto f = [](auto x) { return x * x; };
    const zg::dual x(2.0, 1.0);
#ifdef ZG_ERROR
    const auto g = zg::grad(f, x); // one message, nothing about g
#else
    const auto g = zg::grad(f, x.value);
#endif
    (void)g[0];
}
