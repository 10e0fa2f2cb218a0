// bench/gmm.cpp: ADBench's Gaussian mixture objective in the suite, for d in {2, 10, 20, 64} and
// K in {5, 10, 25, 50} components over n = 1,000 points: cases gmm_d<d>_K<K>, the gradient by
// (alphas, means, icf) in a row. Expression mode runs the objective as its users write it (nested
// zg::sum and zg::log_sum_exp over index ranges, bench/models/gmm.hpp; expr_exp_sum: the log of a
// sum of exponentials, Q read through slices); tape mode and the peers run the loop over scalars.
// Each mode's peak memory is measured too.
#include "models/gmm.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include "harness.hpp"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace bench {

namespace {

constexpr int points = 1000;

/// Operations a scalar tool records for one gradient: the tape and the peers run where this is
/// at most their budget (a recording of about 80 bytes per operation).
double recorded_operations(int d, int k) { return double(points) * k * (d * (d + 1) / 2 + 3 * d); }
constexpr double tape_budget = 3e7, peer_budget = 5e6;

sized_case gmm_case(int d, int k) {
    auto p = std::make_shared<const models::gmm::problem>(models::gmm::make(d, k, points));
    const auto loop = [p](auto v, std::span<const double>) {
        return models::gmm::loop_objective(v, *p);
    };
    sized_case c{"gmm_d" + std::to_string(d) + "_K" + std::to_string(k),
                 std::size_t(points),
                 models::gmm::point(*p),
                 [loop](std::span<const double> x) { return loop(x, x); },
                 [p](std::span<const double> x, std::vector<double>& g) {
                     return models::gmm::gradient(x, g, *p);
                 },
                 {}};
    c.measure_memory = true;
    const auto expression_mode = [p](auto objective) {
        return [p, objective](std::span<const double> x, std::vector<double>& g) {
            const std::size_t alphas = std::size_t(p->k), means = std::size_t(p->k * p->d);
            auto result = zg::value_and_grad(objective(*p), x.first(alphas),
                                             x.subspan(alphas, means), x.subspan(alphas + means));
            return flatten(result, g, x.size());
        };
    };
    c.modes.push_back({"expr", expression_mode([](const models::gmm::problem& q) {
                           return models::gmm::expression_objective(q);
                       })});
    // The other natural form, log(sum(exp(...))) with Q read through slices, up to d = 20.
    if (d <= 20)
        c.modes.push_back({"expr_exp_sum", expression_mode([](const models::gmm::problem& q) {
                               return models::gmm::exp_sum_objective(q);
                           })});
    const double operations = recorded_operations(d, k);
    if (operations <= tape_budget) add_tape_mode(c.modes, loop);
    if (operations <= peer_budget) add_peers(c.modes, loop);
    return c;
}

} // namespace

std::vector<sized_case> gmm_cases() {
    std::vector<sized_case> cases;
    for (int d : {2, 10, 20, 64})
        for (int k : {5, 10, 25, 50})
            cases.push_back(gmm_case(d, k));
    return cases;
}

} // namespace bench
