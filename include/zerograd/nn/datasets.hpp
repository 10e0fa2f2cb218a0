// zerograd/nn/datasets.hpp: small labelled point sets for examples and tests: scikit-learn's two
// moons, made the same on every platform from a seed, and XOR.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/nn/random.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

namespace zg::nn {

/// Points in the plane with a class each, in two conventions: `labels` are 0 and 1
/// (scikit-learn's y, for mse and cross_entropy) and `signs` are -1 and +1 (micrograd's
/// y * 2 - 1, for hinge), with signs[i] == 2 * labels[i] - 1.
///
///     auto data = zg::nn::xor_data();
///     model(data.x[3]); // the point (1, 1), whose label is 0 and sign -1
struct dataset {
    std::vector<std::array<double, 2>> x;
    std::vector<int> labels;
    std::vector<int> signs;

    std::size_t size() const { return x.size(); }
};

/// scikit-learn's make_moons: n / 2 points on the upper half circle (cos t, sin t) with label 0,
/// the other n - n / 2 on the lower one (1 - cos t, 0.5 - sin t) with label 1, t evenly spaced
/// over [0, pi] as numpy.linspace spaces it; then, as scikit-learn does, the points are shuffled
/// (if `shuffle`) and Gaussian noise of standard deviation `noise` is added to every coordinate.
/// Equal seeds give equal datasets (zg::nn::rng), though not scikit-learn's, whose generator
/// differs. Throws zg::error for more than 2^32 points (a negative n converted to std::size_t)
/// and for a negative, infinite or NaN noise.
///
///     auto data = zg::nn::make_moons(100, 0.1, 1); // micrograd's demo data
inline dataset make_moons(std::size_t n, double noise = 0.0, std::uint64_t seed = 0,
                          bool shuffle = true) {
    zg::detail::require_setting(n <= std::size_t{1} << 32, "zg::nn::make_moons", "n", n,
                                "at most 2^32 points");
    zg::detail::require_finite_non_negative("zg::nn::make_moons", "noise", noise);
    const std::size_t outer = n / 2, inner = n - outer;
    // numpy.linspace(0, pi, count)[i]: i * step, the last exactly pi.
    const auto angle = [](std::size_t i, std::size_t count) {
        if (count < 2) return 0.0;
        if (i + 1 == count) return std::numbers::pi;
        return static_cast<double>(i) * (std::numbers::pi / static_cast<double>(count - 1));
    };
    dataset data;
    data.x.reserve(n);
    data.labels.reserve(n);
    for (std::size_t i = 0; i < outer; ++i) {
        const double t = angle(i, outer);
        data.x.push_back({std::cos(t), std::sin(t)});
        data.labels.push_back(0);
    }
    for (std::size_t i = 0; i < inner; ++i) {
        const double t = angle(i, inner);
        data.x.push_back({1 - std::cos(t), 1 - std::sin(t) - 0.5});
        data.labels.push_back(1);
    }
    rng generator(seed);
    if (shuffle) // Fisher-Yates, from the back
        for (std::size_t i = n; i > 1; --i) {
            const auto j = static_cast<std::size_t>(generator.below(i));
            std::swap(data.x[i - 1], data.x[j]);
            std::swap(data.labels[i - 1], data.labels[j]);
        }
    if (noise != 0)
        for (auto& point : data.x)
            for (double& coordinate : point)
                coordinate += noise * generator.normal();
    data.signs.reserve(n);
    for (const int label : data.labels)
        data.signs.push_back(2 * label - 1);
    return data;
}

/// The four corners of the unit square with their XOR: (0, 0) and (1, 1) have label 0,
/// (0, 1) and (1, 0) label 1, in that order: (0, 0), (0, 1), (1, 0), (1, 1).
inline dataset xor_data() {
    return {{{0, 0}, {0, 1}, {1, 0}, {1, 1}}, {0, 1, 1, 0}, {-1, 1, 1, -1}};
}

} // namespace zg::nn
