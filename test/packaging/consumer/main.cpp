// A program that uses zerograd as a user's project would, through Meson's dependency('zerograd'),
// CMake, pkg-config or a plain include: every mode once, checked against the derivatives by hand.
#include <zerograd/zerograd.hpp>

// Built with C++23, the project's standard must stay C++23: zerograd asks for C++20 or later
// and sets no -std flag of its own.
#if defined(CONSUMER_EXPECTS_CXX23)
static_assert(__cplusplus > 202002L, "the build flags of zerograd replaced the project's C++23");
#endif
// Asked for, OpenBLAS runs the tensors' products through Eigen.
#if defined(CONSUMER_EXPECTS_BLAS)
static_assert(zg::detail::tensor_uses_eigen, "OpenBLAS asked for, but Eigen is not used");
#if !defined(EIGEN_USE_BLAS)
#error "OpenBLAS asked for, but EIGEN_USE_BLAS is not defined"
#endif
#endif

#include <cmath>
#include <cstdio>

int main() {
    const auto f = [](auto x, auto y) { return x * y + sin(x); };
    const auto [value, grad] = zg::value_and_grad(f, 2.0, 3.0);
    const auto tape_grad = zg::tape::grad(f, 2.0, 3.0);
    const auto forward_grad = zg::fwd::grad(f, 2.0, 3.0);
    const zg::tensor w = zg::tensor::from({1, 2}, {2}, true);
    sum(square(w)).backward();
    const double dx = 3.0 + std::cos(2.0), dy = 2.0;
    const bool right = value == 6.0 + std::sin(2.0) && grad[0] == dx && grad[1] == dy &&
                       tape_grad[0] == dx && tape_grad[1] == dy && forward_grad[0] == dx &&
                       forward_grad[1] == dy && w.grad()[0] == 2.0 && w.grad()[1] == 4.0;
    std::printf("%s\n", right ? "zerograd works" : "zerograd gave wrong derivatives");
    return right ? 0 : 1;
}
