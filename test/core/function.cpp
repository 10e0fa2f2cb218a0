// A user's rule (zg::function) in every mode: the same numbers as the same math written with the
// library's operations, its name in graphs and errors. The laws in laws.hpp hold every mode to
// its derivatives at every sample point; this file covers the paths around them.
#include "laws.hpp"

#include <zerograd/zerograd.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <string>
#include <vector>

namespace {

using laws::logaddexp;
using laws::softplus;

// The same function twice: with the user's rules, and with the library's operations.
constexpr auto with_rules = [](auto x, auto y) {
    auto t = softplus(x * y); // named and used three times: shared in expression mode
    return t * t + t / (1 + y * y) + logaddexp(x, 2.0) + logaddexp(1.0, y) + logaddexp(t, x);
};
constexpr auto with_builtins = [](auto x, auto y) {
    auto t = log1p(exp(x * y));
    return t * t + t / (1 + y * y) + log(exp(x) + exp(2.0)) + log(exp(1.0) + exp(y)) +
           log(exp(t) + exp(x));
};

void check_close(const std::vector<double>& a, const std::vector<double>& b, double tolerance) {
    CHECK(laws::all_close(a, b, tolerance));
}

} // namespace

TEST_CASE("a user's rule on plain numbers is its value") {
    CHECK(softplus(0.5) == std::log1p(std::exp(0.5)));
    CHECK(softplus(2) == std::log1p(std::exp(2.0))); // an int converts
    CHECK(logaddexp(1, 2.0) == std::log(std::exp(1.0) + std::exp(2.0)));
    static_assert(zg::function<laws::softplus_rule>::arity == 1);
    static_assert(zg::function<laws::logaddexp_rule>::arity == 2);
    static_assert(zg::unary_rule<zg::sin_op> && zg::binary_rule<zg::atan2_op>);
}

TEST_CASE("a user's rule gives in every mode what the library's operations give") {
    const double x = 0.7, y = -1.3;
    const auto [value, grad] = zg::value_and_grad(with_builtins, x, y);
    const std::vector<double> expected{grad[0], grad[1]};
    // Exact derivatives of one function: mode to mode, they differ in rounding alone.
    const auto expr = zg::value_and_grad(with_rules, x, y);
    CHECK(laws::close(expr.value, value, 1e-14));
    check_close({expr.grad[0], expr.grad[1]}, expected, 1e-13);
    const auto tape = zg::tape::value_and_grad(with_rules, x, y);
    CHECK(laws::close(tape.value, value, 1e-14));
    check_close({tape.grad[0], tape.grad[1]}, expected, 1e-13);
    const auto fwd = zg::fwd::grad(with_rules, x, y);
    check_close({fwd[0], fwd[1]}, expected, 1e-13);
    // Against finite differences of the rules on plain numbers.
    const auto numeric = laws::central_gradient(
        [](std::span<const double> p) { return with_rules(p[0], p[1]); }, {x, y});
    check_close({expr.grad[0], expr.grad[1]}, numeric, 1e-7);
}

TEST_CASE("Hessians of a user's rule: nested duals, expression and tape mode") {
    const double x = 0.4, y = 0.9;
    const auto expected = zg::hessian(with_builtins, x, y);
    const auto expr = zg::hessian(with_rules, x, y);
    const auto tape = zg::tape::hessian([](const auto& p) { return with_rules(p[0], p[1]); },
                                        std::vector<double>{x, y});
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            CHECK(laws::close(expr[i][j], expected[i][j], 1e-12));
            CHECK(laws::close(tape[i][j], expected[i][j], 1e-12));
        }
    // Second derivative of softplus by hand: sigmoid(x) (1 - sigmoid(x)).
    const zg::dual_t<zg::dual> at(zg::dual(x, 1.0), zg::dual(1.0, 0.0));
    const double s = 1 / (1 + std::exp(-x));
    CHECK(laws::close(softplus(at).deriv.deriv, s * (1 - s), 1e-15));
    const auto hv = zg::hvp([](auto a, auto b) { return with_rules(a, b); },
                            std::array<double, 2>{x, y}, std::array<double, 2>{1.0, -2.0});
    CHECK(laws::close(hv[0], expected[0][0] - 2 * expected[0][1], 1e-12));
}

