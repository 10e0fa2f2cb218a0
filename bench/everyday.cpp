// bench/everyday.cpp: three everyday models in the suite, each the shape a user's own model
// often has: a hierarchical normal model (n = 1,000 observations in 8 groups), a local-level
// Kalman filter (n = 1,000 observations) and a small network's loss (a batch of n = 64 examples
// of 8 features, 16 tanh units). Expression mode runs each as its users write it
// (bench/models/hierarchical.hpp, kalman.hpp, mlp.hpp); tape mode and the peers run the loops
// over scalars; the hand-written gradients are an expert's.
#include "models/hierarchical.hpp"
#include "models/kalman.hpp"
#include "models/mlp.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include "harness.hpp"

#include <memory>
#include <span>
#include <vector>

namespace bench {

namespace {

/// The tape's mode and the peers' from a model's loop over scalars.
template <class Loop>
void add_loop_modes(sized_case& c, Loop loop) {
    add_tape_mode(c.modes, loop);
    add_peers(c.modes, loop);
}

sized_case hierarchical_case() {
    namespace model = models::hierarchical;
    auto p = std::make_shared<const model::problem>(model::make(1000, 8));
    const auto loop = [p](auto v, std::span<const double>) { return model::loop_objective(v, *p); };
    sized_case c{"hierarchical",
                 p->y.size(),
                 model::point(*p),
                 [loop](std::span<const double> x) { return loop(x, x); },
                 [p](std::span<const double> x, std::vector<double>& g) {
                     return model::gradient(x, g, *p);
                 },
                 {}};
    c.modes.push_back({"expr", [p](std::span<const double> x, std::vector<double>& g) {
                           const std::size_t groups = p->groups;
                           auto result = zg::value_and_grad(model::expression_objective(*p),
                                                            x.first(groups),
                                                            x.subspan(groups, groups), x[2 * groups]);
                           return flatten(result, g, x.size());
                       }});
    add_loop_modes(c, loop);
    return c;
}

sized_case kalman_case() {
    namespace model = models::kalman;
    auto p = std::make_shared<const model::problem>(model::make(1000));
    const auto loop = [p](auto v, std::span<const double>) { return model::loop_objective(v, *p); };
    sized_case c{"kalman",
                 p->y.size(),
                 model::point(),
                 [loop](std::span<const double> x) { return loop(x, x); },
                 [p](std::span<const double> x, std::vector<double>& g) {
                     return model::gradient(x, g, *p);
                 },
                 {}};
    c.modes.push_back({"expr", [p](std::span<const double> x, std::vector<double>& g) {
                           auto result = zg::value_and_grad(model::expression_objective(*p), x[0],
                                                            x[1]);
                           g.assign(result.grad.begin(), result.grad.end());
                           return result.value;
                       }});
    add_loop_modes(c, loop);
    return c;
}

sized_case mlp_case() {
    namespace model = models::mlp;
    auto p = std::make_shared<const model::problem>(model::make(64, 8, 16));
    const auto loop = [p](auto v, std::span<const double>) { return model::loop_objective(v, *p); };
    sized_case c{"mlp",
                 p->batch,
                 model::point(*p),
                 [loop](std::span<const double> x) { return loop(x, x); },
                 [p](std::span<const double> x, std::vector<double>& g) {
                     return model::gradient(x, g, *p);
                 },
                 {}};
    c.modes.push_back({"expr", [p](std::span<const double> x, std::vector<double>& g) {
                           const std::size_t weights = p->hidden * p->features, h = p->hidden;
                           auto result = zg::value_and_grad(
                               model::expression_objective(*p), x.first(weights),
                               x.subspan(weights, h), x.subspan(weights + h, h), x[weights + 2 * h]);
                           return flatten(result, g, x.size());
                       }});
    add_loop_modes(c, loop);
    return c;
}

} // namespace

std::vector<sized_case> everyday_cases() {
    return {hierarchical_case(), kalman_case(), mlp_case()};
}

} // namespace bench
