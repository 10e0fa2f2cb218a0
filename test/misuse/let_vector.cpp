// zg::let of a vector expression: let binds scalars.
#include <zerograd/expr.hpp>

#include <vector>

int main() {
    const std::vector<double> v{1.0, 2.0};
#ifdef ZG_ERROR
    (void)zg::grad([](auto x) { return zg::sum(zg::let(x * 2.0)); }, v);
#else
    (void)zg::grad([](auto x) { return zg::let(zg::sum(x * 2.0)); }, v);
#endif
}
