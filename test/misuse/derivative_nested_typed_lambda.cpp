// zg::derivative at a dual (a nested call) given a lambda that takes zg::dual only: the nested
// call runs f one level up, on zg::dual_t<zg::dual>.
#include <zerograd/forward.hpp>

int main() {
#ifdef ZG_ERROR
    const auto cube = [](zg::dual y) { return y * y * y; };
#else
    const auto cube = [](auto y) { return y * y * y; };
#endif
    (void)zg::derivative([&](auto x) { return zg::derivative(cube, x); }, 2.0);
}
