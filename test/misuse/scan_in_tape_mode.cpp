// zg::scan under zg::tape::grad: a recurrence over zg::var is a loop in tape mode.
#include <zerograd/zerograd.hpp>

#include <vector>

int main() {
    const auto f = [](const auto& v, auto phi) {
        return zg::sum(zg::scan(v, [&](auto previous, auto vt) { return phi * previous + vt; }));
    };
    const std::vector<double> v{1.0, 2.0, 3.0};
#ifdef ZG_ERROR
    (void)zg::tape::grad(f, v, 0.5);
#else
    (void)zg::grad(f, v, 0.5);
#endif
}
