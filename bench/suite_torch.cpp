// bench/suite_torch.cpp: the suite's cases in libtorch's C++ API (float64, one thread), in their
// own translation unit because libtorch's headers are heavy and compile with g++ only. Each
// gradient function copies x into a tensor that requires a gradient, evaluates the case with
// torch's vectorized operations (a loop over time for stochastic_volatility), calls backward() and
// copies the gradient out: recording is inside the timed call, as for every mode.
#include "suite_torch.hpp"

#include <torch/torch.h>

#include <cmath>
#include <numbers>
#include <span>
#include <vector>

namespace {

torch::Tensor leaf(std::span<const double> x) {
    return torch::tensor(at::ArrayRef<double>(x.data(), x.size()), torch::kFloat64)
        .requires_grad_(true);
}

double finish(const torch::Tensor& value, const torch::Tensor& x, std::vector<double>& g) {
    value.backward();
    const torch::Tensor gradient = x.grad().contiguous();
    g.assign(gradient.data_ptr<double>(), gradient.data_ptr<double>() + gradient.numel());
    return value.item<double>();
}

/// f of the tensor of all inputs, as a gradient function.
template <class F>
gradient_function whole(F f) {
    return [f](std::span<const double> x, std::vector<double>& g) {
        const torch::Tensor t = leaf(x);
        return finish(f(t), t, g);
    };
}

} // namespace

std::map<std::string, gradient_function> libtorch_modes(const torch_data& data) {
    torch::set_num_threads(1);
    std::map<std::string, gradient_function> modes;
    modes["sum"] = modes["sum_iter"] = whole([](const torch::Tensor& x) { return x.sum(); });
    modes["prod"] = modes["prod_iter"] = whole([](const torch::Tensor& x) { return x.prod(); });
    modes["log_sum_exp"] = whole([](const torch::Tensor& x) { return torch::logsumexp(x, 0); });
    modes["normal_log_pdf"] = whole([&data](const torch::Tensor& y) {
        const torch::Tensor z = (y - data.normal_mu) / data.normal_sigma;
        return (-0.5 * z * z + data.normal_constant).sum();
    });
    modes["pair_sin"] = whole([](const torch::Tensor& x) {
        const auto n = x.size(0);
        const torch::Tensor head = x.slice(0, 0, n - 1);
        return (head * x.slice(0, 1, n) + torch::sin(head)).sum();
    });
    modes["matrix_product"] = whole([](const torch::Tensor& x) {
        const auto k = static_cast<std::int64_t>(std::lround(std::sqrt(double(x.size(0) / 2))));
        return torch::mm(x.slice(0, 0, k * k).view({k, k}), x.slice(0, k * k).view({k, k})).sum();
    });
    modes["regression"] = whole([&data](const torch::Tensor& x) {
        const auto n = x.size(0) - 2;
        const auto& [X, y] = data.regression(std::size_t(n));
        const torch::Tensor design = torch::from_blob(const_cast<double*>(X.data()),
                                                      {std::int64_t(y.size()), n}, torch::kFloat64);
        const torch::Tensor targets = torch::from_blob(const_cast<double*>(y.data()),
                                                       {std::int64_t(y.size())}, torch::kFloat64);
        const torch::Tensor w = x.slice(0, 0, n), b = x[n], sigma = x[n + 1];
        const torch::Tensor z = (targets - torch::mv(design, w) - b) / sigma;
        return -0.5 * (z * z).sum() - double(y.size()) * torch::log(sigma) - 0.5 * (w * w).sum() -
               0.5 * b * b;
    });
    modes["stochastic_volatility"] = whole([&data](const torch::Tensor& x) {
        const auto n = x.size(0) - 3;
        const std::vector<double>& y2 = data.volatility(std::size_t(n));
        const torch::Tensor mu = x[0], phi = x[1], sigma = x[2], z = x.slice(0, 3);
        // The recurrence is sequential: one small operation per time step.
        std::vector<torch::Tensor> d{sigma * z[0] / torch::sqrt(1 - phi * phi)};
        for (std::int64_t t = 1; t < n; ++t)
            d.push_back(sigma * z[t] + phi * d.back());
        const torch::Tensor h = torch::stack(d) + mu;
        const torch::Tensor squares =
            torch::from_blob(const_cast<double*>(y2.data()), {n}, torch::kFloat64);
        return (-0.5 * (h + squares * torch::exp(-h))).sum() - 0.5 * (z * z).sum() -
               torch::log1p((sigma / 5) * (sigma / 5)) - torch::log1p((mu / 10) * (mu / 10)) -
               double(n) * std::log(2 * std::numbers::pi);
    });
    return modes;
}
