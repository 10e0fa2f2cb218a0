// zerograd/core/select.hpp: zg::select for the modes whose scalars are values (a zg::var, a
// zg::dual, a number); expression mode overloads it (zerograd/expr/ops/operations.hpp), so one
// generic lambda that branches with it runs in every mode.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/scalar.hpp"

#include <type_traits>

namespace zg {

/// a where c is true, else b, as their common scalar type: `zg::select(x > 0, x, 0.1 * x)`.
template <class A, class B>
    requires(!requires { typename std::remove_cvref_t<A>::tree_type; } &&
             !requires { typename std::remove_cvref_t<B>::tree_type; } &&
             requires { typename std::common_type_t<detail::kept_t<A>, detail::kept_t<B>>; })
constexpr auto select(bool c, const A& a, const B& b) {
    // A tape formula is kept as the variable it becomes.
    using C = std::common_type_t<detail::kept_t<A>, detail::kept_t<B>>;
    return c ? C(a) : C(b);
}

} // namespace zg
