// zg::nn::rng: the stream is xoshiro256** seeded by splitmix64, pinned to values computed by an
// independent implementation, and its doubles have the documented ranges and moments.
#include <zerograd/nn/random.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <random>

static_assert(std::uniform_random_bit_generator<zg::nn::rng>);

TEST_CASE("the stream of integers is fixed") {
    SUBCASE("seed 0") {
        zg::nn::rng generator(0);
        CHECK(generator() == 0x99ec5f36cb75f2b4);
        CHECK(generator() == 0xbf6e1f784956452a);
        CHECK(generator() == 0x1a5f849d4933e6e0);
    }
    SUBCASE("seed 42") {
        zg::nn::rng generator(42);
        CHECK(generator() == 0x15780b2e0c2ec716);
        CHECK(generator() == 0x6104d9866d113a7e);
        CHECK(generator() == 0xae17533239e499a1);
    }
    SUBCASE("equal seeds, equal streams; nearby seeds, different streams") {
        zg::nn::rng a(5), b(5), c(6);
        for (int i = 0; i < 100; ++i) {
            const auto x = a();
            CHECK(x == b());
            CHECK(x != c());
        }
    }
}

TEST_CASE("doubles") {
    SUBCASE("uniform: 53 bits scaled into [0, 1), then into [low, high)") {
        zg::nn::rng generator(42);
        CHECK(generator.uniform() == 0.08386297105988216);
        CHECK(generator.uniform() == 0.3789802506626686);
        for (int i = 0; i < 10000; ++i) {
            const double u = generator.uniform(-1, 1);
            REQUIRE(u >= -1);
            REQUIRE(u < 1);
        }
    }
    SUBCASE("normal: Box-Muller, both values of a transform used in turn") {
        zg::nn::rng generator(7);
        CHECK(generator.normal() == doctest::Approx(-0.2790239910251981).epsilon(1e-15));
        CHECK(generator.normal() == doctest::Approx(1.5277231859624536).epsilon(1e-15));
    }
    SUBCASE("normal: mean 0 and variance 1 within sampling error") {
        zg::nn::rng generator(3);
        constexpr int n = 200000;
        double sum = 0, sum_of_squares = 0;
        for (int i = 0; i < n; ++i) {
            const double z = generator.normal(2.0, 3.0);
            sum += z;
            sum_of_squares += z * z;
        }
        const double mean = sum / n, variance = sum_of_squares / n - mean * mean;
        CHECK(std::abs(mean - 2.0) < 0.03);     // sd of the mean: 3 / sqrt(n) = 0.0067
        CHECK(std::abs(variance - 9.0) < 0.15); // sd of the variance: 9 sqrt(2 / n) = 0.028
    }
    SUBCASE("below: every value in range, none favoured") {
        zg::nn::rng generator(11);
        int counts[6] = {};
        for (int i = 0; i < 60000; ++i) {
            const auto k = generator.below(6);
            REQUIRE(k < 6);
            ++counts[k];
        }
        for (const int count : counts)
            CHECK(std::abs(count - 10000) < 500); // sd 91
        CHECK(generator.below(1) == 0);
    }
    SUBCASE("drives <random>'s distributions") {
        zg::nn::rng generator(1);
        std::uniform_int_distribution<int> dice(1, 6);
        const int roll = dice(generator);
        CHECK(roll >= 1);
        CHECK(roll <= 6);
    }
}
