// zg::sum(v, fn) over the states of a zg::scan: write the terms elementwise instead.
#include <zerograd/expr.hpp>

#include <vector>

int main() {
    const std::vector<double> v{1.0, 2.0};
    const auto step = [](auto previous, auto x) { return previous * x; };
#ifdef ZG_ERROR
    (void)zg::grad([&](auto x) { return zg::sum(zg::scan(x, step), [](auto s) { return s * s; }); },
                   v);
#else
    (void)zg::grad([&](auto x) { return zg::sum(square(zg::scan(x, step))); }, v);
#endif
}
