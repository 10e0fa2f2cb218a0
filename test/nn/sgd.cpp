// zg::nn::sgd: plain, momentum, dampening, Nesterov and weight decay updates against ones
// computed by hand; zero_grad; no allocation per step; parameters of other types.
#include "allocation_counter.hpp"

#include <zerograd/nn/sgd.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <vector>

namespace {

// A stand-in for a tensor: contiguous values and gradients, reached through data() and grad().
struct block {
    std::vector<double> values, gradients;
    std::span<double> data() { return values; }
    std::span<double> grad() { return gradients; }
};

} // namespace

using doctest::Contains;

TEST_CASE("sgd updates by hand") {
    zg::var p = 1.0, q = -2.0;
    SUBCASE("plain: p -= lr * grad") {
        zg::nn::sgd optimizer({p, q}, {.learning_rate = 0.1});
        p.grad() = 0.5;
        q.grad() = -1.0;
        optimizer.step();
        CHECK(p.data() == 1.0 - 0.1 * 0.5);
        CHECK(q.data() == -2.0 + 0.1 * 1.0);
        optimizer.zero_grad();
        CHECK(p.grad() == 0);
        CHECK(q.grad() == 0);
    }
    SUBCASE("momentum and weight decay: the buffer starts as the first gradient") {
        zg::nn::sgd optimizer({p}, {.learning_rate = 0.1, .momentum = 0.9, .weight_decay = 0.1});
        p.grad() = 0.5;
        optimizer.step(); // g = 0.5 + 0.1 * 1 = 0.6, b = 0.6
        CHECK(p.data() == doctest::Approx(0.94).epsilon(1e-15));
        optimizer.step(); // g = 0.5 + 0.1 * 0.94 = 0.594, b = 0.9 * 0.6 + 0.594 = 1.134
        CHECK(p.data() == doctest::Approx(0.94 - 0.1134).epsilon(1e-15));
    }
    SUBCASE("dampening scales the new gradient after the first step") {
        zg::nn::sgd optimizer({p}, {.learning_rate = 0.1, .momentum = 0.9, .dampening = 0.5});
        p.grad() = 0.5;
        optimizer.step(); // b = 0.5
        CHECK(p.data() == doctest::Approx(0.95).epsilon(1e-15));
        optimizer.step(); // b = 0.45 + 0.5 * 0.5 = 0.7
        CHECK(p.data() == doctest::Approx(0.95 - 0.07).epsilon(1e-15));
    }
    SUBCASE("Nesterov: d = g + momentum * b") {
        zg::nn::sgd optimizer({p}, {.learning_rate = 0.1, .momentum = 0.9, .nesterov = true});
        p.grad() = 0.5;
        optimizer.step(); // b = 0.5, d = 0.5 + 0.45
        CHECK(p.data() == doctest::Approx(1 - 0.095).epsilon(1e-15));
        p.grad() = 1.0;
        optimizer.step(); // b = 0.45 + 1 = 1.45, d = 1 + 1.305
        CHECK(p.data() == doctest::Approx(1 - 0.095 - 0.2305).epsilon(1e-15));
    }
    SUBCASE("the learning rate may change between steps") {
        zg::nn::sgd optimizer({p}, {.learning_rate = 0.1});
        p.grad() = 1.0;
        optimizer.step();
        optimizer.options().learning_rate = 0.01;
        optimizer.step();
        CHECK(p.data() == doctest::Approx(1 - 0.1 - 0.01).epsilon(1e-15));
    }
    SUBCASE("settings PyTorch refuses are refused") {
        CHECK_THROWS_AS(zg::nn::sgd({p}, {.learning_rate = -1}), zg::error);
        CHECK_THROWS_AS(zg::nn::sgd({p}, {.nesterov = true}), zg::error);
        CHECK_THROWS_AS(zg::nn::sgd({p}, {.momentum = 0.9, .dampening = 0.1, .nesterov = true}),
                        zg::error);
    }
    SUBCASE("NaN and infinite settings are refused, named with their values") {
        CHECK_THROWS_WITH_AS(zg::nn::sgd({p}, {.learning_rate = std::nan("")}),
                             "zg::nn::sgd: learning_rate is nan; it must be a finite number >= 0",
                             zg::error);
        CHECK_THROWS_WITH_AS(zg::nn::sgd({p}, {.momentum = HUGE_VAL}),
                             "zg::nn::sgd: momentum is inf; it must be a finite number >= 0",
                             zg::error);
        CHECK_THROWS_WITH_AS(zg::nn::sgd({p}, {.dampening = 0.25, .nesterov = true}),
                             Contains("momentum is 0; it must be > 0 for Nesterov momentum"),
                             zg::error);
        zg::nn::sgd optimizer({p}, {.learning_rate = 0.1});
        p.grad() = 1.0;
        optimizer.options().weight_decay = std::nan("");
        CHECK_THROWS_WITH_AS(optimizer.step(), Contains("weight_decay is nan"), zg::error);
        CHECK(p.data() == 1.0);
    }
}

TEST_CASE("sgd allocates nothing per step") {
    std::vector<zg::var> parameters;
    for (int i = 0; i < 100; ++i)
        parameters.emplace_back(i * 0.01);
    zg::nn::sgd optimizer(parameters, {.learning_rate = 0.1, .momentum = 0.9});
    const long before = test::allocation_count();
    for (int step = 0; step < 100; ++step) {
        for (auto& p : parameters)
            p.grad() = 1.0;
        optimizer.step();
        optimizer.zero_grad();
    }
    CHECK(test::allocation_count() == before);
}

TEST_CASE("sgd on parameters whose data() and grad() are spans, as tensors' will be") {
    std::vector<block> blocks{{{1.0, 2.0}, {0.5, -0.5}}, {{3.0}, {1.0}}};
    zg::nn::sgd_t optimizer(blocks, {.learning_rate = 0.1}); // sgd_t<block>, deduced
    static_assert(std::is_same_v<decltype(optimizer)::parameter_type, block>);
    optimizer.step();
    // The optimizer holds copies of the blocks here; a tensor's copies share their storage.
    const auto held = optimizer.parameters();
    CHECK(held[0].values == std::vector<double>{0.95, 2.05});
    CHECK(held[1].values == std::vector<double>{2.9});
    optimizer.zero_grad(); // the held blocks' own gradients, which no handle shares
    CHECK(optimizer.parameters()[0].gradients == std::vector<double>{0.0, 0.0});
    CHECK(optimizer.parameters()[1].gradients == std::vector<double>{0.0});
    static_assert(zg::nn::trainable<block>);
    static_assert(zg::nn::trainable<zg::var>);
    static_assert(!zg::nn::trainable<double>);
}
