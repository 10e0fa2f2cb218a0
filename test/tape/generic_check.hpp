// test/tape/generic_check.hpp: a function written once over the scalar type, differentiated by
// tape mode, forward mode and central differences, each against the others.
#pragma once

#include <zerograd/zerograd.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

/// f's gradient by tape mode, forward mode and central differences, all against each other.
template <class F>
inline void check_every_scalar(F f, std::vector<double> x, double tolerance = 1e-7) {
    const auto tape = zg::tape::grad(
        [&](std::span<const zg::var> v) { return f(std::span<const zg::var>(v)); }, x);
    const std::vector<double>& g = std::get<0>(tape);
    REQUIRE(g.size() == x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        std::vector<zg::dual> d(x.begin(), x.end());
        d[i].deriv = 1;
        const double forward = f(std::span<const zg::dual>(d)).deriv;
        const double h = 1e-6 * std::max(1.0, std::abs(x[i]));
        const double at = x[i];
        x[i] = at + h;
        const double up = f(std::span<const double>(x));
        x[i] = at - h;
        const double down = f(std::span<const double>(x));
        x[i] = at;
        INFO("input ", i);
        CHECK(forward == doctest::Approx(g[i]).epsilon(1e-13));
        CHECK(g[i] == doctest::Approx((up - down) / (2 * h)).epsilon(tolerance));
    }
    // The value is the same number in every mode.
    std::vector<zg::dual> d(x.begin(), x.end());
    const double value = zg::tape::value_and_grad(
        [&](std::span<const zg::var> v) { return f(std::span<const zg::var>(v)); }, x).value;
    CHECK(value == f(std::span<const double>(x)));
    CHECK(f(std::span<const zg::dual>(d)).value == f(std::span<const double>(x)));
}

