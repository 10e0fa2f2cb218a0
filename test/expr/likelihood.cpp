// Likelihoods by their parameters, written as users write them: a map-reduce over constant data
// with scalar parameters (what does not depend on the point hoisted out of the loop, a division
// by a parameter made one reciprocal), named intermediates inside the element function, and a
// hierarchical model whose groups index vectors of parameters. Against analytic gradients,
// central differences and the same lambdas on the tape.
#include "laws.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <ranges>
#include <span>
#include <vector>

namespace {

std::vector<double> data(std::size_t n) {
    std::vector<double> y;
    for (std::size_t i = 0; i < n; ++i) y.push_back(0.4 + 1.3 * std::sin(0.73 * double(i) + 0.4));
    return y;
}

} // namespace

TEST_CASE("a normal likelihood by (mu, sigma): analytic, the tape, named intermediates") {
    const std::vector<double> y = data(1000);
    const double mu = 0.3, sigma = 1.4;
    double centered = 0, squares = 0;
    for (double yi : y) {
        centered += yi - mu;
        squares += (yi - mu) * (yi - mu);
    }
    const double n = double(y.size());
    const double value = 0.5 * squares / (sigma * sigma) + n * std::log(sigma);
    const double dmu = -centered / (sigma * sigma);
    const double dsigma = -squares / (sigma * sigma * sigma) + n / sigma;

    const auto plain = [&](auto m, auto s) {
        return zg::sum(y, [&](auto yi) { return 0.5 * square((yi - m) / s) + log(s); });
    };
    const auto named = [&](auto m, auto s) {
        return zg::sum(y, [&](double yi) {
            const auto z = (yi - m) / s;
            return 0.5 * z * z + log(s);
        });
    };
    // By index, the divisor a product of a number and a parameter.
    const auto indexed = [&](auto m, auto s) {
        return zg::sum(std::views::iota(std::size_t{0}, y.size()), [&](std::size_t i) {
            return square(y[i] - m) / (2.0 * s * s) + log(s);
        });
    };
    for (const auto& [v, g] : {zg::value_and_grad(plain, mu, sigma),
                               zg::value_and_grad(named, mu, sigma),
                               zg::value_and_grad(indexed, mu, sigma)}) {
        CHECK(laws::close(v, value, 1e-13));
        CHECK(laws::close(g[0], dmu, 1e-12));
        CHECK(laws::close(g[1], dsigma, 1e-12));
    }
    for (const auto& tape : {zg::tape::value_and_grad(plain, mu, sigma),
                             zg::tape::value_and_grad(named, mu, sigma)}) {
        CHECK(laws::close(tape.value, value, 1e-13));
        CHECK(laws::close(tape.grad[0], dmu, 1e-12));
        CHECK(laws::close(tape.grad[1], dsigma, 1e-12));
    }
}

TEST_CASE("a hierarchical model: groups index vectors of parameters inside the data loop") {
    // y_i ~ Normal(mu[g_i], exp(log_sigma[g_i])), mu[g] ~ Normal(0, tau), log tau a parameter.
    const std::vector<double> y = data(60);
    std::vector<std::size_t> group;
    for (std::size_t i = 0; i < y.size(); ++i) group.push_back((i * 7) % 4);
    const auto f = [&](const auto& mu, const auto& log_sigma, auto log_tau) {
        const auto likelihood =
            zg::sum(std::views::iota(std::size_t{0}, y.size()), [&](std::size_t i) {
                const auto sigma = exp(log_sigma[group[i]]);
                return -0.5 * square((y[i] - mu[group[i]]) / sigma) - log(sigma);
            });
        const auto tau = exp(log_tau);
        const auto prior = zg::sum(std::views::iota(std::size_t{0}, std::size_t{4}),
                                   [&](std::size_t g) { return -0.5 * square(mu[g] / tau); });
        return likelihood + prior - 4.0 * log_tau;
    };
    const std::vector<double> mu{0.1, 0.5, -0.2, 0.9}, log_sigma{0.1, -0.3, 0.2, 0.0};
    const double log_tau = 0.4;
    const auto expr = zg::value_and_grad(f, mu, log_sigma, log_tau);
    const auto tape = zg::tape::value_and_grad(f, mu, log_sigma, log_tau);
    CHECK(laws::close(expr.value, tape.value, 1e-13));
    const auto& [e_mu, e_sigma, e_tau] = expr.grad;
    const auto& [t_mu, t_sigma, t_tau] = tape.grad;
    CHECK(laws::close(e_tau, t_tau, 1e-12));
    for (std::size_t g = 0; g < 4; ++g) {
        CHECK(laws::close(e_mu[g], t_mu[g], 1e-12));
        CHECK(laws::close(e_sigma[g], t_sigma[g], 1e-12));
    }
    // And by central differences on the tape's values.
    const double h = 1e-6;
    for (std::size_t g = 0; g < 4; ++g) {
        auto up = log_sigma, down = log_sigma;
        up[g] += h;
        down[g] -= h;
        const double difference = (zg::tape::value_and_grad(f, mu, up, log_tau).value -
                                   zg::tape::value_and_grad(f, mu, down, log_tau).value) /
                                  (2 * h);
        CHECK(laws::close(e_sigma[g], difference, 1e-7));
    }
}

