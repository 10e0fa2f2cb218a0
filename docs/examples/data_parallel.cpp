// Data-parallel training with MPI: a logistic regression on 100,000 points, the points split into
// 100 shards spread across the processes. Every step, each process differentiates its own shards,
// one reduction gives all of them the same gradient, and each takes the same Adam step, so the
// parameters stay identical everywhere and equal, bit for bit, those of a one-process run.
//
//     mpirun -np 4 ./example_data_parallel
#include <zerograd/mpi.hpp>
#include <zerograd/tape.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

namespace {

constexpr int features = 3;
constexpr int shard_count = 100;
constexpr int points_per_shard = 1000;
constexpr double total_points = double{shard_count} * points_per_shard;

struct shard {
    std::vector<double> x; // points_per_shard rows of `features` numbers
    std::vector<double> y; // labels, +1 or -1
};

// Shard s is drawn from its own seed, so any process can make any shard: here, each makes only
// its own (in practice, each reads only its part of the data).
shard make_shard(int s) {
    const double true_weights[features] = {1.5, -2.0, 0.5}, true_bias = 0.3;
    std::mt19937_64 generator(1000 + static_cast<unsigned>(s));
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> uniform;
    shard out;
    for (int i = 0; i < points_per_shard; ++i) {
        double z = true_bias;
        for (int k = 0; k < features; ++k) {
            out.x.push_back(normal(generator));
            z += true_weights[k] * out.x.back();
        }
        out.y.push_back(uniform(generator) < 1 / (1 + std::exp(-z)) ? 1.0 : -1.0);
    }
    return out;
}

// The shard's part of the mean negative log-likelihood: log(1 + exp(-y (w.x + b))) per point.
zg::var shard_loss(std::span<const zg::var> p, const shard& data) {
    zg::var total = 0.0;
    for (int i = 0; i < points_per_shard; ++i) {
        zg::var z = p[features];
        for (int k = 0; k < features; ++k)
            z += p[k] * data.x[static_cast<std::size_t>(i * features + k)];
        total += log1p(exp(-data.y[static_cast<std::size_t>(i)] * z));
    }
    return total / total_points;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    std::vector<shard> mine; // shards rank, rank + ranks, rank + 2 ranks, ...
    for (int s = rank; s < shard_count; s += ranks)
        mine.push_back(make_shard(s));

    std::vector<double> p; // w1, w2, w3, b: drawn on rank 0, sent to the others
    if (rank == 0) {
        std::mt19937_64 generator(7);
        std::normal_distribution<double> normal(0.0, 0.1);
        for (int k = 0; k <= features; ++k)
            p.push_back(normal(generator));
    }
    zg::mpi::broadcast(MPI_COMM_WORLD, p);

    // Adam, as torch.optim.Adam computes it; every rank takes the same steps.
    const double learning_rate = 0.05, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    std::vector<double> m(p.size()), v(p.size());
    for (int step = 1; step <= 100; ++step) {
        const auto [loss, gradient] =
            zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_loss, p, mine);
        const std::vector<double>& g = std::get<0>(gradient);
        const double bias1 = 1 - std::pow(beta1, step), bias2 = 1 - std::pow(beta2, step);
        for (std::size_t k = 0; k < p.size(); ++k) {
            m[k] = beta1 * m[k] + (1 - beta1) * g[k];
            v[k] = beta2 * v[k] + (1 - beta2) * g[k] * g[k];
            p[k] -= learning_rate / bias1 * m[k] / (std::sqrt(v[k] / bias2) + eps);
        }
        if (rank == 0 && (step == 1 || step % 25 == 0))
            std::printf("step %3d  loss %.17g\n", step, loss);
    }
    if (rank == 0) {
        std::printf("weights %.6f %.6f %.6f  bias %.6f (the data's: 1.5 -2 0.5, 0.3)\n", p[0],
                    p[1], p[2], p[3]);
        std::printf("bits    %a %a %a %a\n", p[0], p[1], p[2], p[3]);
    }
    MPI_Finalize();
}
