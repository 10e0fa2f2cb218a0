// zg::tape::checkpoint: a recurrence checkpointed every k steps holds O(T/k + k) nodes at its
// peak and gives the gradient without checkpoints to the bit, parameters that every block reads
// included; checkpoints nest; an infinite adjoint from one keeps zeros strong below it. (A retry
// after f threw: external.cpp.)
#include "models/pendulum.hpp"

#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
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

namespace {

/// Steps t0, ..., t0 + n - 1 of h = tanh(w h + u s_t), s_t data: the state is (w, u, h), or
/// (h, w, u) when `h_first`, the parameters passed through so that every block reads them.
template <class T>
std::vector<T> recurrence(std::span<const T> state, int t0, int n, bool h_first) {
    const T w = state[h_first ? 1 : 0], u = state[h_first ? 2 : 1];
    T h = state[h_first ? 0 : 2];
    for (int t = t0; t < t0 + n; ++t)
        h = tanh(w * h + u * std::sin(0.1 * t));
    return h_first ? std::vector<T>{h, w, u} : std::vector<T>{w, u, h};
}

/// How a block is checkpointed.
struct blocks {
    int k = 0;            // steps a block; 0: no checkpoints
    bool all = false;     // the outputs are the whole state (w and u too), not h alone
    bool h_first = false; // the state in the order (h, w, u)
    bool twice = false;   // the inputs list w twice (h last, h alone passed on)
};

/// h after `steps` steps from (w, u, h).
zg::var recurrence_loss(std::span<const zg::var> start, int steps, blocks b) {
    if (b.k == 0) return recurrence(start, 0, steps, false)[2];
    const std::size_t h = b.h_first ? 0 : 2;
    vars state = b.h_first ? vars{start[2], start[0], start[1]} : vars(start.begin(), start.end());
    if (b.twice) state.push_back(state[b.h_first ? 1 : 0]);
    for (int t0 = 0; t0 < steps; t0 += b.k) {
        const int n = std::min(b.k, steps - t0);
        const vars out = zg::tape::checkpoint(
            [t0, n, b, h](auto s) {
                using T = std::remove_const_t<typename decltype(s)::value_type>;
                if (b.twice) { // (w, u, h, w): odd steps read w's second copy
                    T state_h = s[2];
                    for (int t = t0; t < t0 + n; ++t)
                        state_h = tanh(s[t % 2 == 0 ? 0 : 3] * state_h + s[1] * std::sin(0.1 * t));
                    return std::vector<T>{state_h};
                }
                auto next = recurrence(s, t0, n, b.h_first);
                return b.all ? next : std::vector<T>{next[h]};
            },
            state);
        if (b.all)
            state = out;
        else
            state[h] = out[0];
    }
    return state[h];
}

} // namespace

TEST_CASE("parameters every block reads get the gradient without checkpoints, to the bit") {
    // A slow decay (w near 1): every block's share of dh/dw counts, and adding each block's sum
    // at once would round differently from adding share by share.
    for (const auto& start : {std::vector<double>{0.999, 0.01, 0.1},
                              std::vector<double>{0.99, 0.05, -0.3},
                              std::vector<double>{1.01, 0.1, 0.2}}) {
        const auto plain = std::get<0>(zg::tape::grad(
            [](std::span<const zg::var> s) { return recurrence_loss(s, 1000, {}); }, start));
        for (const int k : {50, 7, 1000})
            for (const bool all : {false, true})
                for (const bool h_first : {false, true}) {
                    const blocks b{k, all, h_first, false};
                    const auto checkpointed = std::get<0>(zg::tape::grad(
                        [&](std::span<const zg::var> s) { return recurrence_loss(s, 1000, b); },
                        start));
                    INFO("w = ", start[0], ", blocks of ", k, all ? ", parameters passed on" : "",
                         h_first ? ", h first" : "");
                    for (std::size_t i = 0; i < 3; ++i)
                        CHECK(checkpointed[i] == plain[i]);
                }
        // An input listed twice: its copies' shares are added together first, so the last bits
        // may differ, as in any sum added in another order.
        const blocks twice{50, false, false, true};
        const auto listed_twice = std::get<0>(zg::tape::grad(
            [&](std::span<const zg::var> s) { return recurrence_loss(s, 1000, twice); }, start));
        for (std::size_t i = 0; i < 3; ++i)
            CHECK(listed_twice[i] == doctest::Approx(plain[i]).epsilon(1e-14));
    }
}

