// zg::hessian of a function that returns something that is not a scalar.
#include <zerograd/expr.hpp>

#include <utility>

int main() {
#ifdef ZG_ERROR
    (void)zg::hessian([](auto x, auto y) { return std::pair{x, y}; }, 1.0, 2.0);
#else
    (void)zg::hessian([](auto x, auto y) { return x * y; }, 1.0, 2.0);
#endif
}
