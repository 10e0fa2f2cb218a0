// zg::jacobian of a function with one output.
#include <zerograd/zerograd.hpp>

#include <span>
#include <vector>

int main() {
#ifdef ZG_ERROR
    (void)zg::jacobian([](auto x) { return x[0] * x[1]; }, std::vector{1.0, 2.0});
#else
    (void)zg::jacobian([](auto x) { return std::vector{x[0] * x[1]}; }, std::vector{1.0, 2.0});
#endif
}
