// Every public header in one program, which test/run.sh also builds with clang++ 14 (Debian 12's
// default clang): the library stays within the C++20 that compiler takes.
#include <zerograd/zerograd.hpp>
#if __has_include(<Eigen/Core>)
#include <zerograd/eigen.hpp>
#endif

#include <doctest/doctest.h>

#include <cmath>

TEST_CASE("every header together: one function's gradient in each mode and on tensors") {
    const auto f = [](auto x, auto y) { return x * y + sin(x); };
    const double dx = 3.0 + std::cos(2.0), dy = 2.0;
    for (const auto& g :
         {zg::grad(f, 2.0, 3.0), zg::tape::grad(f, 2.0, 3.0), zg::fwd::grad(f, 2.0, 3.0)}) {
        CHECK(g[0] == doctest::Approx(dx).epsilon(1e-15));
        CHECK(g[1] == doctest::Approx(dy).epsilon(1e-15));
    }
    const zg::tensor x = zg::tensor::from({2.0}, {}, true), y = zg::tensor::from({3.0}, {}, true);
    f(x, y).backward();
    CHECK(x.grad()[0] == doctest::Approx(dx).epsilon(1e-15));
    CHECK(y.grad()[0] == doctest::Approx(dy).epsilon(1e-15));
}
