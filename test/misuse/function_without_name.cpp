// A user's rule without a name, which errors and graphs would show.
#include <zerograd/tape.hpp>

#include <string_view>

struct twice_rule {
#ifdef ZG_OK
    static constexpr std::string_view name = "twice";
#endif
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
    (void)zg::tape::grad([&](auto x) { return twice(x); }, 2.0);
}
