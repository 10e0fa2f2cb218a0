// core/ includes nothing from the modes: this file includes every core header and fails to
// compile if a mode's header came along.
#include <zerograd/core/arguments.hpp>
#include <zerograd/core/config.hpp>
#include <zerograd/core/elementwise.hpp>
#include <zerograd/core/error.hpp>
#include <zerograd/core/function.hpp>
#include <zerograd/core/let.hpp>
#include <zerograd/core/reductions.hpp>
#include <zerograd/core/rules.hpp>
#include <zerograd/core/scalar.hpp>
#include <zerograd/core/select.hpp>
#include <zerograd/core/thread_object.hpp>

#ifdef ZG_EXPR_TREE_NODE_HPP
#error "a core/ header included expression mode"
#endif
#ifdef ZG_TAPE_TAPE_HPP
#error "a core/ header included tape mode"
#endif
#ifdef ZG_FWD_DUAL_HPP
#error "a core/ header included forward mode"
#endif
#ifdef ZG_TENSOR_TAPE_HPP
#error "a core/ header included the tensors"
#endif

#include <doctest/doctest.h>

#include <array>
#include <span>
#include <tuple>
#include <vector>

TEST_CASE("gradient types follow the argument shapes of docs/api.md") {
    static_assert(std::is_same_v<zg::gradient_t<double, double>, std::array<double, 2>>);
    static_assert(std::is_same_v<zg::gradient_t<int, float>, std::array<double, 2>>);
    static_assert(std::is_same_v<zg::gradient_t<std::array<double, 3>>, std::array<double, 3>>);
    static_assert(std::is_same_v<zg::gradient_t<double, std::vector<double>>,
                                 std::tuple<double, std::vector<double>>>);
    static_assert(
        std::is_same_v<zg::gradient_t<std::span<const double>>, std::tuple<std::vector<double>>>);
    static_assert(!zg::detail::gradient_argument<std::vector<int>>);
    static_assert(!zg::detail::gradient_argument<const char*>);
    const auto [value, grad] = zg::value_and_grad_result<std::array<double, 1>>{2.0, {3.0}};
    CHECK(value == 2.0);
    CHECK(grad[0] == 3.0);
}

TEST_CASE("errors derive from zg::error") {
    CHECK_THROWS_AS(throw zg::shape_error("matmul: [2, 3] and [2, 3]"), zg::error);
    CHECK_THROWS_AS(throw zg::domain_error("log(0)"), std::runtime_error);
    CHECK_THROWS_WITH(throw zg::dangling_var("reclaimed"), "reclaimed");
}
