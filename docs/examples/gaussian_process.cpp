// A Gaussian process fitted to 200 noisy points of a sine. Its three hyperparameters (the kernel's
// length scale, the signal and the noise variances) minimise the negative log marginal likelihood
//
//   K = signal exp(-(x_i - x_j)^2 / (2 length^2)) + noise I
//   nll = 1/2 y^T K^-1 y + 1/2 log det K + n/2 log(2 pi)
//
// by Adam on their logarithms (so they stay positive). The gradient goes through one solve and one
// log-determinant of the 200 x 200 matrix K, each differentiated as a whole matrix. Prints the
// progress and the fitted posterior at a few points, and writes the data and the posterior mean
// and band as CSV files (docs/images/plot.py draws them) into the folder given as the first
// argument, or else the current one.
#include <zerograd/nn.hpp>
#include <zerograd/tensor.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

namespace {

using zg::tensor;

/// signal exp(-(a_i - b_j)^2 / (2 length^2)) for points a [m] and b [n]: the [m, n] covariances.
tensor covariance(const tensor& a, const tensor& b, const tensor& length, const tensor& signal) {
    const tensor difference = reshape(a, {a.numel(), 1}) - reshape(b, {1, b.numel()});
    return signal * exp(-square(difference) / (2.0 * square(length)));
}

tensor identity(std::size_t n) {
    std::vector<double> values(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        values[i * n + i] = 1.0;
    return tensor::from(values, {n, n});
}

std::vector<double> evenly_spaced(double low, double high, std::size_t count) {
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i)
        values[i] = low + (high - low) * static_cast<double>(i) / static_cast<double>(count - 1);
    return values;
}

} // namespace

int main(int argc, char** argv) {
    const std::string folder = argc > 1 ? std::string(argv[1]) + "/" : "";

    // The data: y = sin(x) + noise of standard deviation 0.2, x evenly spaced on [0, 10].
    const std::size_t n = 200;
    const std::vector<double> xs = evenly_spaced(0.0, 10.0, n);
    std::vector<double> ys(n);
    const tensor noise_draw = tensor::randn({n}, 42);
    for (std::size_t i = 0; i < n; ++i)
        ys[i] = std::sin(xs[i]) + 0.2 * noise_draw.data()[i];
    const tensor x = tensor::from(xs, {n}), y = tensor::from(ys, {n});
    const tensor eye = identity(n);

    // The parameters: logarithms of the length scale and of the two variances, all from 1.
    const std::vector<tensor> logs = {tensor::zeros({}, true), tensor::zeros({}, true),
                                      tensor::zeros({}, true)};
    zg::nn::adam_t<tensor> optimizer(logs, {.learning_rate = 0.05});
    const auto negative_log_likelihood = [&] {
        const tensor k = covariance(x, x, exp(logs[0]), exp(logs[1])) + exp(logs[2]) * eye;
        return 0.5 * sum(y * solve(k, y)) + 0.5 * logdet(k) +
               0.5 * static_cast<double>(n) * std::log(2.0 * std::numbers::pi);
    };
    const auto hyperparameter = [&](std::size_t i) { return std::exp(logs[i].item()); };

    std::printf("Gaussian process: %zu noisy points of sin(x), squared-exponential kernel\n", n);
    for (int step = 0; step <= 150; ++step) {
        tensor::scope step_scope;
        const tensor nll = negative_log_likelihood();
        if (step % 25 == 0)
            std::printf("step %3d  nll %8.3f  length %.3f  signal %.3f  noise %.4f\n", step,
                        nll.item(), hyperparameter(0), hyperparameter(1), hyperparameter(2));
        if (step == 150) break;
        optimizer.zero_grad();
        nll.backward();
        optimizer.step();
    }

    // The posterior of sin at new points s: mean k_s^T K^-1 y, variance signal - k_s^T K^-1 k_s.
    tensor::scope posterior_scope;
    const tensor length = exp(logs[0]), signal = exp(logs[1]);
    const tensor k = covariance(x, x, length, signal) + exp(logs[2]) * eye;
    const tensor s = tensor::from(evenly_spaced(-1.0, 11.0, 121), {121});
    const tensor k_s = covariance(s, x, length, signal); // [121, 200]
    const tensor mean = matmul(k_s, solve(k, y));        // [121]
    const tensor explained = sum(k_s * transpose(solve(k, transpose(k_s))), 1);
    const tensor variance = signal - explained;
    std::printf("posterior of sin(x):\n");
    for (std::size_t i : {10u, 40u, 70u, 100u, 120u}) {
        const double at = s.data()[i], sd = std::sqrt(std::max(0.0, variance.data()[i]));
        std::printf("  x %5.2f  mean %6.3f  +- %.3f  (sin %6.3f)\n", at, mean.data()[i], 2 * sd,
                    std::sin(at));
    }

    std::ofstream points(folder + "gaussian_process_points.csv", std::ios::binary);
    points << "x,y\n";
    for (std::size_t i = 0; i < n; ++i)
        points << xs[i] << ',' << ys[i] << '\n';
    std::ofstream band(folder + "gaussian_process_posterior.csv", std::ios::binary);
    band << "x,mean,sd\n";
    for (std::size_t i = 0; i < s.numel(); ++i)
        band << s.data()[i] << ',' << mean.data()[i] << ','
             << std::sqrt(std::max(0.0, variance.data()[i])) << '\n';
    std::printf("wrote gaussian_process_points.csv and gaussian_process_posterior.csv\n");
}
