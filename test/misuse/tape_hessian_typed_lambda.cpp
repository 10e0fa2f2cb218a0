// zg::tape::hessian given a lambda that takes std::span<const zg::var>: the Hessian records on
// duals, so f must be generic in its scalar type.
#include <zerograd/tape.hpp>

#include <span>
#include <vector>

int main() {
#ifdef ZG_ERROR
    const auto f = [](std::span<const zg::var> v) { return v[0] * v[0] * v[1]; };
#else
    const auto f = [](auto v) { return v[0] * v[0] * v[1]; };
#endif
    (void)zg::tape::hessian(f, std::vector{1.0, 2.0});
}
