// A lambda differentiated inside another returns an expression of the outer call's leaves
// alone, whose adjoints would go to the inner call's gradient.
#include <zerograd/expr.hpp>

int main() {
    const auto f = [](auto x) {
#ifdef ZG_ERROR
        const auto inner = zg::grad([&](auto) { return x * 2.0; }, 3.0);
#else
        const auto inner = zg::grad([&](auto y) { return y * x.value() * 2.0; }, 3.0);
#endif
        return x * inner[0];
    };
    (void)zg::grad(f, 2.0);
}
