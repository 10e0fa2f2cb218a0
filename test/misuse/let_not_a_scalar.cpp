// zg::let of something that is not a scalar of any mode.
#include <zerograd/expr.hpp>

#include <string>

int main() {
#ifdef ZG_ERROR
    (void)zg::let(std::string("x"));
#else
    (void)zg::grad([](auto x) { return zg::let(x * x) + x; }, 2.0);
#endif
}
