// Checked builds: an elementwise operation that makes NaN or infinity from finite inputs is an
// error naming the operation, and the tape stays usable after it.
#define ZG_CHECKED
#include "laws.hpp" // a user's rule, softplus

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
    CHECK_THROWS_WITH_AS(laws::softplus(x * 800.0),
                         "zg::domain_error: softplus(800) gave inf from finite input",
                         zg::domain_error);
    const tensor infinite = tensor::from({INFINITY}, {});
    CHECK(std::isinf((infinite + 1.0).item())); // a non-finite input is passed on
    sum(log(x + 1.0)).backward();               // and the tape still works
    CHECK(x.grad()[1] == 1.0);
}

TEST_CASE("a failed operation records nothing, its constant operand included") {
    auto& tape = zg::detail::this_thread_tensor_tape();
    const tensor::scope step;
    const tensor x = tensor::from({1, 0}, {2}, true);
    const auto size = tape.size();
    CHECK_THROWS_AS(log(x), zg::domain_error);
    CHECK(tape.size() == size);
    CHECK_THROWS_AS(x / tensor::zeros({2}), zg::domain_error);
    CHECK(tape.size() == size + 1); // the zeros, made before the division failed
    CHECK_THROWS_AS(1.0 / x, zg::domain_error);
    const tensor root = sqrt(x);
    CHECK_THROWS_AS(root - x / 0.0, zg::domain_error);
    CHECK(tape.size() == size + 2); // and the root
    CHECK(x.data()[0] == 1.0);
}
