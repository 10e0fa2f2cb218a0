// Checked builds: an elementwise operation that makes NaN or infinity from finite inputs is an
// error naming the operation, and the tape stays usable after it.
#define ZG_CHECKED
#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <cmath>

using zg::tensor;

TEST_CASE("non-finite results from finite inputs are reported") {
    const tensor x = tensor::from({1, 0}, {2}, true);
    CHECK_THROWS_WITH_AS(log(x), "zg::domain_error: log(0) gave -inf from finite input",
                         zg::domain_error);
    CHECK_THROWS_WITH_AS(x / tensor::zeros({2}), doctest::Contains("/(1, 0)"), zg::domain_error);
    CHECK_THROWS_WITH_AS(sqrt(x - 2.0), doctest::Contains("sqrt(-1) gave"), zg::domain_error);
    const tensor infinite = tensor::from({INFINITY}, {});
    CHECK(std::isinf((infinite + 1.0).item())); // a non-finite input is passed on
    sum(log(x + 1.0)).backward();               // and the tape still works
    CHECK(x.grad()[1] == 1.0);
}
