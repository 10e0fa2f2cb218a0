// Tensors: a batch through a layer, a bias broadcast over the batch, and its gradient summed back.
#include <zerograd/tensor.hpp>

#include <cstdio>
#include <span>

int main() {
    using zg::tensor;
    const tensor x = tensor::from({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {2, 3}); // a batch of 2 rows
    const tensor w = tensor::from({0.5, -1, 2, 0, 1, 1}, {3, 2}, true);    // weights [3, 2]
    const tensor b = tensor::from({0.1, 0.3}, {2}, true);                  // bias [2]
    const tensor z = matmul(x, w) + b; // [2, 2] + [2]: b is broadcast over the rows
    const tensor loss = mean(square(tanh(z) - 0.5));
    loss.backward();
    const auto print = [](const char* name, std::span<const double> v) {
        std::printf("%s = [%.6f, %.6f; %.6f, %.6f]\n", name, v[0], v[1], v[2], v[3]);
    };
    print("z ", z.data()); // [0.850000, 0.500000; 1.900000, 0.500000]
    print("dz", z.grad()); // [0.049910, -0.014896; 0.019529, -0.014896]
    print("dw", w.grad()); // x^T dz: [0.012803, -0.007448; 0.019747, -0.010428]
    // b's gradient is dz summed over the rows b was broadcast to: [0.069439, -0.029793]
    std::printf("db = [%.6f, %.6f]\n", b.grad()[0], b.grad()[1]);
    std::printf("loss = %.6f\n", loss.item()); // 0.061883

    try {
        matmul(x, x); // [2, 3] x [2, 3]: the inner sizes differ
    } catch (const zg::shape_error& error) {
        std::printf("%s\n", error.what());
    }
}
