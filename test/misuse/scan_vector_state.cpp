// zg::scan whose first returns a vector expression in its state: states are scalars.
#include <zerograd/expr.hpp>

#include <tuple>
#include <vector>

int main() {
    const std::vector<double> v{1.0, 2.0};
#ifdef ZG_ERROR
    (void)zg::grad(
        [](auto x) {
            auto [m, s] = zg::scan(
                x, [&](auto x0) { return std::tuple{x0 * 1.0, x * x0}; },
                [](auto previous, auto) { return previous; });
            return zg::sum(m);
        },
        v);
#else
    (void)zg::grad(
        [](auto x) {
            auto [m, s] = zg::scan(
                x, [&](auto x0) { return std::tuple{x0 * 1.0, zg::sum(x) * x0}; },
                [](auto previous, auto) { return previous; });
            return zg::sum(m);
        },
        v);
#endif
}
