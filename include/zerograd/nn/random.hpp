// zerograd/nn/random.hpp: zg::nn::rng, a seeded random generator written out here (xoshiro256**
// seeded by splitmix64), so that initial weights and datasets are the same with every standard
// library; <random>'s distributions are not (their algorithms are implementation-defined).
#pragma once

#include "zerograd/core/config.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

namespace zg::nn {

/// A seeded random generator whose stream of integers is the same on every platform:
/// xoshiro256** (Blackman and Vigna), its state filled from the seed by splitmix64. Doubles are
/// made from the integers with IEEE arithmetic plus, for normal(), std::log, std::cos and
/// std::sin, so they agree wherever those functions are correctly rounded (glibc's are, for all
/// but very rare arguments).
///
/// Satisfies std::uniform_random_bit_generator, so it also drives <random>'s distributions.
///
///     zg::nn::rng generator(42);
///     double w = generator.uniform(-1, 1); // micrograd's random.uniform(-1, 1)
///     double z = generator.normal();       // standard normal, Box-Muller
class rng {
public:
    using result_type = std::uint64_t;

    /// A generator seeded with `seed`; equal seeds give equal streams.
    explicit rng(std::uint64_t seed = 0) {
        for (auto& word : state_)
            word = splitmix64(seed);
    }

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

    /// The next 64 random bits (xoshiro256**).
    result_type operator()() {
        const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const std::uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }

    /// Uniform in [0, 1): the top 53 bits of the next draw, so every value is a multiple of 2^-53.
    double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

    /// Uniform in [low, high), as Python's random.uniform computes it: low + (high - low) * u.
    double uniform(double low, double high) { return low + (high - low) * uniform(); }

    /// Uniform integer in [0, n) for n > 0, without modulo bias (draws again below a threshold).
    std::uint64_t below(std::uint64_t n) {
        const std::uint64_t threshold = (0 - n) % n; // 2^64 mod n: the values that would bias
        for (;;)
            if (const std::uint64_t r = (*this)(); r >= threshold) return r % n;
    }

    /// Standard normal by the Box-Muller transform; the two values one transform gives are
    /// returned by consecutive calls.
    double normal() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = 1.0 - uniform(); // in (0, 1]: log(u1) is finite
        const double u2 = uniform();
        const double radius = std::sqrt(-2.0 * std::log(u1));
        const double angle = 2.0 * std::numbers::pi * u2;
        spare_ = radius * std::sin(angle);
        has_spare_ = true;
        return radius * std::cos(angle);
    }

    /// Normal with the given mean and standard deviation: mean + sd * normal().
    double normal(double mean, double sd) { return mean + sd * normal(); }

private:
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
    }

    // Advances `x` and returns the next splitmix64 output: consecutive outputs fill the state, so
    // nearby seeds still give unrelated streams (and never the all-zero state).
    static constexpr std::uint64_t splitmix64(std::uint64_t& x) {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
        z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
        return z ^ (z >> 31);
    }

    std::uint64_t state_[4];
    double spare_ = 0;
    bool has_spare_ = false;
};

/// The seed of a model made without one (neuron, layer, mlp, linear). Chosen so that the
/// micrograd-style tutorials' XOR example trains out of the box: with it micrograd's 2-4-4-1
/// network, relu or tanh, learns XOR under their loops (plain gradient descent at 0.05 to 0.1, 100
/// or 1,000 steps) and under Adam; on tensors, with PyTorch's smaller draws, it needs the 1,000
/// steps.
/// From seed 0, three of the four relu units of that network's second layer start dead for every
/// input, and it ends predicting 0.5 for all four.
inline constexpr std::uint64_t default_seed = 21;

} // namespace zg::nn
