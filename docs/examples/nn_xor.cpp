// XOR with zg::nn: micrograd's 2-4-4-1 network, mean squared error and Adam (docs/nn.md shows it).
#include <zerograd/nn.hpp>
#include <zerograd/tape.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    const zg::nn::dataset data = zg::nn::xor_data();
    zg::nn::mlp model(2, {4, 4, 1}, zg::nn::activation::tanh, 42);
    zg::nn::adam optimizer(model.parameters(), {.learning_rate = 0.05});
    std::printf("parameters: %zu\n", model.parameter_count()); // 37

    for (int step = 0; step <= 200; ++step) {
        zg::tape::scope step_scope; // reclaims the step's graph; the parameters live on
        std::vector<zg::var> predictions;
        for (const auto& x : data.x)
            predictions.push_back(model.scalar(x));
        const zg::var loss = zg::nn::mse(predictions, data.labels);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        if (step % 50 == 0) std::printf("step %3d  loss %.6f\n", step, loss.data());
    }
    for (std::size_t i = 0; i < data.size(); ++i) {
        zg::tape::scope prediction;
        const double y = model.scalar(data.x[i]).data();
        // Below the printed precision the sign is rounding noise: print it as 0, not -0.0000.
        std::printf("%g xor %g = %.4f (label %d)\n", data.x[i][0], data.x[i][1],
                    std::abs(y) < 5e-5 ? 0.0 : y, data.labels[i]);
    }
}
