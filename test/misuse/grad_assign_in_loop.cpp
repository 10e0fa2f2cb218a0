// A loop growing an expression by assignment: a sum over an index range says the same.
#include <zerograd/expr.hpp>

#include <ranges>

int main() {
#ifdef ZG_ERROR
    const auto f = [](auto x) {
        auto total = x;
        for (int i = 2; i <= 3; ++i)
            total = total + pow(x, i);
        return total;
    };
#else
    const auto f = [](auto x) {
        return zg::sum(std::views::iota(1, 4), [&](int i) { return pow(x, i); });
    };
#endif
    (void)zg::grad(f, 1.5);
}
