// XOR as a two-class problem with tensors: a 2-8-2 network (matmul, broadcast bias, tanh),
// cross_entropy, and plain gradient descent, each step's graph reclaimed by a tensor::scope.
#include <zerograd/tensor.hpp>

#include <cstdio>
#include <vector>

int main() {
    using zg::tensor;
    // The data and the parameters are made before any scope, so they outlive every step.
    const tensor x = tensor::from({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2});
    const std::vector<int> labels = {0, 1, 1, 0};
    const tensor w1 = tensor::randn({2, 8}, 1, true), b1 = tensor::zeros({8}, true);
    const tensor w2 = tensor::randn({8, 2}, 2, true), b2 = tensor::zeros({2}, true);
    const std::vector<tensor> parameters = {w1, b1, w2, b2};

    const auto logits = [&] { return matmul(tanh(matmul(x, w1) + b1), w2) + b2; };
    for (int step = 0; step <= 300; ++step) {
        tensor::scope step_scope; // the step's tensors are reclaimed (and their memory reused)
        const tensor loss = cross_entropy(logits(), labels);
        loss.backward();
        for (const tensor& p : parameters) {
            for (std::size_t i = 0; i < p.numel(); ++i)
                p.data()[i] -= 0.5 * p.grad()[i];
            p.zero_grad();
        }
        if (step % 50 == 0) std::printf("step %3d  loss %.6f\n", step, loss.item());
    }
    tensor::scope prediction_scope;
    const tensor probabilities = exp(log_softmax(logits()));
    for (std::size_t i = 0; i < 4; ++i)
        std::printf("%g xor %g: p(1) = %.4f (label %d)\n", x.data()[2 * i], x.data()[2 * i + 1],
                    probabilities.data()[2 * i + 1], labels[i]);
}
