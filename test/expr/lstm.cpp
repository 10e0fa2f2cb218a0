// ADBench's LSTM objective written as a user writes it in expression mode (a zg::scan per unit and
// layer over time, the state a (hidden, cell) tuple): against its hand-written gradient, the loop
// on the tape, and central differences.
#include "models/lstm.hpp"
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <span>
#include <tuple>
#include <vector>

TEST_CASE("the LSTM objective against its hand-written gradient and the tape") {
    for (const auto& [l, c, b] : {std::tuple{1, 2, 1}, std::tuple{2, 6, 3}, std::tuple{3, 5, 4}}) {
        CAPTURE(l);
        CAPTURE(c);
        CAPTURE(b);
        const auto p = models::lstm::make(l, c, b, 5);
        const auto v = models::lstm::point(p);
        std::vector<double> hand(v.size());
        const double value = models::lstm::gradient(v, hand, p);
        const auto expr =
            zg::value_and_grad(models::lstm::expression_objective(p), p.main, p.extra);
        const auto tape = zg::tape::value_and_grad(
            [&](std::span<const zg::var> all) { return models::lstm::loop_objective(all, p); },
            v);
        CHECK(laws::close(expr.value, value, 1e-14));
        CHECK(laws::close(tape.value, value, 1e-14));
        std::vector<double> e(std::get<0>(expr.grad));
        e.insert(e.end(), std::get<1>(expr.grad).begin(), std::get<1>(expr.grad).end());
        for (std::size_t i = 0; i < v.size(); ++i) {
            CAPTURE(i);
            CHECK(laws::close(e[i], hand[i], 1e-13));
            CHECK(laws::close(std::get<0>(tape.grad)[i], hand[i], 1e-13));
        }
    }
}

TEST_CASE("the hand-written LSTM gradient against central differences") {
    const auto p = models::lstm::make(2, 4, 3, 9);
    const auto v = models::lstm::point(p);
    std::vector<double> hand(v.size());
    models::lstm::gradient(v, hand, p);
    const auto differences = laws::central_gradient(
        [&](std::span<const double> x) { return models::lstm::loop_objective(x, p); }, v);
    for (std::size_t i = 0; i < v.size(); ++i) {
        CAPTURE(i);
        CHECK(laws::close(hand[i], differences[i], 1e-8));
    }
}
