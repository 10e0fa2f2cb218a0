// The reductions' laws (test/laws.hpp) in every mode: sum, prod and log_sum_exp over vectors in
// expression mode (a vector leaf, a few terms, a function over a range), tape mode and forward
// mode, at ordinary points, on empty ranges and at every edge of the policy (infinities, NaN,
// masked rows); each mode's value and gradient equal the law's, to the bit at the edges. The
// tensors' log_softmax and cross_entropy follow the same softmax.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>
#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string text(const std::vector<double>& x) {
    std::ostringstream out;
    for (double v : x)
        out << v << ' ';
    return out.str();
}

/// Whether a mode's value and gradient equal the law's: to the bit where the law's value or a
/// partial is not finite or is 0 or 1 exactly, else to `tolerance`.
void check_against(const laws::reduced& law, double value, const std::vector<double>& gradient,
                   const std::vector<double>& x, const char* mode) {
    INFO(std::string(mode), " at ", text(x));
    const bool edge = !std::isfinite(law.value);
    CHECK(laws::agree(value, law.value, edge ? 0 : 1e-15));
    REQUIRE(gradient.size() == law.gradient.size());
    for (std::size_t k = 0; k < gradient.size(); ++k) {
        const bool exact = edge || !std::isfinite(law.gradient[k]) || law.gradient[k] == 0;
        CHECK(laws::agree(gradient[k], law.gradient[k], exact ? 0 : 1e-15));
    }
}

template <class F>
void check_every_mode(const laws::reduced& law, F f, const std::vector<double>& x) {
    const auto expr = zg::value_and_grad(f, x);
    check_against(law, expr.value, std::get<0>(expr.grad), x, "expression mode");
    const auto tape = zg::tape::value_and_grad(f, x);
    check_against(law, tape.value, std::get<0>(tape.grad), x, "tape mode");
    const auto fwd = zg::fwd::value_and_grad(f, x);
    check_against(law, fwd.value, std::get<0>(fwd.grad), x, "forward mode");
    // Tape and forward mode agree to the bit everywhere: one rule gives both their partials.
    CHECK(laws::agree(tape.value, fwd.value));
    for (std::size_t k = 0; k < x.size(); ++k)
        CHECK(laws::agree(std::get<0>(tape.grad)[k], std::get<0>(fwd.grad)[k]));
}

} // namespace

TEST_CASE("log_sum_exp follows one policy in every mode") {
    for (const auto& x : laws::reduction_points)
        check_every_mode(
            laws::log_sum_exp_law(x), [](auto v) { return zg::log_sum_exp(v); }, x);
}

TEST_CASE("sum and prod follow their laws in every mode") {
    for (const auto& x : laws::reduction_points) {
        check_every_mode(
            laws::sum_law(x), [](auto v) { return zg::sum(v); }, x);
        check_every_mode(
            laws::prod_law(x), [](auto v) { return zg::prod(v); }, x);
    }
}

TEST_CASE("expression mode's other log_sum_exp forms follow the policy too") {
    for (const auto& x : laws::reduction_points) {
        const laws::reduced law = laws::log_sum_exp_law(x);
        // Over a range with a function: the mixture's form.
        const auto mapped = zg::value_and_grad(
            [](auto v) { return zg::log_sum_exp(v, [](auto e) { return e; }); }, x);
        check_against(law, mapped.value, std::get<0>(mapped.grad), x, "log_sum_exp(range, fn)");
        if (x.size() == 2) { // of terms
            const std::array<double, 2> pair{x[0], x[1]};
            const auto terms = zg::value_and_grad(
                [](auto a, auto b) { return zg::log_sum_exp(a, b); }, x[0], x[1]);
            check_against(law, terms.value, {terms.grad[0], terms.grad[1]}, x, "log_sum_exp(a, b)");
            const auto tape_terms = zg::tape::value_and_grad(
                [](auto a, auto b) { return zg::log_sum_exp(a, b); }, pair);
            check_against(law, tape_terms.value, {tape_terms.grad[0], tape_terms.grad[1]}, x,
                          "tape log_sum_exp(a, b)");
        }
    }
}

TEST_CASE("tensors' log_softmax and cross_entropy take the same softmax") {
    for (const auto& x : laws::reduction_points) {
        if (x.empty()) continue;
        INFO("at ", text(x));
        const zg::tensor::scope step;
        const laws::reduced law = laws::log_sum_exp_law(x); // its gradient is the softmax
        const auto n = x.size();
        const auto logits = zg::tensor::from(x, {1, n}, true);
        const auto y = log_softmax(logits);
        // log p_k: (x_k - max) - log sum_j exp(x_j - max) where the shift helps, else the log of
        // the policy's p_k.
        std::vector<double> log_p(n);
        const double top = *std::max_element(x.begin(), x.end());
        double total = 0;
        for (double v : x)
            total += std::exp(v - top);
        for (std::size_t k = 0; k < n; ++k) {
            log_p[k] = std::isfinite(law.value) ? (x[k] - top) - std::log(total)
                                                : std::log(law.gradient[k]);
            CHECK(laws::agree(y.data()[k], log_p[k], 1e-14));
        }
        const auto loss = zg::cross_entropy(logits, std::vector<int>{0});
        CHECK(laws::agree(loss.item(), -log_p[0], 1e-14));
        loss.backward();
        for (std::size_t k = 0; k < n; ++k)
            CHECK(laws::agree(logits.grad()[k], law.gradient[k] - (k == 0 ? 1.0 : 0.0), 1e-15));
    }
}

TEST_CASE("an empty log_sum_exp is -inf") {
    const std::vector<double> none;
    CHECK(zg::tape::value_and_grad([](auto v) { return zg::log_sum_exp(v); }, none).value ==
          -laws::inf);
}
