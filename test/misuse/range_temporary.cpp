// A temporary range of doubles in an elementwise operation would dangle: name it outside.
#include <zerograd/expr.hpp>

#include <vector>

int main() {
    const std::vector<double> v{1.0, 2.0}, data{3.0, 4.0};
#ifdef ZG_ERROR
    (void)zg::grad([&](auto x) { return zg::sum(x * std::vector<double>{3.0, 4.0}); }, v);
#else
    (void)zg::grad([&](auto x) { return zg::sum(x * data); }, v);
#endif
}
