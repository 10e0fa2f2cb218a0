// ADBench's bundle-adjustment residuals written with named intermediates and no zg::let: the
// 2x15 Jacobian from one evaluation (zg::jacobian) against the hand-written one, the tape,
// forward mode and central differences.
#include "models/ba.hpp"
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <span>
#include <vector>

TEST_CASE("the BA Jacobian: expression mode, by hand, on the tape, forward, by differences") {
    for (const auto& o : models::ba::make(20, 5)) {
        std::array<std::array<double, models::ba::inputs>, 2> hand{};
        const auto residual = models::ba::jacobian(o, hand);
        const auto expr = zg::jacobian(models::ba::residuals(o.feature), o.x);
        const std::vector<double> x(o.x.begin(), o.x.end());
        const auto on_vector = [&](auto v) {
            const auto r = models::ba::call_on_inputs(models::ba::residuals(o.feature), v);
            using T = std::remove_cvref_t<decltype(r[0])>;
            return std::vector<T>{r[0], r[1]};
        };
        const auto tape = zg::tape::jacobian(on_vector, x);
        const auto forward = zg::fwd::jacobian(on_vector, x);
        const auto value = models::ba::value(o);
        for (std::size_t i = 0; i < 2; ++i) {
            CHECK(laws::close(residual[i], value[i], 1e-14));
            for (std::size_t j = 0; j < models::ba::inputs; ++j) {
                CAPTURE(i);
                CAPTURE(j);
                CHECK(laws::close(expr[i][j], hand[i][j], 1e-12));
                CHECK(laws::close(expr[i][j], tape[i][j], 1e-12));
                CHECK(laws::close(expr[i][j], forward[i][j], 1e-12));
                auto up = o, down = o;
                const double h = 1e-6 * std::max(1.0, std::abs(o.x[j]));
                up.x[j] += h;
                down.x[j] -= h;
                const double difference =
                    (models::ba::value(up)[i] - models::ba::value(down)[i]) / (2 * h);
                CHECK(laws::close(hand[i][j], difference, 1e-6));
            }
        }
    }
}

TEST_CASE("the BA residuals at a rotation of angle 0 take the first-order rotation") {
    auto o = models::ba::make(1, 2)[0];
    o.x[0] = o.x[1] = o.x[2] = 0;
    const auto expr = zg::jacobian(models::ba::residuals(o.feature), o.x);
    const auto typed = zg::fwd::jacobian(
        [&](std::span<const zg::dual> v) {
            const auto r = models::ba::typed_residuals(v.data(), o.feature);
            return std::vector<zg::dual>{r[0], r[1]};
        },
        std::vector<double>(o.x.begin(), o.x.end()));
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < models::ba::inputs; ++j)
            CHECK(laws::close(expr[i][j], typed[i][j], 1e-12));
}
