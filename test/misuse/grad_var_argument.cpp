// A zg::var given to zg::grad, which makes its own leaves from numbers.
#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

int main() {
    const auto f = [](auto x) { return x * x; };
    zg::var x = 2.0;
#ifdef ZG_ERROR
    const auto g = zg::grad(f, x); // one message, nothing about g
#else
    const auto g = zg::grad(f, x.data());
#endif
    (void)g[0];
}
