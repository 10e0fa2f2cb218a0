// zg::parallel::value_and_grad_sum: a normal likelihood over uneven shards gives the same bits on
// 1, 2, 3, 4 and 8 threads, agrees with one tape-mode gradient of the whole sum and with the
// closed form, and a shard's exception reaches the caller with every worker joined.
#include "models/normal_likelihood.hpp"

#include <zerograd/parallel.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using models::normal_likelihood::shard_nll;

// 20,000 draws of N(1.5, 2^2) in 38 shards of uneven sizes.
std::vector<std::vector<double>> make_shards() {
    std::mt19937_64 generator(7);
    std::normal_distribution<double> draw(1.5, 2.0);
    std::vector<std::vector<double>> shards;
    std::size_t left = 20000;
    for (std::size_t i = 0; left > 0; ++i) {
        const std::size_t size = std::min<std::size_t>(left, 200 + (i * 397) % 700);
        std::vector<double>& shard = shards.emplace_back(size);
        for (double& x : shard)
            x = draw(generator);
        left -= size;
    }
    return shards;
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

} // namespace

TEST_CASE(
    "any number of threads gives the same bits, the whole sum's gradient and the closed form") {
    const std::vector<std::vector<double>> shards = make_shards();
    const std::vector<double> params = {1.2, std::log(1.8)};
    const auto [value, gradient] = zg::parallel::value_and_grad_sum(shard_nll, params, shards, 1);
    const std::vector<double>& g = std::get<0>(gradient);
    REQUIRE(g.size() == 2);
    for (unsigned threads : {2u, 3u, 4u, 8u, 0u}) {
        INFO(threads, " threads");
        for (int repeat = 0; repeat < 3; ++repeat) {
            const auto [v, gt] =
                zg::parallel::value_and_grad_sum(shard_nll, params, shards, threads);
            CHECK(bits(v) == bits(value));
            CHECK(bits(std::get<0>(gt)[0]) == bits(g[0]));
            CHECK(bits(std::get<0>(gt)[1]) == bits(g[1]));
        }
    }
    // One tape-mode gradient of the whole sum, added in order.
    std::vector<double> all;
    for (const auto& shard : shards)
        all.insert(all.end(), shard.begin(), shard.end());
    const auto [whole_value, whole_gradient] = zg::tape::value_and_grad(
        [&](std::span<const zg::var> p) { return shard_nll(p, all); }, params);
    CHECK(value == doctest::Approx(whole_value).epsilon(1e-13));
    CHECK(g[0] == doctest::Approx(std::get<0>(whole_gradient)[0]).epsilon(1e-13));
    CHECK(g[1] == doctest::Approx(std::get<0>(whole_gradient)[1]).epsilon(1e-13));
    // d/dmu = -sum(x - mu) / sigma^2, d/dlog_sigma = n - sum((x - mu)^2) / sigma^2.
    const double sigma = 1.8;
    double residuals = 0.0, squares = 0.0;
    for (double x : all) {
        residuals += x - 1.2;
        squares += (x - 1.2) * (x - 1.2);
    }
    CHECK(g[0] == doctest::Approx(-residuals / (sigma * sigma)).epsilon(1e-11));
    CHECK(g[1] == doctest::Approx(static_cast<double>(all.size()) - squares / (sigma * sigma))
                      .epsilon(1e-11));
}

TEST_CASE("parameters in a braced list or a span, shards of any type, no shards") {
    struct point {
        double x, y;
    };
    const std::vector<point> points = {{0.0, 1.0}, {1.0, 3.1}, {2.0, 4.9}, {3.0, 7.2}};
    // Least squares of a line, one point per shard: d/da = sum 2 (a x + b - y) x, d/db likewise.
    const auto residual = [](std::span<const zg::var> p, const point& q) {
        return square(p[0] * q.x + p[1] - q.y);
    };
    const auto [value, gradient] =
        zg::parallel::value_and_grad_sum(residual, {2.0, 1.0}, points, 3);
    double da = 0.0, db = 0.0, total = 0.0;
    for (const point& q : points) {
        const double r = 2.0 * q.x + 1.0 - q.y;
        total += r * r;
        da += 2.0 * r * q.x;
        db += 2.0 * r;
    }
    CHECK(value == doctest::Approx(total).epsilon(1e-15));
    CHECK(std::get<0>(gradient)[0] == doctest::Approx(da).epsilon(1e-15));
    CHECK(std::get<0>(gradient)[1] == doctest::Approx(db).epsilon(1e-15));
    const std::vector<double> params = {2.0, 1.0};
    const auto [empty_value, empty_gradient] = zg::parallel::value_and_grad_sum(
        residual, std::span<const double>(params), std::vector<point>{}, 4);
    CHECK(empty_value == 0.0);
    CHECK(std::get<0>(empty_gradient) == std::vector{0.0, 0.0});
}

TEST_CASE("a shard's exception reaches the caller, and the next call works") {
    const std::vector<std::vector<double>> shards = make_shards();
    const auto failing = [](std::span<const zg::var> p, const std::vector<double>& xs) {
        if (xs.size() == 597) throw std::runtime_error("shard of 597 points");
        return shard_nll(p, xs);
    };
    for (unsigned threads : {1u, 2u, 8u})
        CHECK_THROWS_WITH_AS(zg::parallel::value_and_grad_sum(failing, {1.0, 0.0}, shards, threads),
                             "shard of 597 points", std::runtime_error);
    // An error of zerograd's own, from inside f: a shape error on the parameters.
    CHECK_THROWS_AS(zg::parallel::value_and_grad_sum(
                        [](std::span<const zg::var> p, const std::vector<double>&) {
                            return zg::dot(p, std::vector{1.0, 2.0, 3.0});
                        },
                        {1.0, 0.0}, shards, 2),
                    zg::shape_error);
    const auto [value, gradient] =
        zg::parallel::value_and_grad_sum(shard_nll, {1.0, 0.0}, shards, 2);
    CHECK(std::isfinite(value));
    CHECK(std::get<0>(gradient).size() == 2);
}
