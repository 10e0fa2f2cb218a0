// matmul, transpose and reshape on Eigen's kernels (the default when Eigen is found).
#include "matmul_cases.hpp"

TEST_CASE("matmul runs on Eigen") { CHECK(zg::detail::tensor_uses_eigen); }
