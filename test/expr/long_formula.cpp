// A formula of a few hundred terms written left to right, as users write one, compiles with the
// compiler's default limits (no walk over its type recurses once per term) and differentiates
// exactly, with its argument a constant (which g++ tries to evaluate at compile time) or not.
#include <zerograd/expr.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>

namespace {

constexpr std::size_t terms = 500;

// sin(x * 1) + sin(x * 2) + ... + sin(x * 500), written out and so nested to the left (a fold
// expression of 500 terms is past clang's nesting limit).
#define ZG_TERM(k) +sin(x * double(k))
#define ZG_TERMS_10(b)                                                                             \
    ZG_TERM(b + 1) ZG_TERM(b + 2) ZG_TERM(b + 3) ZG_TERM(b + 4) ZG_TERM(b + 5) ZG_TERM(b + 6)     \
        ZG_TERM(b + 7) ZG_TERM(b + 8) ZG_TERM(b + 9) ZG_TERM(b + 10)
#define ZG_TERMS_100(b)                                                                            \
    ZG_TERMS_10(b) ZG_TERMS_10(b + 10) ZG_TERMS_10(b + 20) ZG_TERMS_10(b + 30)                     \
        ZG_TERMS_10(b + 40) ZG_TERMS_10(b + 50) ZG_TERMS_10(b + 60) ZG_TERMS_10(b + 70)            \
            ZG_TERMS_10(b + 80) ZG_TERMS_10(b + 90)
constexpr auto sine_sum = [](auto x) {
    return 0.0 ZG_TERMS_100(0) ZG_TERMS_100(100) ZG_TERMS_100(200) ZG_TERMS_100(300)
        ZG_TERMS_100(400);
};
#undef ZG_TERMS_100
#undef ZG_TERMS_10
#undef ZG_TERM

double derivative_by_hand(double x) {
    double d = 0;
    for (std::size_t k = 1; k <= terms; ++k)
        d += double(k) * std::cos(double(k) * x);
    return d;
}

} // namespace

TEST_CASE("a 500-term formula: its gradient at a constant argument and at a run-time one") {
    const auto at_constant = zg::value_and_grad(sine_sum, 1.5);
    double value = 0;
    for (std::size_t k = 1; k <= terms; ++k)
        value += std::sin(double(k) * 1.5);
    CHECK(at_constant.value == doctest::Approx(value).epsilon(1e-12));
    CHECK(at_constant.grad[0] == doctest::Approx(derivative_by_hand(1.5)).epsilon(1e-12));

    volatile double x = 0.25;
    const auto at_run_time = zg::grad(sine_sum, double(x));
    CHECK(at_run_time[0] == doctest::Approx(derivative_by_hand(0.25)).epsilon(1e-12));
}
