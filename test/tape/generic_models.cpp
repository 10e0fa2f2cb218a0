// bench/'s generic objectives (ADBench's LSTM and GMM, a hierarchical model, a Kalman filter, an
// MLP, a pendulum, the suite's small functions), each written once over the scalar type, on
// double, zg::var and zg::dual.
#include "generic_check.hpp"

#include "models/gmm.hpp"
#include "models/hierarchical.hpp"
#include "models/kalman.hpp"
#include "models/lstm.hpp"
#include "models/mlp.hpp"
#include "models/pendulum.hpp"

#include "functions.hpp"

#include <zerograd/zerograd.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <span>
#include <tuple>
#include <vector>

TEST_CASE("the generic objectives of bench/ in every mode") {
    SUBCASE("ADBench's LSTM, by hand too") {
        const auto p = models::lstm::make(2, 4, 3);
        const auto f = [&](auto v) { return models::lstm::loop_objective(v, p); };
        const std::vector<double> x = models::lstm::point(p);
        check_every_scalar(f, x);
        std::vector<double> hand(x.size());
        models::lstm::gradient(x, hand, p);
        const auto tape = std::get<0>(
            zg::tape::grad([&](std::span<const zg::var> v) { return f(v); }, x));
        for (std::size_t i = 0; i < x.size(); ++i)
            CHECK(tape[i] == doctest::Approx(hand[i]).epsilon(1e-12));
    }
    SUBCASE("ADBench's GMM") {
        const auto p = models::gmm::make(2, 3, 5);
        check_every_scalar([&](auto v) { return models::gmm::loop_objective(v, p); },
                           models::gmm::point(p), 1e-6);
    }
    SUBCASE("a hierarchical model, a Kalman filter, an MLP, a pendulum") {
        const auto h = models::hierarchical::make(8, 2);
        check_every_scalar([&](auto v) { return models::hierarchical::loop_objective(v, h); },
                           models::hierarchical::point(h));
        const auto k = models::kalman::make(20);
        check_every_scalar([&](auto v) { return models::kalman::loop_objective(v, k); },
                           models::kalman::point());
        const auto m = models::mlp::make(4, 3, 5);
        check_every_scalar([&](auto v) { return models::mlp::loop_objective(v, m); },
                           models::mlp::point(m));
        check_every_scalar(
            [](auto v) {
                const auto s = bench::pendulum(v, 20);
                return s[0] * s[1] + s[2];
            },
            {0.4, 0.1, 9.81});
    }
    SUBCASE("the suite's small functions") {
        const std::vector<double> x = {0.3, -1.2, 0.8, 1.5, -0.4};
        check_every_scalar([](auto v) { return bench::pair_sin(v); }, x);
        check_every_scalar([](auto v) { return bench::rosenbrock(v); }, x);
        check_every_scalar([](auto v) { return bench::log_sum_exp(v); }, x);
    }
}

