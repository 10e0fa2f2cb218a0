// bench/linalg.cpp: a Gaussian process's negative log marginal likelihood and its gradient by the
// three hyperparameters (bench/models/gaussian_process.hpp: one solve, one log-determinant of the
// n x n kernel matrix), on zerograd's tensors and in libtorch's C++ API where it was found
// (ZG_HAVE_LIBTORCH), both on one core. Benchmarks are named linalg/gp/<mode>/<n>; zerograd's
// report the bytes its tensor tape holds per n^2 (counter bytes_per_n2). Before timing, libtorch's
// likelihood and gradient are compared with zerograd's (relative 1e-10); a mismatch stops the run.
// Then linalg/inverse/<mode>/64: the gradient of sum(W .* inverse(A)) for a 64 x 64 A, by the
// tensors' inverse (one node) and by Eigen's inverse() of an Eigen::Matrix<zg::var> (a node per
// scalar operation); their gradients are compared before timing.
#include "models/gaussian_process.hpp"

#include <zerograd/eigen.hpp>
#include <zerograd/tensor.hpp>

#include <Eigen/LU>

#include <benchmark/benchmark.h>

#ifdef ZG_HAVE_LIBTORCH
#include <torch/torch.h>
#endif

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>
#include <vector>

namespace {

/// n noisy points of a sine on [0, 10] and the hyperparameters the gradient is taken at.
struct problem {
    std::vector<double> x, y;
    std::array<double, 3> hyperparameters = {0.9, 1.1, 0.05}; // length, signal, noise

    explicit problem(std::size_t n) : x(n), y(n) {
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = 10.0 * static_cast<double>(i) / static_cast<double>(n);
            y[i] = std::sin(x[i]) + 0.1 * std::sin(37.0 * static_cast<double>(i) + 0.5);
        }
    }
};

/// The likelihood and its gradient (length, signal, noise).
struct result {
    double value = 0;
    std::array<double, 3> gradient{};
};

// ---- zerograd tensors --------------------------------------------------------------------------

struct tensor_model {
    zg::tensor x, y;
    std::array<zg::tensor, 3> hyperparameters;

    explicit tensor_model(const problem& p)
        : x(zg::tensor::from(p.x, {p.x.size()})), y(zg::tensor::from(p.y, {p.y.size()})) {
        for (std::size_t i = 0; i < 3; ++i)
            hyperparameters[i] = zg::tensor::from({p.hyperparameters[i]}, {}, true);
    }

    result step() const {
        zg::tensor::scope step_scope;
        for (const zg::tensor& h : hyperparameters)
            h.zero_grad();
        const zg::tensor nll = models::gaussian_process::negative_log_likelihood(
            x, y, hyperparameters[0], hyperparameters[1], hyperparameters[2]);
        nll.backward();
        return {nll.item(),
                {hyperparameters[0].grad()[0], hyperparameters[1].grad()[0],
                 hyperparameters[2].grad()[0]}};
    }
};

void zerograd_tensor(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const tensor_model model{problem(n)};
    // What one step's nodes hold: the tape's buffers grown by a step from none kept.
    zg::detail::tensor_tape& tape = zg::detail::this_thread_tensor_tape();
    tape.release_unused();
    const std::size_t before = tape.capacity_bytes();
    model.step();
    const std::size_t step_bytes = tape.capacity_bytes() - before;
    for (auto _ : state)
        benchmark::DoNotOptimize(model.step());
    state.counters["bytes_per_n2"] = static_cast<double>(step_bytes) / static_cast<double>(n * n);
}

// ---- libtorch ----------------------------------------------------------------------------------

#ifdef ZG_HAVE_LIBTORCH
struct torch_model {
    torch::Tensor x, y, eye;
    std::array<torch::Tensor, 3> hyperparameters;

    explicit torch_model(const problem& p) {
        const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
        const auto n = static_cast<std::int64_t>(p.x.size());
        x = torch::from_blob(const_cast<double*>(p.x.data()), {n}, f64).clone();
        y = torch::from_blob(const_cast<double*>(p.y.data()), {n}, f64).clone();
        eye = torch::eye(n, f64);
        for (std::size_t i = 0; i < 3; ++i)
            hyperparameters[i] = torch::tensor(p.hyperparameters[i], f64).requires_grad_();
    }

    result step() const {
        for (const torch::Tensor& h : hyperparameters)
            if (h.grad().defined()) h.mutable_grad().zero_();
        const torch::Tensor& length = hyperparameters[0];
        const torch::Tensor difference = x.unsqueeze(1) - x.unsqueeze(0);
        const torch::Tensor k =
            hyperparameters[1] * torch::exp(-difference.square() / (2.0 * length.square())) +
            hyperparameters[2] * eye;
        const double n = static_cast<double>(x.size(0));
        const torch::Tensor nll = 0.5 * (y * torch::linalg::solve(k, y, true)).sum() +
                                  0.5 * torch::logdet(k) +
                                  0.5 * n * std::log(2.0 * std::numbers::pi);
        nll.backward();
        return {nll.item<double>(),
                {hyperparameters[0].grad().item<double>(), hyperparameters[1].grad().item<double>(),
                 hyperparameters[2].grad().item<double>()}};
    }
};