TEST_CASE("a state the loss reads and the next block reads twice, to the bit") {
    // The loss sums every block's h, recorded at the end: h_b is read from above and, twice, by
    // block b + 1's first step, whose share the sweep without checkpoints carries (the node
    // recorded just before) and adds at once.
    const auto loss = [](std::span<const zg::var> start, bool checkpointed) {
        vars state(start.begin(), start.end()), hs;
        for (int t0 = 0; t0 < 1000; t0 += 50) {
            const auto block = [t0](auto s) {
                using T = std::remove_const_t<typename decltype(s)::value_type>;
                T h = s[0];
                for (int t = t0; t < t0 + 50; ++t)
                    h = tanh(s[1] * h + h * h * s[2] + 0.1 * std::sin(0.1 * t));
                return std::vector<T>{h};
            };
            state[0] = checkpointed ? zg::tape::checkpoint(block, state)[0]
                                    : block(std::span<const zg::var>(state))[0];
            hs.push_back(state[0]);
        }
        zg::var total = 0.0;
        for (const zg::var& h : hs)
            total = total + h;
        return total;
    };
    const std::vector<double> start{0.3, 0.999, 0.2};
    const auto plain = std::get<0>(
        zg::tape::grad([&](std::span<const zg::var> s) { return loss(s, false); }, start));
    const auto checkpointed = std::get<0>(
        zg::tape::grad([&](std::span<const zg::var> s) { return loss(s, true); }, start));
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(checkpointed[i] == plain[i]);
}

TEST_CASE("a checkpoint recorded after a node it does not read, to the bit") {
    // f's first step reads its last input twice, and the node recorded just before the
    // checkpoint is not an input: without the checkpoint, the input's two shares are added to
    // its adjoint one at a time.
    const auto f = [](auto s) {
        using T = std::remove_const_t<typename decltype(s)::value_type>;
        return std::vector<T>{s[1] * s[1] * s[0]};
    };
    const auto loss = [&](std::span<const zg::var> s, bool checkpointed) {
        const zg::var between = s[0] * 0.25; // read by the loss only
        const vars in{s[0], s[1]};
        const zg::var y = checkpointed ? zg::tape::checkpoint(f, in)[0]
                                       : f(std::span<const zg::var>(in))[0];
        return zg::var(y + s[1] * 0.3 + between);
    };
    for (int k = 0; k < 200; ++k) {
        const std::vector<double> at{std::sin(1.3 * k) * 2, std::cos(0.7 * k + 0.2) * 2};
        const auto plain = std::get<0>(
            zg::tape::grad([&](std::span<const zg::var> s) { return loss(s, false); }, at));
        const auto checkpointed = std::get<0>(
            zg::tape::grad([&](std::span<const zg::var> s) { return loss(s, true); }, at));
        INFO("at ", at[0], ", ", at[1]);
        CHECK(checkpointed[0] == plain[0]);
        CHECK(checkpointed[1] == plain[1]);
    }
}

TEST_CASE("an infinite adjoint from a checkpoint keeps zeros strong below it") {
    // h = relu(x) at x = -1 is 0; the checkpoint computes sqrt(h) + h, whose derivative at 0 is
    // infinite: dh/dx is exactly 0, so d/dx is 0, as without the checkpoint.
    for (const bool infinite_before : {false, true}) {
        zg::tape::scope scope;
        if (infinite_before) (void)zg::var(std::numeric_limits<double>::infinity());
        const zg::var x = -1.0;
        const zg::var h = relu(x);
        const vars out = zg::tape::checkpoint(
            [](auto s) {
                using T = std::remove_const_t<typename decltype(s)::value_type>;
                return std::vector<T>{sqrt(s[0]) + s[0]};
            },
            vars{h});
        out[0].backward();
        INFO("infinite before: ", infinite_before);
        CHECK(std::isinf(h.grad()));
        CHECK(x.grad() == 0.0);
        x.grad() = 0;
        const zg::var plain = sqrt(h) + h;
        plain.backward();
        CHECK(x.grad() == 0.0);
    }
}
