// zg::tape::checkpoint: a recurrence checkpointed every k steps holds O(T/k + k) nodes at its
// peak and gives the gradient without checkpoints to the bit; checkpoints nest.
#include "models/pendulum.hpp"

#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

namespace {

using vars = std::vector<zg::var>;

using bench::pendulum;

/// The largest tape size seen: after recording and inside every run of a checkpoint's function.
std::size_t peak_nodes = 0;
void note_size() {
    peak_nodes = std::max<std::size_t>(peak_nodes, zg::tape::this_thread_tape().size());
}

/// T steps in checkpoints of k steps (the last may be shorter), or plain when k == 0.
zg::var loss(std::span<const zg::var> start, std::size_t steps, std::size_t k) {
    vars state(start.begin(), start.end());
    if (k == 0) {
        state = pendulum(std::span<const zg::var>(state), steps);
    } else {
        for (std::size_t done = 0; done < steps; done += k) {
            const std::size_t now = std::min(k, steps - done);
            state = zg::tape::checkpoint(
                [now](auto s) {
                    auto out = pendulum(s, now);
                    note_size();
                    return out;
                },
                state);
        }
    }
    note_size();
    return state[0] * state[0] + 0.5 * state[1];
}

} // namespace

TEST_CASE("100,000 steps in checkpoints of 316: the same gradient, a small peak") {
    const std::size_t steps = 100000, k = 316;
    const std::vector<double> start{1.0, 0.0, 9.81};
    peak_nodes = 0;
    const auto [value, grad] = zg::tape::value_and_grad(
        [&](std::span<const zg::var> s) { return loss(s, steps, 0); }, start);
    const std::size_t plain_peak = peak_nodes;
    peak_nodes = 0;
    const auto [checked_value, checked_grad] = zg::tape::value_and_grad(
        [&](std::span<const zg::var> s) { return loss(s, steps, k); }, start);
    const std::size_t checkpointed_peak = peak_nodes;
    CHECK(checked_value == value);
    const auto& g = std::get<0>(grad);
    const auto& cg = std::get<0>(checked_grad);
    for (std::size_t i = 0; i < 3; ++i) {
        INFO("d loss / d start[", i, "]");
        CHECK(cg[i] == g[i]);
    }
    // The plain recording holds two statements a step; the checkpointed one 3 nodes per
    // checkpoint (its outputs) plus one checkpoint's steps while the sweep runs it again.
    INFO("peak nodes: plain ", plain_peak, ", checkpointed ", checkpointed_peak);
    CHECK(plain_peak >= 2 * steps);
    const std::size_t per_step = plain_peak / steps + 1;
    CHECK(checkpointed_peak <= 3 * (steps / k + 1) + per_step * k + 64);
    CHECK(checkpointed_peak * 50 <= plain_peak);
}

TEST_CASE("nested checkpoints") {
    const std::vector<double> start{0.4, 0.2, 4.0};
    const auto nested = [](std::span<const zg::var> s) {
        // 4 outer checkpoints of 25 steps, each 5 inner checkpoints of 5 steps.
        vars state(s.begin(), s.end());
        for (int outer = 0; outer < 4; ++outer)
            state = zg::tape::checkpoint(
                [](auto x) {
                    using T = std::remove_const_t<typename decltype(x)::value_type>;
                    std::vector<T> inner(x.begin(), x.end());
                    for (int i = 0; i < 5; ++i) {
                        if constexpr (std::is_same_v<T, double>)
                            inner = pendulum(std::span<const T>(inner), 5);
                        else
                            inner =
                                zg::tape::checkpoint([](auto y) { return pendulum(y, 5); }, inner);
                    }
                    return inner;
                },
                state);
        return state[0] * state[1] + state[2] * 0.0;
    };
    const auto plain = [](std::span<const zg::var> s) {
        const vars state = pendulum(s, 100);
        return state[0] * state[1] + state[2] * 0.0;
    };
    const auto g = zg::tape::grad(nested, start);
    const auto expected = zg::tape::grad(plain, start);
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(std::get<0>(g)[i] == std::get<0>(expected)[i]);
    CHECK(zg::tape::this_thread_tape().size() == 0);
}

TEST_CASE("an exception from f in the sweep leaves the tape usable") {
    zg::tape::scope scope;
    const zg::var a = 0.5;
    bool again = false;
    const vars out = zg::tape::checkpoint(
        [&again](auto s) {
            using T = std::remove_const_t<typename decltype(s)::value_type>;
            if (!std::is_same_v<T, double> && again) throw std::runtime_error("diverged");
            return std::vector<T>{s[0] * s[0]};
        },
        vars{a});
    again = true;
    const auto nodes = a.tape().size();
    CHECK_THROWS_AS(out[0].backward(), std::runtime_error);
    CHECK(a.tape().size() == nodes);
    again = false;
    a.grad() = 0;
    out[0].backward();
    CHECK(a.grad() == 1.0);
    const zg::var b = a * 3.0;
    a.grad() = 0;
    b.backward();
    CHECK(a.grad() == 3.0);
}
