// A user's rule that states its value but not its derivative.
#include <zerograd/expr.hpp>

#include <cmath>
#include <string_view>

struct cube_rule {
    static constexpr std::string_view name = "cube";
    template <class T>
    T value(const T& x) const {
        return x * x * x;
    }
#ifdef ZG_OK
    template <class T>
    T dx(const T& x, const T&) const {
        return 3 * x * x;
    }
#endif
};

int main() {
    constexpr zg::function<cube_rule> cube{};
    (void)zg::grad([&](auto x) { return cube(x); }, 2.0);
}
