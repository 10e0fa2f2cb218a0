// zg::nn::mse, hinge and cross_entropy: values and gradients against hand-computed ones and
// against central finite differences, stability with large logits, and misuse reported.
#include <zerograd/check.hpp>
#include <zerograd/nn/loss.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <vector>

namespace {

std::vector<zg::var> vars(const std::vector<double>& values) {
    return std::vector<zg::var>(values.begin(), values.end());
}

} // namespace

TEST_CASE("mse") {
    const auto p = vars({0.5, 2.0, -1.0});
    const std::vector<double> targets{1.0, 2.0, 0.0};
    const zg::var loss = zg::nn::mse(p, targets);
    CHECK(loss.data() == doctest::Approx((0.25 + 0.0 + 1.0) / 3));
    loss.backward();
    // d/dp_i = 2 (p_i - t_i) / n
    CHECK(p[0].grad() == doctest::Approx(2 * -0.5 / 3));
    CHECK(p[1].grad() == 0);
    CHECK(p[2].grad() == doctest::Approx(2 * -1.0 / 3));

    SUBCASE("integer targets, such as a dataset's labels") {
        CHECK(zg::nn::mse(p, std::vector<int>{1, 2, 0}).data() == loss.data());
    }
    SUBCASE("a braced list of targets") {
        CHECK(zg::nn::mse(p, {1.0, 2.0, 0.0}).data() == loss.data());
        CHECK(zg::nn::hinge(p, {1, -1, 1}).data() == doctest::Approx((0.5 + 3.0 + 2.0) / 3));
    }
    SUBCASE("finite differences") {
        const auto f = [&](std::span<const zg::var> x) { return zg::nn::mse(x, targets); };
        CHECK(zg::check::gradient(f, std::vector<double>{0.3, -1.2, 2.5}) < 1e-8);
    }
}

TEST_CASE("hinge: micrograd's max-margin loss") {
    const auto scores = vars({2.0, 0.5, -0.25, -3.0});
    const std::vector<int> signs{1, 1, 1, -1};
    const zg::var loss = zg::nn::hinge(scores, signs);
    // relu(1 - 2) + relu(1 - 0.5) + relu(1 + 0.25) + relu(1 - 3) = 0 + 0.5 + 1.25 + 0
    CHECK(loss.data() == doctest::Approx(1.75 / 4));
    loss.backward();
    // A sample inside the margin pulls its score towards its label by 1/n; others are silent.
    CHECK(scores[0].grad() == 0);
    CHECK(scores[1].grad() == doctest::Approx(-0.25));
    CHECK(scores[2].grad() == doctest::Approx(-0.25));
    CHECK(scores[3].grad() == 0);

    SUBCASE("finite differences away from the kinks") {
        const auto f = [&](std::span<const zg::var> x) { return zg::nn::hinge(x, signs); };
        CHECK(zg::check::gradient(f, std::vector<double>{0.3, 1.7, -0.6, 0.2}) < 1e-8);
    }
    SUBCASE("labels must be -1 or +1") {
        CHECK_THROWS_WITH_AS(zg::nn::hinge(scores, std::vector<int>{1, 0, 1, 0}),
                             "zg::nn::hinge: label 0 of sample 1 is not -1 or +1 (use a "
                             "dataset's signs)",
                             zg::error);
    }
}

TEST_CASE("cross_entropy") {
    const auto logits = vars({1.0, 2.0, 0.5});
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(0.5);
    const zg::var loss = zg::nn::cross_entropy(logits, 1);
    CHECK(loss.data() == doctest::Approx(std::log(z) - 2.0));
    loss.backward();
    // d/dl_k = softmax_k - [k == label]
    CHECK(logits[0].grad() == doctest::Approx(std::exp(1.0) / z));
    CHECK(logits[1].grad() == doctest::Approx(std::exp(2.0) / z - 1));
    CHECK(logits[2].grad() == doctest::Approx(std::exp(0.5) / z));

    SUBCASE("stable: large logits neither overflow nor lose the small ones") {
        const auto big = vars({1000.0, 1001.0, -1000.0});
        const zg::var l = zg::nn::cross_entropy(big, 0);
        CHECK(l.data() == doctest::Approx(std::log(1 + std::exp(1.0))));
        l.backward();
        CHECK(std::isfinite(big[0].grad()));
        CHECK(big[0].grad() == doctest::Approx(1 / (1 + std::exp(1.0)) - 1));
        CHECK(big[2].grad() >= 0);
    }
    SUBCASE("exact where the logits dwarf their differences") {
        // log(e^b + 1 + e^b) - b = log 2 + log(1 + e^-b / 2) = log 2 to the last bit.
        for (const double b : {1e3, 1e10, 1e17, 1e300}) {
            const zg::tape::scope step;
            const auto l = vars({b, 0.0, b});
            const zg::var ce = zg::nn::cross_entropy(l, 2);
            CHECK(ce.data() == std::log(2.0));
            ce.backward();
            CHECK(l[0].grad() == 0.5);
            CHECK(l[1].grad() == 0.0);
            CHECK(l[2].grad() == -0.5);
        }
    }
    SUBCASE("an infinitely unlikely label costs infinity") {
        const auto l = vars({0.0, -INFINITY});
        CHECK(zg::nn::cross_entropy(l, 1).data() == INFINITY);
    }
    SUBCASE("a batch is the mean of its samples") {
        const std::vector<std::vector<zg::var>> batch{vars({1.0, 2.0, 0.5}),
                                                      vars({0.0, -1.0, 3.0})};
        const std::vector<int> labels{1, 2};
        const zg::var mean = zg::nn::cross_entropy(batch, labels);
        const double expected = (zg::nn::cross_entropy(batch[0], 1).data() +
                                 zg::nn::cross_entropy(batch[1], 2).data()) /
                                2;
        CHECK(mean.data() == doctest::Approx(expected));
    }
    SUBCASE("finite differences") {
        const auto f = [](std::span<const zg::var> x) {
            const std::vector<std::vector<zg::var>> batch{{x[0], x[1], x[2]}, {x[3], x[4], x[5]}};
            return zg::nn::cross_entropy(batch, std::vector<int>{2, 0});
        };
        CHECK(zg::check::gradient(f, std::vector<double>{0.1, -0.4, 2.0, 1.5, 0.3, -2.2}) < 1e-8);
    }
    SUBCASE("labels out of range") {
        CHECK_THROWS_AS(zg::nn::cross_entropy(logits, 3), zg::shape_error);
        CHECK_THROWS_AS(zg::nn::cross_entropy(logits, -1), zg::shape_error);
    }
}

TEST_CASE("batch shapes are checked") {
    const auto p = vars({1.0, 2.0});
    CHECK_THROWS_WITH_AS(zg::nn::mse(p, std::vector<double>{1.0}),
                         doctest::Contains("2 outputs and 1 targets"), zg::shape_error);
    CHECK_THROWS_AS(zg::nn::hinge(p, std::vector<int>{1, -1, 1}), zg::shape_error);
    CHECK_THROWS_AS(zg::nn::mse(std::span<const zg::var>(), std::vector<double>{}),
                    zg::shape_error);
    const std::vector<std::vector<zg::var>> batch{p};
    CHECK_THROWS_AS(zg::nn::cross_entropy(batch, std::vector<int>{0, 1}), zg::shape_error);
}
