// zg::tape::grad of a function with several outputs.
#include <zerograd/tape.hpp>

#include <vector>

int main() {
#ifdef ZG_ERROR
    (void)zg::tape::grad([](auto x) { return std::vector{x, x}; }, 1.0);
#else
    (void)zg::tape::grad([](auto x) { return x * x; }, 1.0);
#endif
}
