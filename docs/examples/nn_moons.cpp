// Two moons, as micrograd's demo trains them: a 2-16-16-1 relu network of zg::var, the max-margin
// loss plus L2 regularization 1e-4, 100 steps of gradient descent with the learning rate falling
// from 1.0 to 0.1. Writes the points, the network's score over the plane and the loss per step as
// CSV files (docs/images/plot.py draws them), into the folder given as the first argument or else
// the current one.
#include <zerograd/nn.hpp>
#include <zerograd/tape.hpp>

#include "moons_plot.hpp"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::string folder = argc > 1 ? std::string(argv[1]) + "/" : "";

    // micrograd's demo seeds its generators with 1337; ours are zerograd's own.
    const zg::nn::dataset data = zg::nn::make_moons(100, 0.1, 1337);
    zg::nn::mlp model(2, {16, 16, 1}, zg::nn::activation::relu, 1337);
    const std::vector<zg::var> parameters = model.parameters();
    zg::nn::sgd optimizer(parameters);
    std::printf("two moons: %zu points, noise 0.1; mlp 2-16-16-1, %zu parameters\n", data.size(),
                parameters.size());

    std::vector<double> losses;
    for (int k = 0; k < 100; ++k) {
        zg::tape::scope step; // the step's graph is reclaimed at the end; parameters live on
        std::vector<zg::var> scores;
        for (const auto& x : data.x)
            scores.push_back(model.scalar(x));
        const zg::var data_loss = zg::nn::hinge(scores, data.signs);
        const zg::var l2 = zg::sum(parameters, [](const zg::var& p) { return p * p; });
        const zg::var loss = data_loss + 1e-4 * l2;

        std::size_t correct = 0;
        for (std::size_t i = 0; i < data.size(); ++i)
            correct += (scores[i] > 0) == (data.signs[i] > 0);
        const double accuracy = 100.0 * double(correct) / double(data.size());

        optimizer.zero_grad();
        loss.backward();
        optimizer.options().learning_rate = 1.0 - 0.9 * k / 100;
        optimizer.step();

        losses.push_back(loss.data());
        if (k % 10 == 0 || k == 99)
            std::printf("step %2d  loss %.4f  accuracy %3.0f%%\n", k, loss.data(), accuracy);
    }

    std::size_t correct = 0;
    for (std::size_t i = 0; i < data.size(); ++i) {
        zg::tape::scope prediction;
        correct += (model.scalar(data.x[i]) > 0) == (data.signs[i] > 0);
    }
    std::printf("trained: accuracy %zu of %zu\n", correct, data.size());

    std::vector<double> scores; // the score at every point of the plot's grid
    for (int row = 0; row < moons_plot::rows; ++row)
        for (int column = 0; column < moons_plot::columns; ++column) {
            zg::tape::scope point; // each evaluation's nodes are reclaimed at once
            scores.push_back(
                model.scalar({moons_plot::grid_x(column), moons_plot::grid_y(row)}).data());
        }
    moons_plot::write_csv(folder, "nn_moons", data, scores, losses);
}
