// A user's operation of one operand called with two.
#include <zerograd/tape.hpp>

#include <string_view>

struct twice_rule {
    static constexpr std::string_view name = "twice";
    template <class T>
    T value(const T& x) const {
        return 2 * x;
    }
    template <class T>
    T dx(const T&, const T&) const {
        return T(2);
    }
};

int main() {
    constexpr zg::function<twice_rule> twice{};
#ifdef ZG_ERROR
    (void)zg::tape::grad([&](auto x, auto y) { return twice(x, y); }, 2.0, 3.0);
#else
    (void)zg::tape::grad([&](auto x, auto y) { return twice(x * y); }, 2.0, 3.0);
#endif
}
