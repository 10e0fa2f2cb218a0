// zg::grad of a function that returns something that is not a scalar.
#include <zerograd/expr.hpp>

#include <utility>

int main() {
#ifdef ZG_ERROR
    (void)zg::grad([](auto x) { return std::pair{x, x}; }, 1.0);
#else
    (void)zg::grad([](auto x) { return x * x; }, 1.0);
#endif
}
