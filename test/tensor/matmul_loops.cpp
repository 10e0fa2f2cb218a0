// matmul, transpose and reshape on the plain loops that replace Eigen when it is missing. The
// define precedes every include, so no zerograd header of this program sees Eigen.
#define ZG_NO_EIGEN
#include "matmul_cases.hpp"

TEST_CASE("matmul runs on the plain loops") { CHECK(!zg::detail::tensor_uses_eigen); }
