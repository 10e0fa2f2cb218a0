// zg::grad of a function that returns a vector: reduce it first.
#include <zerograd/expr.hpp>

#include <vector>

int main() {
    const std::vector<double> v{1.0, 2.0};
#ifdef ZG_ERROR
    (void)zg::grad([](auto x) { return x * 2.0; }, v);
#else
    (void)zg::grad([](auto x) { return zg::sum(x * 2.0); }, v);
#endif
}
