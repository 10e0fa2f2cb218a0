// Reductions over ranges of variables, each recorded as one node (or a chain of 255-operand
// nodes): the same values and gradients as the same reductions written as loops of elementary
// operations, with exact partials where elements are zero.
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <vector>

namespace {

using vars = std::span<const zg::var>;

std::vector<double> point(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = 1.0 + 0.3 * std::sin(0.7 * double(i) + 0.2);
    return x;
}

// The reductions as loops of elementary operations: one node per operation.
zg::var loop_sum(vars v) {
    zg::var total = v[0];
    for (std::size_t i = 1; i < v.size(); ++i)
        total = total + v[i];
    return total;
}
zg::var loop_prod(vars v) {
    zg::var total = v[0];
    for (std::size_t i = 1; i < v.size(); ++i)
        total = total * v[i];
    return total;
}

void check_same(const std::vector<double>& a, const std::vector<double>& b, double tolerance) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        CHECK(std::abs(a[i] - b[i]) <= tolerance * std::max(1.0, std::abs(b[i])));
}

} // namespace

TEST_CASE("each reduction agrees with its loop of elementary operations") {
    for (std::size_t n : {1, 2, 7, 255, 256, 1000}) {
        CAPTURE(n);
        const std::vector<double> x = point(n), w = point(n + 3);
        const std::span<const double> weights(w.data() + 3, n);
        const auto [sum_value, sum_grad] =
            zg::tape::value_and_grad([](vars v) { return zg::sum(v) * zg::sum(v); }, x);
        const auto [loop_value, loop_grad] =
            zg::tape::value_and_grad([](vars v) { return loop_sum(v) * loop_sum(v); }, x);
        CHECK(sum_value == loop_value);
        check_same(std::get<0>(sum_grad), std::get<0>(loop_grad), 0);

        const auto [prod_value, prod_grad] =
            zg::tape::value_and_grad([](vars v) { return zg::prod(v); }, x);
        const auto [loop_prod_value, loop_prod_grad] =
            zg::tape::value_and_grad([](vars v) { return loop_prod(v); }, x);
        CHECK(prod_value == loop_prod_value);
        check_same(std::get<0>(prod_grad), std::get<0>(loop_prod_grad), 1e-13);

        const auto [dot_value, dot_grad] = zg::tape::value_and_grad(
            [&](vars v) { return zg::dot(weights, v) + zg::dot(v, weights) + zg::dot(v, v); }, x);
        double expected = 0;
        for (std::size_t i = 0; i < n; ++i)
            expected += 2 * weights[i] * x[i];
        double squares = 0;
        for (std::size_t i = 0; i < n; ++i)
            squares += x[i] * x[i];
        CHECK(dot_value == doctest::Approx(expected + squares).epsilon(1e-14));
        for (std::size_t i = 0; i < n; ++i)
            CHECK(std::get<0>(dot_grad)[i] == doctest::Approx(2 * weights[i] + 2 * x[i]));

        const auto [lse_value, lse_grad] =
            zg::tape::value_and_grad([](vars v) { return zg::log_sum_exp(v); }, x);
        double total = 0;
        for (double xi : x)
            total += std::exp(xi);
        CHECK(lse_value == doctest::Approx(std::log(total)).epsilon(1e-14));
        for (std::size_t i = 0; i < n; ++i)
            CHECK(std::get<0>(lse_grad)[i] ==
                  doctest::Approx(std::exp(x[i]) / total).epsilon(1e-13));
    }
}

TEST_CASE("one node per 255 operands") {
    zg::tape::scope step;
    std::vector<zg::var> v(1000, zg::var(1.0));
    const auto before = zg::tape::this_thread_tape<double>().size();
    const zg::var s = zg::sum(v);
    // 255 + 254 + 254 + 237: four nodes, each after the first taking the one before it.
    CHECK(zg::tape::this_thread_tape<double>().size() - before == 4);
    CHECK(s.data() == 1000);
    CHECK(s.op() == zg::op_id::sum);
    s.backward();
    for (const zg::var& x : v)
        CHECK(x.grad() == 1000); // one leaf, used 1000 times
}

TEST_CASE("prod is exact with zeros; empty ranges give the identity") {
    const std::vector<double> one_zero{2.0, 0.0, 3.0}, two_zeros{0.0, 5.0, 0.0};
    CHECK(std::get<0>(zg::tape::grad([](vars v) { return zg::prod(v); }, one_zero)) ==
          std::vector<double>{0.0, 6.0, 0.0});
    CHECK(std::get<0>(zg::tape::grad([](vars v) { return zg::prod(v); }, two_zeros)) ==
          std::vector<double>{0.0, 0.0, 0.0});
    const std::vector<zg::var> none;
    CHECK(zg::sum(none).data() == 0);
    CHECK(zg::prod(none).data() == 1);
    CHECK(zg::dot(none, none).data() == 0);
}

