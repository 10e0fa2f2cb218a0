// Two moons on tensors: a 2-16-16-2 relu zg::nn::mlp_t<zg::tensor> sees the whole batch in one
// call, cross-entropy on its two logits, 300 steps of Adam. Writes the points, the network's score
// over the plane (the whole grid evaluated as one batch) and the loss per step as CSV files
// (docs/images/plot.py draws them), into the folder given as the first argument or else the
// current one.
#include <zerograd/nn.hpp>
#include <zerograd/tensor.hpp>

#include "moons_plot.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Whether each row of [batch, 2] logits favours class 1.
std::vector<bool> decisions(const zg::tensor& logits) {
    const auto values = logits.data();
    std::vector<bool> positive(logits.shape()[0]);
    for (std::size_t i = 0; i < positive.size(); ++i)
        positive[i] = values[2 * i + 1] > values[2 * i];
    return positive;
}

} // namespace

int main(int argc, char** argv) {
    const std::string folder = argc > 1 ? std::string(argv[1]) + "/" : "";
    using zg::tensor;

    // Data and model are made before any scope, so they outlive every step.
    const zg::nn::dataset data = zg::nn::make_moons(100, 0.1, 1337);
    const tensor x = zg::nn::to_tensor(data); // [100, 2]
    const zg::nn::mlp_t<tensor> model(2, {16, 16, 2}, zg::nn::activation::relu, 1337);
    zg::nn::adam optimizer(model.parameters(), {.learning_rate = 0.02});
    std::printf("two moons: %zu points, noise 0.1; tensor mlp 2-16-16-2, %zu parameters\n",
                data.size(), model.parameter_count());

    std::vector<double> losses;
    for (int step = 0; step < 300; ++step) {
        tensor::scope step_scope; // the step's tensors are reclaimed; their buffers are reused
        const tensor logits = model(x);
        const tensor loss = zg::nn::cross_entropy(logits, data.labels);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();

        const std::vector<bool> positive = decisions(logits);
        std::size_t correct = 0;
        for (std::size_t i = 0; i < data.size(); ++i)
            correct += positive[i] == (data.labels[i] == 1);
        losses.push_back(loss.item());
        if (step % 50 == 0 || step == 299)
            std::printf("step %3d  loss %.4f  accuracy %3.0f%%\n", step, loss.item(),
                        100.0 * double(correct) / double(data.size()));
    }

    // The plot's grid as one batch of 10,164 points; the score is class 1's logit minus class 0's.
    std::vector<double> points;
    for (int row = 0; row < moons_plot::rows; ++row)
        for (int column = 0; column < moons_plot::columns; ++column)
            points.insert(points.end(), {moons_plot::grid_x(column), moons_plot::grid_y(row)});
    tensor::scope plot;
    const tensor grid =
        tensor::from(std::move(points), {moons_plot::rows * moons_plot::columns, 2});
    const auto logits = model(grid).data();
    std::vector<double> scores(logits.size() / 2);
    for (std::size_t i = 0; i < scores.size(); ++i)
        scores[i] = logits[2 * i + 1] - logits[2 * i];
    moons_plot::write_csv(folder, "nn_moons_tensor", data, scores, losses);
}
