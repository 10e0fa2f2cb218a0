// zg::nn::adam: PyTorch's defaults and its bias-corrected update, the first steps computed by
// hand; weight decay; zero_grad; no allocation per step; a custom parameter type.
#include "allocation_counter.hpp"

#include <zerograd/nn/adam.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace {

// A parameter type with neither data() nor grad(): the optimizers reach it through a
// specialization of zg::nn::parameter_traits.
struct pair_parameter {
    double value[2];
    double gradient[2];
};

} // namespace

template <>
struct zg::nn::parameter_traits<pair_parameter> {
    static std::span<double> values(pair_parameter& p) { return p.value; }
    static std::span<double> grads(pair_parameter& p) { return p.gradient; }
};

using doctest::Contains;

TEST_CASE("adam's defaults are PyTorch's") {
    const zg::nn::adam_options o;
    CHECK(o.learning_rate == 1e-3);
    CHECK(o.beta1 == 0.9);
    CHECK(o.beta2 == 0.999);
    CHECK(o.eps == 1e-8);
    CHECK(o.weight_decay == 0);
}

TEST_CASE("adam's first steps by hand") {
    zg::var p = 1.0;
    zg::nn::adam optimizer({p});

    // Step 1, g = 0.5: m = 0.1 * 0.5 = 0.05, v = 0.001 * 0.25 = 0.00025; corrected, m / 0.1 = 0.5
    // and sqrt(v / 0.001) = 0.5, so the step is lr * 0.5 / (0.5 + eps): almost exactly lr.
    p.grad() = 0.5;
    optimizer.step();
    CHECK(optimizer.steps() == 1);
    CHECK(p.data() == doctest::Approx(1 - 1e-3 * 0.5 / (0.5 + 1e-8)).epsilon(1e-15));
    CHECK(p.data() == doctest::Approx(0.99900000002).epsilon(1e-15)); // torch.optim.Adam
    const double after_one = p.data();

    // Step 2, g = -0.25: m = 0.045 - 0.025 = 0.02, v = 0.999 * 0.00025 + 0.001 * 0.0625.
    p.grad() = -0.25;
    optimizer.step();
    const double m = 0.02, v = 0.999 * 0.00025 + 0.001 * 0.0625;
    const double m_hat = m / (1 - 0.9 * 0.9),
                 v_hat_sqrt = std::sqrt(v) / std::sqrt(1 - 0.999 * 0.999);
    CHECK(p.data() ==
          doctest::Approx(after_one - 1e-3 * m_hat / (v_hat_sqrt + 1e-8)).epsilon(1e-14));
    CHECK(p.data() ==
          doctest::Approx(0.9987336629870784).epsilon(1e-15)); // torch.optim.Adam gives this
}

TEST_CASE("adam with weight decay and a custom parameter type") {
    std::vector<pair_parameter> parameters{{{1.0, -1.0}, {0.0, 0.0}}};
    zg::nn::adam_t optimizer(parameters, {.learning_rate = 0.1, .weight_decay = 0.5});
    // With a zero gradient, the decay alone (0.5 * p) is the gradient: each value moves by about
    // the learning rate towards zero.
    optimizer.step();
    const auto& held = optimizer.parameters()[0];
    const double g = 0.5; // 0.5 * |p|
    const double expected = 1 - 0.1 * (0.1 * g / 0.1) / (std::sqrt(0.001 * g * g / 0.001) + 1e-8);
    CHECK(held.value[0] == doctest::Approx(expected).epsilon(1e-15));
    CHECK(held.value[1] == doctest::Approx(-expected).epsilon(1e-15));
}

TEST_CASE("adam: zero_grad, bad settings, no allocation per step") {
    std::vector<zg::var> parameters;
    for (int i = 0; i < 100; ++i)
        parameters.emplace_back(i * 0.01);
    zg::nn::adam optimizer(parameters, {.learning_rate = 0.01});
    const long before = test::allocation_count();
    for (int step = 0; step < 100; ++step) {
        for (auto& p : parameters)
            p.grad() = 1.0;
        optimizer.step();
        optimizer.zero_grad();
    }
    CHECK(test::allocation_count() == before);
    for (const auto& p : parameters)
        CHECK(p.grad() == 0);
    CHECK_THROWS_AS(zg::nn::adam(parameters, {.beta1 = 1.0}), zg::error);
    CHECK_THROWS_AS(zg::nn::adam(parameters, {.eps = -1}), zg::error);
}

TEST_CASE("adam refuses NaN and infinite settings, naming the setting and its value") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<zg::var> parameters{zg::var(1.0), zg::var(-2.0)};
    CHECK_THROWS_WITH_AS(zg::nn::adam(parameters, {.learning_rate = nan}),
                         "zg::nn::adam: learning_rate is nan; it must be a finite number >= 0",
                         zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::adam(parameters, {.beta2 = nan}),
                         "zg::nn::adam: beta2 is nan; it must be in [0, 1)", zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::adam(parameters, {.beta1 = -0.5}),
                         "zg::nn::adam: beta1 is -0.5; it must be in [0, 1)", zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::adam(parameters, {.eps = inf}),
                         "zg::nn::adam: eps is inf; it must be a finite number >= 0", zg::error);
    CHECK_THROWS_WITH_AS(zg::nn::adam(parameters, {.weight_decay = -inf}),
                         Contains("weight_decay is -inf"), zg::error);
    // A setting spoiled between steps is refused before any parameter moves.
    zg::nn::adam optimizer(parameters, {.learning_rate = 0.1});
    for (const auto& p : parameters)
        p.grad() = 1.0;
    optimizer.options().beta2 = nan;
    CHECK_THROWS_WITH_AS(optimizer.step(), Contains("beta2 is nan"), zg::error);
    CHECK(parameters[0].data() == 1.0);
    CHECK(parameters[1].data() == -2.0);
    optimizer.options().beta2 = 0.999;
    optimizer.step();
    CHECK(parameters[0].data() == doctest::Approx(1 - 0.1 / (1 + 1e-8)).epsilon(1e-12));
    CHECK(optimizer.steps() == 1);
}
