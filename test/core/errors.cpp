// Every runtime error of the API, in every mode, in a checked build: what it says, and that
// nothing is lost when it is thrown (the tapes and every other variable stay usable and correct).
#define ZG_CHECKED
#include <zerograd/zerograd.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <vector>

static_assert(std::is_base_of_v<std::runtime_error, zg::error>);
static_assert(std::is_base_of_v<zg::error, zg::shape_error>);
static_assert(std::is_base_of_v<zg::error, zg::domain_error>);
static_assert(std::is_base_of_v<zg::error, zg::dangling_var>);

using doctest::Contains;

TEST_CASE("shape errors name the operation and both shapes") {
    const std::vector<double> two{1, 2}, three{1, 2, 3};
    CHECK_THROWS_WITH_AS(zg::tape::grad([&](auto x) { return zg::dot(three, x); }, two),
                         "zg::dot: ranges of sizes 3 and 2", zg::shape_error);
    CHECK_THROWS_WITH_AS(zg::grad([&](auto x) { return zg::dot(three, x); }, two),
                         Contains("sizes 3 and 2"), zg::shape_error);
    CHECK_THROWS_WITH_AS(zg::tape::grad([](auto x) { return zg::sum(zg::slice(x, 1, 5)); }, two),
                         "zg::slice: elements 1 to 5 of a range of size 2", zg::shape_error);
    const auto a = zg::tensor::zeros({2, 3}), b = zg::tensor::zeros({4}),
               c = zg::tensor::zeros({4, 2});
    CHECK_THROWS_WITH_AS(a + b, "zg::operator+: shapes [2, 3] and [4] do not broadcast",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(matmul(a, c), "zg::matmul: shapes [2, 3] and [4, 2] do not match",
                         zg::shape_error);
    const std::vector<int> labels{0, 1, 2};
    CHECK_THROWS_WITH_AS(zg::cross_entropy(a, labels), Contains("[2, 3]"), zg::shape_error);
}

TEST_CASE("checked builds name the operation and its inputs, in every mode") {
    const std::vector<double> point{1.0, -1.0};
    CHECK_THROWS_WITH_AS(zg::grad([](auto x) { return log(x); }, 0.0),
                         "zg::domain_error: log(0) gave -inf from finite input", zg::domain_error);
    CHECK_THROWS_WITH_AS(zg::grad([](auto x) { return zg::sum(sqrt(x)); }, point),
                         Contains("sqrt(-1) gave"), zg::domain_error);
    CHECK_THROWS_WITH_AS(zg::tape::grad([](auto x, auto y) { return x / (y - 2.0); }, 1.0, 2.0),
                         "zg::domain_error: /(1, 0) gave inf from finite input", zg::domain_error);
    CHECK_THROWS_WITH_AS(zg::fwd::grad([](auto x) { return acos(x); }, 2.0),
                         Contains("acos(2) gave"), zg::domain_error);
    CHECK_THROWS_WITH_AS(log(zg::tensor::zeros({2})), Contains("log(0)"), zg::domain_error);
    // Inputs print so that they read back as the same double: acos(1.0000001) is not "acos(1)".
    CHECK_THROWS_WITH_AS(zg::tape::grad([](auto x) { return acos(x); }, 1.0000001),
                         "zg::domain_error: acos(1.0000001) gave nan from finite input",
                         zg::domain_error);
    CHECK_THROWS_WITH_AS(zg::grad([](auto x) { return log(x - 0.1); }, 0.1),
                         "zg::domain_error: log(0) gave -inf from finite input", zg::domain_error);
    CHECK_THROWS_WITH_AS(zg::fwd::grad([](auto x) { return sqrt(x); }, -1e-300),
                         "zg::domain_error: sqrt(-1e-300) gave nan from finite input",
                         zg::domain_error);
    // Infinity passed in is not made by the operation: it flows on, unreported.
    CHECK(std::isinf(zg::tape::value_and_grad([](auto x) { return x + 1.0; }, INFINITY).value));
}

TEST_CASE("after any error, the tape and every other variable are usable and correct") {
    auto& tape = zg::tape::this_thread_tape();
    zg::var w = 0.5, b = -1.0;
    const auto loss = [&] { return square(w * 3.0 + b) + sin(w); };
    const auto gradients = [&] {
        zg::tape::scope step;
        w.grad() = 0;
        b.grad() = 0;
        loss().backward();
        return std::vector<double>{w.grad(), b.grad()};
    };
    const auto before = gradients();
    CHECK(before[0] == doctest::Approx(2 * 0.5 * 3 + std::cos(0.5)));
    CHECK(before[1] == doctest::Approx(2 * 0.5));

    const zg::var zero = b + 1.0;
    const auto size = tape.size();
    zg::var stale = 0.0;
    {
        zg::tape::scope finished;
        stale = w * 2.0;
    }
    const auto size_after_scope = tape.size();
    CHECK_THROWS_WITH_AS(stale + 1.0, Contains("zg::dangling_var"), zg::dangling_var);
    CHECK_THROWS_AS(stale.data(), zg::dangling_var);
    CHECK_THROWS_AS(stale.backward(), zg::dangling_var);
    CHECK_THROWS_AS(log(b), zg::domain_error);
    CHECK_THROWS_AS(w / zero, zg::domain_error);
    CHECK_THROWS_AS(zg::tape::grad([](auto x) { return sqrt(x - 3.0); }, 1.0), zg::domain_error);
    CHECK_THROWS_AS(zg::tape::grad([&](auto x) { return zg::dot(std::vector<double>{1}, x); },
                                   std::vector<double>{1, 2}),
                    zg::shape_error);
    CHECK(tape.size() == size_after_scope); // nothing was recorded by the failed operations
    CHECK(size_after_scope == size + 1);    // `stale` itself, made before the scope
    CHECK(gradients() == before);
    CHECK(w.data() == 0.5);

    // Tensors too: a failed operation records nothing; the parameters still train.
    auto p = zg::tensor::from({1.0, 2.0}, {2}, true);
    CHECK_THROWS_AS(p + zg::tensor::zeros({3}), zg::shape_error);
    CHECK_THROWS_AS(log(p - 1.0), zg::domain_error);
    const auto q = sum(p * p);
    q.backward();
    CHECK(p.grad()[0] == 2.0);
    CHECK(p.grad()[1] == 4.0);
}
