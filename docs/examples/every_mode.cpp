// One generic lambda over a vector, differentiated in expression mode, tape mode and forward
// mode, and checked against central differences. The lambda sees a vector leaf, a
// std::span<const zg::var> or a std::span<const zg::dual>; the elementwise operations and the
// reductions are the same in all three, and so is every rule behind them.
#include <zerograd/zerograd.hpp>

#include <cstdio>
#include <tuple>
#include <vector>

int main() {
    // Ridge regression through the origin with a learned scale: the residuals y - scale * w,
    // half their squared norm, a penalty on w, and a prior on the scale.
    const std::vector<double> y{1.0, -0.5, 2.0, 0.25};
    const auto loss = [&](auto w, auto scale) {
        const auto residual = y - scale * w;
        return 0.5 * zg::dot(residual, residual) + 0.1 * zg::sum(square(w)) +
               log1p(square(scale));
    };
    const std::vector<double> w{0.5, 0.1, 1.5, -0.2};
    const double scale = 1.2;

    const auto print = [](const char* mode, const auto& gradient) {
        const auto& [dw, dscale] = gradient;
        std::printf("%-10s dw = (%.6f, %.6f, %.6f, %.6f), dscale = %.6f\n", mode, dw[0], dw[1],
                    dw[2], dw[3], dscale);
    };
    // By hand, with r = y - scale w: dloss/dw_k = -scale r_k + 0.2 w_k (-1.2 * 0.4 + 0.1 = -0.38
    // for k = 0) and dloss/dscale = -sum_k w_k r_k + 2 scale / (1 + scale^2) = 0.643607.
    const auto [value, expression_gradient] = zg::value_and_grad(loss, w, scale);
    std::printf("loss = %.6f\n", value);
    print("expression", expression_gradient);         // a type tree, no tape
    print("tape", zg::tape::grad(loss, w, scale));    // spans of zg::var, one sweep
    print("forward", zg::fwd::grad(loss, w, scale));  // spans of zg::dual, one pass per input

    // Central differences agree to about 1e-10 of each partial.
    const double error = zg::check::gradient(loss, w, scale);
    std::printf("finite differences agree: %s\n", error < 1e-8 ? "yes" : "no");
}
