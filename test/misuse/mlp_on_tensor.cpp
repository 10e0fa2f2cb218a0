// zg::nn::mlp (micrograd's network, on zg::var) called on a zg::tensor: the tensor network is
// zg::nn::mlp_t<zg::tensor>.
#include <zerograd/nn.hpp>

int main() {
    const zg::tensor x = zg::tensor::from({0.0, 1.0, 1.0, 0.0}, {2, 2});
#ifdef ZG_ERROR
    const zg::nn::mlp model(2, {4, 1});
#else
    const zg::nn::mlp_t<zg::tensor> model(2, {4, 1});
#endif
    (void)model(x);
}
