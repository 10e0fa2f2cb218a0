// zerograd/core/let.hpp: zg::let for the modes whose values are already shared.
#pragma once

#include "zerograd/core/config.hpp"

#include <type_traits>

namespace zg {

/// zg::let(e) binds a subexpression so that all its uses share one value and one adjoint. A tape
/// variable or a dual number already is such a value, so for them, and for plain numbers, let
/// returns its argument; expression mode overloads it (zerograd/expr/ops/operations.hpp). So one
/// generic lambda that uses let runs in every mode.
template <class E>
    requires(!requires { typename E::tree_type; })
constexpr const E& let(const E& e) {
    static_assert(requires(const E& x) {
        x + x;
        x * x;
    }, "zg::let: the argument must be a scalar of some mode (an expression, a zg::var, a "
                  "zg::dual or a number)");
    return e;
}

} // namespace zg
