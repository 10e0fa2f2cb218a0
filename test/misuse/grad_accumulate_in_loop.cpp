// A loop accumulating into a number: a sum over an index range says the same.
#include <zerograd/expr.hpp>

#include <ranges>
#include <vector>

int main() {
    const std::vector<double> data{1.0, 2.0, 3.0};
#ifdef ZG_ERROR
    const auto f = [&](auto w) {
        double total = 0;
        for (double y : data)
            total += square(y - w);
        return total;
    };
#else
    const auto f = [&](auto w) {
        return zg::sum(std::views::iota(0, 3), [&](int i) { return square(data[i] - w); });
    };
#endif
    (void)zg::grad(f, 1.0);
}
