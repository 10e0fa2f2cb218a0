// zg::grad of numbers whose function returns a vector (a captured range times a leaf).
#include <zerograd/expr.hpp>

#include <vector>

int main() {
    const std::vector<double> data{1.0, 2.0, 3.0};
#ifdef ZG_ERROR
    (void)zg::grad([&](auto s) { return data * s; }, 2.0);
#else
    (void)zg::grad([&](auto s) { return zg::sum(data * s); }, 2.0);
#endif
}
