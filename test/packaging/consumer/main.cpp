// A program that uses zerograd as a user's project would, through Meson's dependency('zerograd')
// or through pkg-config: every mode once, checked against the derivatives by hand.
#include <zerograd/zerograd.hpp>

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
