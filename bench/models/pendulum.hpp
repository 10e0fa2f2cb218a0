// bench/models/pendulum.hpp: a damped pendulum (angle, velocity, stiffness) integrated by
// semi-implicit Euler, written once for every scalar: the long recurrence that checkpointing is
// for (each step reads only the step before).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace bench {

/// One step of 1 ms from state s = (angle, velocity, stiffness).
template <class T>
std::vector<T> pendulum_step(std::span<const T> s) {
    using std::sin;
    const double dt = 1e-3;
    const T velocity = s[1] - dt * (s[2] * sin(s[0]) + 0.1 * s[1]);
    return {s[0] + dt * velocity, velocity, s[2]};
}

/// `steps` steps from s. Generic in the span's element, as zg::tape::checkpoint calls it.
template <class T>
std::vector<std::remove_const_t<T>> pendulum(std::span<T> s, std::size_t steps) {
    using U = std::remove_const_t<T>;
    std::vector<U> state(s.begin(), s.end());
    for (std::size_t t = 0; t < steps; ++t)
        state = pendulum_step<U>(state);
    return state;
}

} // namespace bench