TEST_CASE("sums of arithmetic terms, two elements at a time: odd lengths, batches, every range") {
    // Lengths that leave one element over, and that span several batches of the loop.
    for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{600}}) {
        CAPTURE(n);
        const std::vector<double> y = data(n);
        std::vector<double> x(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = 0.1 * double(i % 13) - 0.4;
        const auto f = [&](const auto& v, auto a, auto b) {
            const auto over_vector = zg::sum(v, [&](auto vi) { return square(vi - a) / b; });
            const auto over_data = zg::sum(y, [&](double yi) { return (yi * a - b) * (yi + a); });
            const auto over_index = zg::sum(std::views::iota(std::size_t{0}, n), [&](std::size_t i) {
                return v[i] * y[i] - a / b * v[i];
            });
            return over_vector + over_data + over_index;
        };
        const auto expr = zg::value_and_grad(f, x, 0.3, 1.7);
        const auto tape = zg::tape::value_and_grad(f, x, 0.3, 1.7);
        CHECK(laws::close(expr.value, tape.value, 1e-13));
        const auto& [e_v, e_a, e_b] = expr.grad;
        const auto& [t_v, t_a, t_b] = tape.grad;
        CHECK(laws::close(e_a, t_a, 1e-12));
        CHECK(laws::close(e_b, t_b, 1e-12));
        for (std::size_t i = 0; i < n; ++i) CHECK(laws::close(e_v[i], t_v[i], 1e-12));
    }
}

TEST_CASE("a log-sum-exp term of weight 0 passes nothing, even through an infinite partial") {
    // A masked row: -1 / x at x = 0 is -inf and its partial by x is infinite (a division, whose
    // partials are not marked unbounded); its weight in the log-sum-exp is 0, so d/dx is 0, as
    // the tape gives, not 0 times infinity.
    const auto pair = [](auto x, auto y) { return zg::log_sum_exp(-1.0 / x, y); };
    const auto range = [](auto x, auto y) {
        return zg::log_sum_exp(std::views::iota(0, 2),
                               [&](int k) { return zg::select(k == 0, -1.0 / x, y); });
    };
    const auto nested = [](auto x, auto y) {
        return zg::sum(std::views::iota(0, 3), [&](int) {
            return zg::log_sum_exp(std::views::iota(0, 2),
                                   [&](int k) { return zg::select(k == 0, -1.0 / x, y); });
        });
    };
    const auto tape = zg::tape::grad(
        [](zg::var x, zg::var y) { return zg::log_sum_exp(-1.0 / x, y); }, 0.0, 1.5);
    CHECK(tape[0] == 0.0);
    for (const auto& g : {zg::grad(pair, 0.0, 1.5), zg::grad(range, 0.0, 1.5)}) {
        CHECK(g[0] == 0.0);
        CHECK(g[1] == 1.0);
    }
    const auto g = zg::grad(nested, 0.0, 1.5);
    CHECK(g[0] == 0.0);
    CHECK(g[1] == 3.0);
}

