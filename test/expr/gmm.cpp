// ADBench's Gaussian mixture objective written as a user writes it in expression mode (nested
// zg::sum and zg::log_sum_exp over index ranges, vectors indexed; or the log of a sum of
// exponentials over slices): against its hand-written gradient, finite differences, and the same
// lambda on the tape.
#include "models/gmm.hpp"
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <span>
#include <vector>

namespace {

/// The three gradient vectors of a mode's result, in a row: alphas, means, icf.
template <class Gradient>
std::vector<double> flat(const Gradient& g) {
    std::vector<double> all(std::get<0>(g));
    all.insert(all.end(), std::get<1>(g).begin(), std::get<1>(g).end());
    all.insert(all.end(), std::get<2>(g).begin(), std::get<2>(g).end());
    return all;
}

} // namespace

TEST_CASE("the GMM objective against its hand-written gradient and the tape") {
    for (const auto& [d, k, n] : {std::tuple{2, 3, 7}, std::tuple{3, 4, 5}, std::tuple{5, 2, 4}}) {
        CAPTURE(d);
        CAPTURE(k);
        const auto p = models::gmm::make(d, k, n, 7);
        const auto v = models::gmm::point(p);
        std::vector<double> hand(v.size());
        const double value = models::gmm::gradient(v, hand, p);
        const auto f = models::gmm::expression_objective(p);
        const auto expr = zg::value_and_grad(f, p.alphas, p.means, p.icf);
        const auto tape = zg::tape::value_and_grad(f, p.alphas, p.means, p.icf);
        const auto exp_sum =
            zg::value_and_grad(models::gmm::exp_sum_objective(p), p.alphas, p.means, p.icf);
        CHECK(laws::close(expr.value, value, 1e-13));
        CHECK(laws::close(expr.value, tape.value, 1e-13));
        CHECK(laws::close(exp_sum.value, value, 1e-13));
        const auto e = flat(expr.grad), t = flat(tape.grad), s = flat(exp_sum.grad);
        for (std::size_t i = 0; i < v.size(); ++i) {
            CAPTURE(i);
            CHECK(laws::close(e[i], hand[i], 1e-12));
            CHECK(laws::close(e[i], t[i], 1e-12));
            CHECK(laws::close(s[i], hand[i], 1e-12));
        }
    }
}

TEST_CASE("the hand-written GMM gradient against central differences") {
    const auto p = models::gmm::make(3, 3, 6, 11);
    const auto v = models::gmm::point(p);
    std::vector<double> hand(v.size());
    models::gmm::gradient(v, hand, p);
    const auto differences = laws::central_gradient(
        [&](std::span<const double> x) { return models::gmm::loop_objective(x, p); }, v);
    for (std::size_t i = 0; i < v.size(); ++i) {
        CAPTURE(i);
        CHECK(laws::close(hand[i], differences[i], 1e-7));
    }
}

TEST_CASE("the GMM loop form on the tape agrees with expression mode") {
    const auto p = models::gmm::make(2, 5, 9, 3);
    const auto v = models::gmm::point(p);
    const auto loop = zg::tape::value_and_grad(
        [&](std::span<const zg::var> all) { return models::gmm::loop_objective(all, p); }, v);
    const auto expr =
        zg::value_and_grad(models::gmm::expression_objective(p), p.alphas, p.means, p.icf);
    CHECK(laws::close(loop.value, expr.value, 1e-13));
    const auto e = flat(expr.grad);
    for (std::size_t i = 0; i < v.size(); ++i)
        CHECK(laws::close(std::get<0>(loop.grad)[i], e[i], 1e-12));
}
