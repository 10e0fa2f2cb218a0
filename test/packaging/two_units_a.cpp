// Two translation units that include everything must link: no non-inline definitions in headers.
#include <doctest/doctest.h>
#include <zerograd/zerograd.hpp>

double square_in_b(double x);

TEST_CASE("two translation units share the thread's tape") {
    zg::var x = 3.0;
    zg::var y = x * x;
    y.backward();
    CHECK(x.grad() == 6.0);
    CHECK(square_in_b(4.0) == 8.0);
}
