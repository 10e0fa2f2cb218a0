// A predator-prey model (Lotka-Volterra) integrated over 100,000 midpoint steps, and the gradient
// of its final state by the initial populations and the four rates, recorded whole and with
// zg::tape::checkpoint every 316 steps: the same gradient, to the bit, from a tape that holds a
// few hundred steps at a time instead of all of them.
#include <zerograd/tape.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <span>
#include <tuple>
#include <vector>

namespace {

const std::size_t steps = 100000, every = 316; // every ~ sqrt(steps)
const double dt = 1e-4;

/// `count` midpoint steps of prey x and predators y from s = (x, y, alpha, beta, gamma, delta):
/// x' = alpha x - beta x y, y' = delta x y - gamma y. Generic in the scalar, as checkpoint wants.
template <class T>
auto integrate(std::span<T> s, std::size_t count) {
    using U = std::remove_const_t<T>;
    std::vector<U> state(s.begin(), s.end());
    const U &alpha = state[2], &beta = state[3], &gamma = state[4], &delta = state[5];
    for (std::size_t t = 0; t < count; ++t) {
        const U x = state[0], y = state[1];
        const U xm = x + 0.5 * dt * (alpha * x - beta * x * y);
        const U ym = y + 0.5 * dt * (delta * x * y - gamma * y);
        state[0] = x + dt * (alpha * xm - beta * xm * ym);
        state[1] = y + dt * (delta * xm * ym - gamma * ym);
    }
    return state;
}

/// The most bytes the tape held at the points noted: after recording, and in every run of a
/// checkpoint's steps during the sweep.
std::size_t peak_bytes = 0;
void note_bytes() { peak_bytes = std::max(peak_bytes, zg::tape::this_thread_tape().bytes_used()); }

zg::var final_populations(std::span<const zg::var> start, bool checkpointed) {
    std::vector<zg::var> state(start.begin(), start.end());
    if (!checkpointed) {
        state = integrate(std::span<const zg::var>(state), steps);
    } else {
        for (std::size_t done = 0; done < steps; done += every)
            state = zg::tape::checkpoint(
                [count = std::min(every, steps - done)](auto s) {
                    auto out = integrate(s, count);
                    note_bytes();
                    return out;
                },
                state);
    }
    note_bytes();
    return state[0] + state[1];
}

} // namespace

int main() {
    const std::vector<double> start{10.0, 5.0, 1.1, 0.4, 0.4, 0.1};
    const char* names[] = {"x0", "y0", "alpha", "beta", "gamma", "delta"};
    std::vector<double> gradients[2];
    std::size_t peaks[2];
    for (const bool checkpointed : {false, true}) {
        peak_bytes = 0;
        const auto [value, grad] = zg::tape::value_and_grad(
            [&](std::span<const zg::var> s) { return final_populations(s, checkpointed); }, start);
        gradients[checkpointed] = std::get<0>(grad);
        peaks[checkpointed] = peak_bytes;
        if (!checkpointed) std::printf("x(10) + y(10) = %.9f after %zu steps\n", value, steps);
    }
    for (std::size_t i = 0; i < start.size(); ++i)
        std::printf("d/d%-6s %16.9f\n", names[i], gradients[0][i]);
    std::printf("with checkpoints every %zu steps: %s gradient\n", every,
                gradients[0] == gradients[1] ? "the same" : "a DIFFERENT");
    std::printf("tape at its peak: %.1f MB recorded whole, %.1f kB with checkpoints (%zux less)\n",
                double(peaks[0]) / 1e6, double(peaks[1]) / 1e3, peaks[0] / peaks[1]);
}