TEST_CASE("a user's rule inside zg::sum(v, fn), on vector leaves, and on ranges") {
    const std::vector<double> v{-2.0, 0.1, 0.5, 3.0};
    std::vector<double> expected(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        expected[i] = 1 / (1 + std::exp(-v[i])) + std::exp(v[i]) / (std::exp(v[i]) + std::exp(1.0));
    const auto by_element = zg::grad(
        [](auto w) { return zg::sum(w, [](auto e) { return softplus(e) + logaddexp(e, 1); }); }, v);
    check_close(std::get<0>(by_element), expected, 1e-14);
    const auto on_vector =
        zg::grad([](auto w) { return zg::sum(softplus(w) + logaddexp(w, 1)); }, v);
    check_close(std::get<0>(on_vector), expected, 1e-14);
    // The function object itself as the element function.
    const auto passed = zg::grad([](auto w) { return zg::sum(w, softplus); }, v);
    CHECK(laws::close(std::get<0>(passed)[0], 1 / (1 + std::exp(2.0)), 1e-15));
    // A std::vector of variables, elementwise, as the library's operations are.
    const auto tape =
        zg::tape::grad([](auto w) { return zg::sum(softplus(w) + logaddexp(w, 1)); }, v);
    check_close(std::get<0>(tape), expected, 1e-14);
}

TEST_CASE("a user's rule on tensors, elementwise with broadcasting") {
    auto t = zg::tensor::from({-1.0, 0.0, 2.0}, {3}, true);
    auto u = zg::tensor::from({0.5, -0.5}, {2, 1}, true);
    auto loss = zg::sum(softplus(t) * logaddexp(u, t));
    loss.backward();
    const double tv[] = {-1.0, 0.0, 2.0}, uv[] = {0.5, -0.5};
    for (int j = 0; j < 3; ++j) {
        double expected = 0;
        for (int i = 0; i < 2; ++i) {
            const double lae = std::log(std::exp(uv[i]) + std::exp(tv[j]));
            expected += 1 / (1 + std::exp(-tv[j])) * lae +
                        std::log1p(std::exp(tv[j])) * std::exp(tv[j] - lae);
        }
        CHECK(laws::close(t.grad()[j], expected, 1e-14));
    }
    CHECK_THROWS_WITH_AS(logaddexp(t, zg::tensor::zeros({2})),
                         doctest::Contains("zg::logaddexp: shapes"), zg::shape_error);
}

TEST_CASE("graphs and statements name a user's rule") {
    zg::var a = 0.7, b = 2.0;
    zg::var alone = softplus(a);
    zg::var formula = logaddexp(a * b, 1.0);
    CHECK(alone.op() == zg::op_id::function);
    CHECK(formula.op() == zg::op_id::function);
    const std::string dot = zg::to_dot(alone + formula);
    CHECK(dot.find("softplus(x0)") != std::string::npos);
    CHECK(dot.find("logaddexp(x0 * x1, c)") != std::string::npos);
    CHECK(zg::name_of(zg::op_id::function) == "function");
    auto t = zg::tensor::from({1.0}, {1}, true);
    CHECK(softplus(t).op_name() == "softplus");
}

namespace {
/// A rule whose two ways to its partial disagree, to show which one a mode takes.
struct probe_rule {
    static constexpr std::string_view name = "probe";
    template <class T>
    T value(const T& x) const {
        return x;
    }
    template <class T>
    T dx(const T&, const T&) const {
        return T(1);
    }
    template <class T>
    zg::value_and_partial<T> value_and_dx(const T& x) const {
        return {x, T(2)};
    }
};
constexpr zg::function<probe_rule> probe{};
} // namespace

TEST_CASE("a rule's value_and_dx gives the value and partial where the modes compute both") {
    const auto twice = [](auto x) { return probe(x * x); };
    // Expression mode (a node of the tree and a costly node over a leaf), tape and forward mode
    // compute the value and the partial together; d/dx = 2 * (2x).
    CHECK(zg::grad(twice, 3.0)[0] == 12.0);
    CHECK(zg::grad([](auto x) { return probe(x); }, 3.0)[0] == 2.0);
    CHECK(zg::tape::grad(twice, 3.0)[0] == 12.0);
    CHECK(zg::fwd::grad(twice, 3.0)[0] == 12.0);
    CHECK(zg::hessian([](auto x) { return probe(x * x); }, 3.0)[0][0] == 4.0);
    // softplus with its partial as 1 / (1 + exp(-x)) and as e / (1 + e), e = exp(x): one
    // derivative, rounded two ways.
    const auto plain = [](auto x, auto y) { return laws::softplus(x * y) * y; };
    const auto together = [](auto x, auto y) { return laws::softplus_together(x * y) * y; };
    const auto expected = zg::grad(plain, 0.3, -2.0);
    for (const auto& g : {zg::grad(together, 0.3, -2.0), zg::tape::grad(together, 0.3, -2.0),
                          zg::fwd::grad(together, 0.3, -2.0)}) {
        CHECK(laws::close(g[0], expected[0], 1e-15));
        CHECK(laws::close(g[1], expected[1], 1e-15));
    }
}