TEST_CASE("log_sum_exp is stable for large elements") {
    const std::vector<double> large{1000.0, 1001.0, 999.0};
    const auto [value, grad] =
        zg::tape::value_and_grad([](vars v) { return zg::log_sum_exp(v); }, large);
    const double total = std::exp(-1.0) + 1 + std::exp(-2.0);
    CHECK(value == doctest::Approx(1001 + std::log(total)).epsilon(1e-15));
    CHECK(std::get<0>(grad)[1] == doctest::Approx(1 / total).epsilon(1e-14));
}

TEST_CASE("variables on two tapes, or reclaimed, are refused") {
    zg::tape::basic_tape<double> other;
    std::vector<zg::var> mixed{zg::var(1.0), zg::var(other, 2.0)};
    CHECK_THROWS_WITH_AS(zg::sum(mixed), "zg::sum: the variables are on different tapes",
                         zg::error);
    std::vector<zg::var> stale;
    {
        zg::tape::scope step;
        stale = {zg::var(1.0), zg::var(2.0)};
    }
    CHECK_THROWS_AS(zg::prod(stale), zg::dangling_var);
}

TEST_CASE("sum(range, fn) records its terms and one node for their sum") {
    const std::vector<double> x = point(300), data = point(40);
    const auto mapped = [&](vars v) {
        // Nested: fn itself sums over the data, with the element's index.
        return zg::sum(v, [&](const zg::var& e, std::size_t k) {
            return square(e - 0.5) * double(k % 3) + zg::sum(data, [&](double d) { return e * d; });
        });
    };
    const auto looped = [&](vars v) {
        zg::var total = 0.0;
        for (std::size_t k = 0; k < v.size(); ++k) {
            zg::var inner = 0.0;
            for (double d : data)
                inner += v[k] * d;
            total += square(v[k] - 0.5) * double(k % 3) + inner;
        }
        return total;
    };
    const auto [value, grad] = zg::tape::value_and_grad(mapped, x);
    const auto [loop_value, loop_grad] = zg::tape::value_and_grad(looped, x);
    CHECK(value == doctest::Approx(loop_value).epsilon(1e-14));
    check_same(std::get<0>(grad), std::get<0>(loop_grad), 1e-13);
    const std::vector<zg::var> none;
    CHECK(zg::sum(none, [](const zg::var& e) { return e * 2.0; }).data() == 0);
}

TEST_CASE("mean, norm and log_sum_exp over variables use the one-node sum") {
    // zg::sum and zg::mean of one range type in one file: the tape's sum and core's, which mean
    // calls, once shared a mangled name, and g++ 12 refused the file at -O0.
    const std::vector<double> x{1.0, 2.0, 4.0};
    zg::tape::scope step;
    const std::vector<zg::var> v(x.begin(), x.end());
    auto& tape = zg::tape::this_thread_tape();
    const auto before = tape.size();
    const zg::var mean = zg::mean(v);
    CHECK(tape.size() - before == 2); // the sum, then the division
    const zg::var y = zg::sum(v) + mean + zg::norm(v);
    y.backward();
    const double norm = std::sqrt(21.0);
    for (std::size_t i = 0; i < x.size(); ++i)
        CHECK(v[i].grad() == doctest::Approx(1.0 + 1.0 / 3.0 + x[i] / norm).epsilon(1e-15));
    CHECK(y.data() == doctest::Approx(7.0 + 7.0 / 3.0 + norm).epsilon(1e-15));
}

TEST_CASE("norm neither overflows nor underflows, and its gradient at zero is 0") {
    // Elements near 1e200 square to infinity and near 1e-200 to 0 unless scaled; the scale is a
    // power of two, so moderate elements get exactly the unscaled result.
    const auto norm_of = [](auto x) { return zg::norm(x); };
    for (double magnitude : {1e200, 1e-200, 3.0}) {
        CAPTURE(magnitude);
        const std::vector<double> x{magnitude, -2 * magnitude};
        const auto [value, grad] = zg::tape::value_and_grad(norm_of, x);
        CHECK(value == doctest::Approx(std::sqrt(5.0) * magnitude).epsilon(1e-15));
        CHECK(std::get<0>(grad)[0] == doctest::Approx(1 / std::sqrt(5.0)).epsilon(1e-15));
        CHECK(std::get<0>(grad)[1] == doctest::Approx(-2 / std::sqrt(5.0)).epsilon(1e-15));
    }
    const std::vector<double> moderate{0.3, -1.7, 2.9};
    CHECK(zg::tape::value_and_grad(norm_of, moderate).value ==
          std::sqrt(0.3 * 0.3 + 1.7 * 1.7 + 2.9 * 2.9));
    const auto [value, grad] = zg::tape::value_and_grad(norm_of, std::vector<double>{0.0, 0.0});
    CHECK(value == 0.0);
    CHECK(std::get<0>(grad) == std::vector<double>{0.0, 0.0});
}
