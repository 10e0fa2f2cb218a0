// zg::nn::make_moons and xor_data: shapes, labels in both conventions, scikit-learn's geometry,
// and the same points for the same seed.
#include <zerograd/nn/datasets.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

TEST_CASE("make_moons") {
    SUBCASE("shape and labels: n / 2 on the outer moon (0), the rest on the inner (1)") {
        for (const std::size_t n : {100u, 101u, 2u, 1u}) {
            const auto data = zg::nn::make_moons(n, 0.1, 3);
            REQUIRE(data.size() == n);
            REQUIRE(data.labels.size() == n);
            REQUIRE(data.signs.size() == n);
            CHECK(std::count(data.labels.begin(), data.labels.end(), 0) == long(n / 2));
            CHECK(std::count(data.labels.begin(), data.labels.end(), 1) == long(n - n / 2));
            for (std::size_t i = 0; i < n; ++i)
                CHECK(data.signs[i] == 2 * data.labels[i] - 1);
        }
    }
    SUBCASE("without noise the points lie on scikit-learn's half circles") {
        const auto data = zg::nn::make_moons(200, 0.0, 5);
        for (std::size_t i = 0; i < data.size(); ++i) {
            const double x = data.x[i][0], y = data.x[i][1];
            if (data.labels[i] == 0) { // (cos t, sin t)
                CHECK(std::hypot(x, y) == doctest::Approx(1.0).epsilon(1e-15));
                CHECK(y >= 0);
            } else { // (1 - cos t, 1 - sin t - 0.5)
                CHECK(std::hypot(x - 1, y - 0.5) == doctest::Approx(1.0).epsilon(1e-15));
                CHECK(y <= 0.5);
            }
        }
    }
    SUBCASE("unshuffled: in order, t evenly spaced from 0 to pi") {
        const auto data = zg::nn::make_moons(6, 0.0, 0, false);
        CHECK(data.labels == std::vector<int>{0, 0, 0, 1, 1, 1});
        CHECK(data.x[0][0] == 1.0);
        CHECK(data.x[0][1] == 0.0);
        CHECK(data.x[1][0] == doctest::Approx(0.0));
        CHECK(data.x[1][1] == 1.0);
        CHECK(data.x[2][0] == -1.0); // cos(pi), the end point exactly
        CHECK(data.x[3][0] == 0.0);
        CHECK(data.x[3][1] == 0.5);
        CHECK(data.x[4][0] == doctest::Approx(1.0));
        CHECK(data.x[4][1] == -0.5);
        CHECK(data.x[5][0] == 2.0);
    }
    SUBCASE("deterministic for a seed, different for another") {
        const auto a = zg::nn::make_moons(100, 0.1, 42), b = zg::nn::make_moons(100, 0.1, 42);
        const auto c = zg::nn::make_moons(100, 0.1, 43);
        CHECK(a.x == b.x);
        CHECK(a.labels == b.labels);
        CHECK(a.x != c.x);
    }
    SUBCASE("noise of the given standard deviation") {
        const auto noisy = zg::nn::make_moons(20000, 0.1, 9);
        double sum_of_squares = 0;
        for (std::size_t i = 0; i < noisy.size(); ++i) {
            const double x = noisy.x[i][0], y = noisy.x[i][1];
            const double r = noisy.labels[i] == 0 ? std::hypot(x, y) : std::hypot(x - 1, y - 0.5);
            sum_of_squares += (r - 1) * (r - 1);
        }
        // The radial error of a point with isotropic noise of sd 0.1 has sd close to 0.1.
        CHECK(std::sqrt(sum_of_squares / double(noisy.size())) ==
              doctest::Approx(0.1).epsilon(0.05));
    }
}

TEST_CASE("make_moons refuses a count or noise it cannot mean") {
    // make_moons(-1): the -1 arrives as 2^64 - 1.
    CHECK_THROWS_WITH_AS(zg::nn::make_moons(static_cast<std::size_t>(-1)),
                         "zg::nn::make_moons: n is 18446744073709551615; it must be at most 2^32 "
                         "points",
                         zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::make_moons(10, -0.1),
                         "zg::nn::make_moons: noise is -0.1; it must be a finite number >= 0",
                         zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::make_moons(10, std::nan("")), doctest::Contains("noise is nan"),
                         zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::make_moons(10, HUGE_VAL), doctest::Contains("noise is inf"),
                         zg::error);
    CHECK(zg::nn::make_moons(0).size() == 0);
}

TEST_CASE("xor_data") {
    const auto data = zg::nn::xor_data();
    REQUIRE(data.size() == 4);
    CHECK(data.x == std::vector<std::array<double, 2>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}});
    CHECK(data.labels == std::vector<int>{0, 1, 1, 0});
    CHECK(data.signs == std::vector<int>{-1, 1, 1, -1});
}
