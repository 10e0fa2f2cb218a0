// The tensors' linear algebra in a build without Eigen (not installed, or ZG_NO_EIGEN defined):
// the call names what is missing and how to get it; the rest of the tensors work.
#define ZG_NO_EIGEN
#include <zerograd/tensor.hpp>

int main() {
    const zg::tensor a = zg::tensor::from({2.0, 0.0, 0.0, 4.0}, {2, 2});
#ifdef ZG_ERROR
    (void)zg::inverse(a);
#else
    (void)zg::matmul(a, a);
#endif
}
