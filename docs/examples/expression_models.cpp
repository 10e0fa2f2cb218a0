// Expression mode on models as they are written: a named intermediate used three times (kept once
// in the call's frame), a Gaussian mixture's log-likelihood (a sum over the data of a
// log-sum-exp over the components), a pinhole camera's two residuals and their Jacobian, and a
// normal likelihood by its parameters. Each gradient is checked against tape mode.
#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    // 1. t is built once and swept once, however often it is used.
    const auto shared = [](auto x, auto y) {
        const auto t = x * y + 1.0 / x;
        return t * t + sin(t);
    };
    std::printf("%s\n", zg::expr::to_text(zg::expr::build(shared, 0.5, 2.0)).c_str());

    // 2. A mixture of two unit-variance normals with log-weights w and means m.
    const std::vector<double> data{-1.2, -0.8, 0.9, 1.4};
    const auto mixture = [&](const auto& w, const auto& m) {
        return zg::sum(data, [&](double y) {
            return zg::log_sum_exp(zg::range(2), [&](int k) {
                return w[k] - 0.5 * square(y - m[k]);
            });
        });
    };
    const std::vector<double> w{-0.7, -0.7}, m{-1.0, 1.0};
    const auto [value, grad] = zg::value_and_grad(mixture, w, m);
    const auto tape = zg::tape::value_and_grad(mixture, w, m);
    const auto& [dw, dm] = grad;
    std::printf("mixture %.6f  d/dw (%.6f, %.6f)  d/dm (%.6f, %.6f)\n", value, dw[0], dw[1],
                dm[0], dm[1]);
    std::printf("tape    %.6f  d/dw (%.6f, %.6f)  d/dm (%.6f, %.6f)\n\n", tape.value,
                std::get<0>(tape.grad)[0], std::get<0>(tape.grad)[1], std::get<1>(tape.grad)[0],
                std::get<1>(tape.grad)[1]);

    // 3. A pinhole camera of focal length f at the origin sees the point (X, Y, Z) at
    // (f X / Z, f Y / Z); the residuals are what it sees minus the feature (u, v). Both rows
    // share the division by Z.
    const double u = 30.0, v = -12.0;
    const auto residuals = [&](auto f, auto X, auto Y, auto Z) {
        const auto inverse_depth = 1.0 / Z;
        return std::array{f * X * inverse_depth - u, f * Y * inverse_depth - v};
    };
    const auto J = zg::jacobian(residuals, 500.0, 0.3, -0.1, 5.0);
    for (const auto& row : J)
        std::printf("J row  %10.4f %10.4f %10.4f %10.4f\n", row[0], row[1], row[2], row[3]);

    // 4. A normal likelihood by (mu, sigma): log(sigma) and 1 / sigma are computed once.
    const auto likelihood = [&](auto mu, auto sigma) {
        return zg::sum(data, [&](double y) { return 0.5 * square((y - mu) / sigma) + log(sigma); });
    };
    const auto g = zg::grad(likelihood, 0.1, 1.2);
    const auto t = zg::tape::grad(likelihood, 0.1, 1.2);
    std::printf("\nlikelihood gradient (%.6f, %.6f), tape (%.6f, %.6f)\n", g[0], g[1], t[0], t[1]);
}
