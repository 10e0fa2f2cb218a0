// Every header, included with -I (not as a system header) into a program built with -Wall
// -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror, as a user's strict build
// would: each mode's main calls are instantiated here, so that warnings inside templates show too.
// The program checks the derivatives it computes against ones worked by hand.
#include <zerograd/zerograd.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <ranges>
#include <span>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect_near(double computed, double expected, const char* what) {
    if (!(std::abs(computed - expected) <= 1e-9 * (1.0 + std::abs(expected)))) {
        std::printf("%s: %.17g, expected %.17g\n", what, computed, expected);
        ++failures;
    }
}

void scalar_modes() {
    const auto f = [](auto x, auto y) { return x * y + sin(x) + exp(y / 4.0) - pow(x, 2); };
    const double dx = 3.0 + std::cos(2.0) - 4.0, dy = 2.0 + std::exp(0.75) / 4.0;
    const auto [value, expression] = zg::value_and_grad(f, 2.0, 3.0);
    expect_near(value, 6.0 + std::sin(2.0) + std::exp(0.75) - 4.0, "value");
    expect_near(expression[0], dx, "expression dx");
    expect_near(zg::tape::grad(f, 2.0, 3.0)[1], dy, "tape dy");
    expect_near(zg::fwd::grad(f, 2.0, 3.0)[0], dx, "forward dx");
    expect_near(zg::derivative([](auto t) { return t * t * t; }, 2.0), 12.0, "derivative");
    expect_near(zg::hessian(f, 2.0, 3.0)[0][1], 1.0, "expression hessian");
    const auto rows = zg::jacobian(
        [](auto x, auto y) {
            const auto r = sqrt(x * x + y * y);
            return std::array{x / r, y / r};
        },
        3.0, 4.0);
    expect_near(rows[0][1], -12.0 / 125.0, "expression jacobian");
    expect_near(zg::check::gradient(f, 2.0, 3.0), 0.0, "finite differences");
}

void tape_mode() {
    zg::var a = 2.0, b = -3.0;
    zg::var c = a * b + pow(a, 2);
    zg::var d = tanh(c);
    if (d < 0.0) d = d * 2.0;
    d.backward();
    const double t = std::tanh(-2.0), slope = 2.0 * (1.0 - t * t);
    expect_near(a.grad(), slope * (b.data() + 2.0 * a.data()), "tape da");
    expect_near(b.grad(), slope * a.data(), "tape db");
    const std::string dot = zg::to_dot(d);
    if (dot.find("tanh") == std::string::npos) ++failures;

    const auto cube = [](auto x) { return x[0] * x[0] * x[1]; };
    const auto h = zg::tape::hessian(cube, std::vector<double>{1.0, 2.0});
    expect_near(h[0][0], 4.0, "tape hessian");
    const auto j = zg::jacobian(
        [](auto x) {
            return std::vector<typename decltype(x)::value_type>{x[0] * x[1], exp(x[0])};
        },
        std::vector<double>{1.0, 2.0});
    expect_near(j[1][0], std::exp(1.0), "tape jacobian");
    {
        zg::tape::scope step;
        zg::var x = 1.5;
        zg::var y = log1p(x) * x;
        y.backward();
        expect_near(x.grad(), std::log1p(1.5) + 1.5 / 2.5, "scoped step");
    }
}

void vectors_and_data() {
    const std::vector<double> data{0.5, -1.0, 2.0, 1.5};
    const auto negative_log_likelihood = [&](auto mu, auto sigma) {
        return zg::sum(data, [&](auto y) { return 0.5 * square((y - mu) / sigma) + log(sigma); });
    };
    double dmu = 0.0, dsigma = 0.0;
    for (const double y : data) {
        dmu -= (y - 0.7) / (1.3 * 1.3);
        dsigma += -(y - 0.7) * (y - 0.7) / (1.3 * 1.3 * 1.3) + 1.0 / 1.3;
    }
    const auto g = zg::grad(negative_log_likelihood, 0.7, 1.3);
    expect_near(g[0], dmu, "likelihood dmu");
    expect_near(zg::tape::grad(negative_log_likelihood, 0.7, 1.3)[1], dsigma, "tape dsigma");

    const auto mixture = [](auto w) {
        const auto components = std::views::iota(std::size_t{0}, std::size_t{3});
        return zg::log_sum_exp(components, [&](std::size_t k) { return w[k] * double(k); }) +
               zg::prod(w) + zg::dot(w, w) + zg::mean(w) + zg::norm(w);
    };
    const std::vector<double> w{0.1, 0.2, 0.3};
    const auto [expression] = zg::grad(mixture, w);
    const auto [tape] = zg::tape::grad(mixture, w);
    const auto [forward] = zg::fwd::grad(mixture, w);
    for (std::size_t k = 0; k < w.size(); ++k) {
        expect_near(expression[k], tape[k], "vector expression against tape");
        expect_near(forward[k], tape[k], "vector forward against tape");
    }
}

void tensors_and_networks() {
    const zg::tensor x = zg::tensor::from({1, 2, 3, 4, 5, 6}, {2, 3}, true);
    const zg::tensor w = zg::tensor::from({0.5, -1, 0.25, 2, 1, -0.5}, {3, 2}, true);
    const zg::tensor logits = matmul(tanh(x) * 0.1, w) + zg::tensor::ones({2});
    const zg::tensor loss = cross_entropy(logits, std::vector<int>{0, 1}) +
                            mean(log_softmax(transpose(logits), 1)) * 0.0 +
                            sum(reshape(x, {6})) * 0.0;
    loss.backward();
    expect_near(w.grad()[0] + w.grad()[1], 0.0, "softmax gradient rows sum to zero");

    const zg::nn::dataset data = zg::nn::make_moons(16, 0.1, 7);
    zg::nn::mlp model(2, {8, 1}, zg::nn::activation::relu, 3);
    const std::vector<zg::var> parameters = model.parameters();
    zg::nn::adam optimizer(parameters);
    double first = 0.0, last = 0.0;
    for (int step = 0; step < 20; ++step) {
        zg::tape::scope scope;
        std::vector<zg::var> scores;
        for (const auto& point : data.x) scores.push_back(model.scalar(point));
        const zg::var total = zg::nn::hinge(scores, data.signs);
        optimizer.zero_grad();
        total.backward();
        optimizer.step();
        (step == 0 ? first : last) = total.data();
    }
    if (!(last < first)) {
        std::printf("adam did not lower the loss: %g, then %g\n", first, last);
        ++failures;
    }
}

} // namespace

int main() {
    static_assert(ZG_VERSION_MAJOR >= 0 && ZG_VERSION_MINOR >= 0 && ZG_VERSION_PATCH >= 0);
    scalar_modes();
    tape_mode();
    vectors_and_data();
    tensors_and_networks();
    std::printf("%s\n", failures == 0 ? "strict warnings: every mode right" : "wrong derivatives");
    return failures == 0 ? 0 : 1;
}
