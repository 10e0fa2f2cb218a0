// Checked builds: the first NaN or infinity made from finite inputs is an error naming the
// operation, and the tape stays usable after it.
#define ZG_CHECKED
#include "laws.hpp" // a user's rule, softplus

#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

TEST_CASE("non-finite results from finite inputs are reported") {
    zg::var zero = 0.0, minus_one = -1.0, x = 2.0;
    CHECK_THROWS_WITH_AS(log(zero), "zg::domain_error: log(0) gave -inf from finite input",
                         zg::domain_error);
    CHECK_THROWS_WITH_AS(sqrt(minus_one), doctest::Contains("sqrt(-1) gave"), zg::domain_error);
    CHECK_THROWS_WITH_AS(x / 0.0, doctest::Contains("/(2, 0)"), zg::domain_error);
    CHECK_THROWS_WITH_AS(pow(zero, -1), doctest::Contains("pow(0, -1) gave inf"),
                         zg::domain_error);
    CHECK_THROWS_AS(exp(x * 1000), zg::domain_error);
    CHECK_THROWS_WITH_AS(laws::softplus(x * 400),
                         "zg::domain_error: softplus(800) gave inf from finite input",
                         zg::domain_error);

    SUBCASE("a non-finite input is passed on, not reported again") {
        zg::var infinite = INFINITY;
        CHECK(std::isinf((infinite + 1).data()));
    }
    SUBCASE("the tape is usable and correct afterwards") {
        zg::var y = x * x + log(x);
        y.backward();
        CHECK(x.grad() == 4.5);
    }
}

TEST_CASE("reductions that overflow from finite elements are reported") {
    const std::vector<zg::var> large{zg::var(1e200), zg::var(1e200)};
    CHECK_THROWS_WITH_AS(zg::prod(large), "zg::domain_error: prod of 2 finite elements gave inf",
                         zg::domain_error);
    CHECK_THROWS_AS(zg::sum(std::vector<zg::var>{zg::var(1e308), zg::var(1e308)}),
                    zg::domain_error);
    CHECK(zg::log_sum_exp(large).data() == doctest::Approx(1e200)); // shifted: no overflow
    const std::vector<zg::var> with_infinity{zg::var(INFINITY), zg::var(1.0)};
    CHECK(std::isinf(zg::sum(with_infinity).data())); // passed on, not reported
    // An empty log_sum_exp's -inf is its value (the log of an empty sum), not an overflow.
    CHECK(zg::log_sum_exp(std::vector<zg::var>{}).data() == -INFINITY);
    CHECK(zg::tape::value_and_grad([](auto v) { return zg::log_sum_exp(v); },
                                   std::vector<double>{})
              .value == -INFINITY);
}
