// A lambda differentiated inside another uses the outer call's leaf: the two calls' leaves in
// one expression. Inside the inner call the outer leaf is a constant: its value says so.
#include <zerograd/expr.hpp>

int main() {
    const auto f = [](auto x) {
#ifdef ZG_ERROR
        const auto inner = zg::grad([&](auto y) { return x * y; }, 3.0);
#else
        const auto inner = zg::grad([&](auto y) { return x.value() * y; }, 3.0);
#endif
        return x * inner[0];
    };
    (void)zg::grad(f, 2.0);
}
