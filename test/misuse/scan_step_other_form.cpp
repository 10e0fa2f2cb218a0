// zg::scan whose step returns a state of another form than first's: a scalar after a tuple.
#include <zerograd/expr.hpp>

#include <tuple>
#include <vector>

int main() {
    const std::vector<double> v{1.0, 2.0};
#ifdef ZG_ERROR
    (void)zg::grad(
        [](auto x) {
            auto [m, s] = zg::scan(
                x, [](auto x0) { return std::tuple{x0 * 1.0, x0 * x0}; },
                [](auto previous, auto xt) { return std::get<0>(previous) + xt; });
            return zg::sum(m) + zg::sum(s);
        },
        v);
#else
    (void)zg::grad(
        [](auto x) {
            auto [m, s] = zg::scan(
                x, [](auto x0) { return std::tuple{x0 * 1.0, x0 * x0}; },
                [](auto previous, auto xt) {
                    return std::tuple{std::get<0>(previous) + xt, std::get<1>(previous) * xt};
                });
            return zg::sum(m) + zg::sum(s);
        },
        v);
#endif
}
