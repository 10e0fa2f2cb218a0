// zg::scan inside zg::hessian: expression mode's recurrences compute on doubles only.
#include <zerograd/expr.hpp>

#include <ranges>

int main() {
    const auto f = [](auto a) {
        return zg::sum(zg::scan(
            std::views::iota(0, 3), [&](int) { return a; },
            [&](auto previous, int) { return previous * a; }));
    };
#ifdef ZG_ERROR
    (void)zg::hessian(f, 0.5);
#else
    (void)zg::grad(f, 0.5);
#endif
}