TEST_CASE("a row whose dot product is infinite and whose weight is 0 passes nothing") {
    // exp(-row . w) with an infinite entry in the row: the term is 0, its adjoint 0, so d/dw is
    // 0 for that row (as the tape gives), not 0 times infinity; the finite row gives
    // -exp(-row . w) row.
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> rows = {1, inf, 1, 2};
    const auto f = [&](auto w) {
        return zg::sum(std::views::iota(0, 2), [&](int r) {
            return exp(-zg::dot(std::span<const double>(rows).subspan(2 * r, 2), w));
        });
    };
    const std::vector<double> w = {1, 1};
    const auto expr = zg::value_and_grad(f, w);
    const auto tape = zg::tape::value_and_grad(f, w);
    const auto& g = std::get<0>(expr.grad);
    CHECK(expr.value == doctest::Approx(std::exp(-3.0)).epsilon(1e-15));
    CHECK(g[0] == doctest::Approx(-std::exp(-3.0)).epsilon(1e-15));
    CHECK(g[1] == doctest::Approx(-2 * std::exp(-3.0)).epsilon(1e-15));
    CHECK(std::get<0>(tape.grad) == g);
}

TEST_CASE("an element with an infinity absorbed inside passes what the tape passes, in every sum") {
    // 1 / (1 + exp(v_k)) at v_k = 800 is 0 with partial 0, which must not meet exp's infinite
    // partial as 0 times infinity; tanh(v_k * v_k) at inf is 1 with d/dv_k = 0 (tanh's zero
    // partial meets the infinite partial of the square); 1 / (v_k * y) at v_k = inf has d/dy = 0,
    // in a sum swept two elements at a time. Each reduction form against the same lambda on the
    // tape.
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> v = {1.0, 800.0, inf, 2.0, 3.0};
    const auto logistic = [](auto x) { return 1.0 / (1.0 + exp(x)); };
    const auto agree = [&](auto f) {
        const auto expr = zg::grad(f, v, 2.0);
        const auto tape = zg::tape::grad(f, v, 2.0);
        CHECK(std::get<0>(expr) == std::get<0>(tape));
        // (Two elements at a time add in another order: equal to rounding.)
        const double dy = std::get<1>(expr), tape_dy = std::get<1>(tape);
        CHECK((dy == tape_dy || std::abs(dy - tape_dy) <= 1e-15 * std::abs(tape_dy)));
    };
    agree([&](const auto& x, auto y) {
        return zg::sum(x, [&](auto xk) { return y * logistic(xk); });
    });
    agree([](const auto& x, auto y) {
        return zg::sum(x, [&](auto xk) { return 1.0 / (xk * y); });
    });
    agree([](const auto& x, auto y) {
        return y * zg::sum(x, [](auto xk) { return tanh(xk * xk); });
    });
    agree([&](const auto& x, auto y) {
        return zg::sum(std::views::iota(0, 2), [&](int k) { return y * logistic(x[k + 1]); });
    });
    agree([&](const auto& x, auto y) {
        return zg::log_sum_exp(std::views::iota(0, 2),
                               [&](int k) { return y * logistic(x[k + 1]); });
    });
    agree([&](const auto& x, auto y) {
        return zg::sum(std::views::iota(0, 2), [&](int i) {
            return x[i] *
                   zg::sum(std::views::iota(0, 2), [&](int k) { return y * logistic(x[k]); });
        });
    });
    agree([&](const auto& x, auto y) { return zg::log_sum_exp(y * logistic(x[1]), y * x[0]); });
    const auto head = [](const auto& x) { return zg::slice(x, 0, 2); };
    agree([&](const auto& x, auto y) { return zg::sum(y / (1.0 + exp(head(x)))); });
    agree([&](const auto& x, auto y) { return zg::log_sum_exp(y / (1.0 + exp(head(x)))); });
    agree([&](const auto& x, auto y) { return zg::prod(y + 1.0 / (1.0 + exp(head(x)))); });
}