void libtorch(benchmark::State& state) {
    const torch_model model{problem(static_cast<std::size_t>(state.range(0)))};
    for (auto _ : state)
        benchmark::DoNotOptimize(model.step());
}
#endif

// ---- A 64 x 64 inverse: the tensors' against Eigen's on zg::var ---------------------------------

/// A well-conditioned n x n matrix (row-major) and the weights of its inverse's elements.
struct inverse_problem {
    std::size_t n;
    std::vector<double> a, weights;

    explicit inverse_problem(std::size_t n_) : n(n_), a(n * n), weights(n * n) {
        for (std::size_t i = 0; i < n * n; ++i) {
            a[i] = (i % (n + 1) == 0 ? 4.0 : 0.0) + 0.5 * std::sin(0.7 * static_cast<double>(i));
            weights[i] = std::cos(0.3 * static_cast<double>(i));
        }
    }
};

std::vector<double> inverse_by_tensor(const inverse_problem& p) {
    zg::tensor::scope scope; // the leaves too: each call starts from the same tape
    const zg::tensor a = zg::tensor::from(p.a, {p.n, p.n}, true);
    const zg::tensor weights = zg::tensor::from(p.weights, {p.n, p.n});
    sum(inverse(a) * weights).backward();
    return {a.grad().begin(), a.grad().end()};
}

std::vector<double> inverse_by_eigen_var(const inverse_problem& p) {
    zg::tape::scope scope;
    const auto n = static_cast<Eigen::Index>(p.n);
    Eigen::Matrix<zg::var, Eigen::Dynamic, Eigen::Dynamic> a(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            a(i, j) = p.a[static_cast<std::size_t>(i * n + j)];
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        weights(p.weights.data(), n, n);
    const Eigen::Matrix<zg::var, Eigen::Dynamic, Eigen::Dynamic> inverse = a.inverse();
    const zg::var loss = inverse.cwiseProduct(weights.cast<zg::var>()).sum();
    loss.backward();
    std::vector<double> gradient(p.n * p.n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            gradient[static_cast<std::size_t>(i * n + j)] = a(i, j).grad();
    return gradient;
}

template <std::vector<double> (*Gradient)(const inverse_problem&)>
void inverse_gradient(benchmark::State& state) {
    const inverse_problem p(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state)
        benchmark::DoNotOptimize(Gradient(p));
}

void check_agreement() {
    const inverse_problem p(64);
    const std::vector<double> ours = inverse_by_tensor(p), eigen = inverse_by_eigen_var(p);
    for (std::size_t i = 0; i < ours.size(); ++i)
        if (std::abs(ours[i] - eigen[i]) > 1e-10 * std::max(1.0, std::abs(eigen[i]))) {
            std::fprintf(stderr,
                         "linalg benchmark: inverse gradient [%zu]: tensor %.17g, Eigen %.17g\n", i,
                         ours[i], eigen[i]);
            std::exit(1);
        }
#ifdef ZG_HAVE_LIBTORCH
    for (const std::size_t n : {100, 500}) {
        const result ours = tensor_model{problem(n)}.step();
        const result theirs = torch_model{problem(n)}.step();
        const auto differs = [](double a, double b) {
            return std::abs(a - b) > 1e-10 * std::max(1.0, std::abs(b));
        };
        bool agree = !differs(ours.value, theirs.value);
        for (std::size_t i = 0; i < 3; ++i)
            agree = agree && !differs(ours.gradient[i], theirs.gradient[i]);
        if (!agree) {
            std::fprintf(stderr,
                         "linalg benchmark: n = %zu: zerograd %.17g (%g, %g, %g), libtorch %.17g "
                         "(%g, %g, %g)\n",
                         n, ours.value, ours.gradient[0], ours.gradient[1], ours.gradient[2],
                         theirs.value, theirs.gradient[0], theirs.gradient[1], theirs.gradient[2]);
            std::exit(1);
        }
    }
#endif
}

} // namespace

int main(int argc, char** argv) {
#ifdef ZG_HAVE_LIBTORCH
    torch::set_num_threads(1);
#endif
    check_agreement();
    for (const int n : {100, 500, 1000}) {
        benchmark::RegisterBenchmark("linalg/gp/tensor", zerograd_tensor)
            ->Arg(n)
            ->Unit(benchmark::kMillisecond);
#ifdef ZG_HAVE_LIBTORCH
        benchmark::RegisterBenchmark("linalg/gp/libtorch", libtorch)
            ->Arg(n)
            ->Unit(benchmark::kMillisecond);
#endif
    }
    benchmark::RegisterBenchmark("linalg/inverse/tensor", inverse_gradient<inverse_by_tensor>)
        ->Arg(64)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("linalg/inverse/eigen_var", inverse_gradient<inverse_by_eigen_var>)
        ->Arg(64)
        ->Unit(benchmark::kMicrosecond);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
