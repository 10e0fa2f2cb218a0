// zg::grad and zg::value_and_grad in constant expressions: nothing here runs at run time.
#include <zerograd/expr.hpp>

#include <array>

namespace {
constexpr auto polynomial = [](auto x, auto y) { return 3 * pow(x, 3) - x * y + y / 4 + 1; };
constexpr auto kinks = [](auto x, auto y) { return abs(x - y) + relu(x) + min(x, y) * max(x, y); };
constexpr auto shared = [](auto x) {
    const auto s = zg::let(square(x) + 1);
    return s * s - s;
};
constexpr auto named_power = [](auto x) {
    const auto c = pow(x, 3); // a named costly operation of a leaf: value and partial kept
    return c * c + c / x;
};
} // namespace

static_assert(zg::grad(named_power, 2.0)[0] == 6 * 32.0 + 2 * 2.0);
static_assert(zg::grad(polynomial, 2.0, 8.0) == std::array{9 * 4.0 - 8, -2 + 0.25});
static_assert(zg::value_and_grad(polynomial, 2.0, 8.0).value == 24 - 16 + 2 + 1);
static_assert(zg::grad(kinks, -1.0, 2.0) == std::array{-1 + 2.0, 1 - 1.0});
static_assert(zg::grad(shared, 3.0)[0] == (2 * 10 - 1) * 6.0);
static_assert(zg::grad(polynomial, std::array{1.0, 0.0})[1] == -1 + 0.25);

