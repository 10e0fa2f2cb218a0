// zerograd/expr/reduce/reductions.hpp: reductions of vector expressions (sum, prod, dot,
// log_sum_exp, mean, norm): scalar nodes whose sweep walks the elements again.
#pragma once

#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/ops/vector.hpp"
#include "zerograd/expr/reduce/vector_records.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <cmath>
#include <cstddef>

namespace zg::expr {

/// The sum of a vector's elements: `zg::sum(v)`, `zg::sum(2.0 * v + w)`.
template <detail::vector_expression V>
ZG_INLINE auto sum(const V& v) {
    using tree = tree_of<V>;
    using T = typename tree::value_type;
    frame<T>& owner = detail::frame_for(v, "sum");
    if (detail::accumulator<T>* into = detail::begin_accumulating<tree>(owner))
        return detail::make(summed_expr<tree>{v.tree, detail::accumulated_sum(v.tree, *into), into},
                            &owner);
    owner.touch(leaves_of<tree>.vectors);
    T total(0);
    for (std::size_t k = 0; k < v.tree.size(); ++k)
        total += detail::element_value(v.tree, k);
    return detail::make(summed_expr<tree>{v.tree, total, nullptr}, &owner);
}

/// The product of a vector's elements.
template <detail::vector_expression V>
auto prod(const V& v) {
    return detail::reduce<prod_record>(v, "prod");
}

/// log(sum(exp(v))), stable for large elements.
template <detail::vector_expression V>
auto log_sum_exp(const V& v) {
    return detail::reduce<log_sum_exp_record>(v, "log_sum_exp");
}

/// sum_k v_k w_k; either side may be a range of doubles.
template <detail::vector_operand V, detail::vector_operand W>
requires(detail::vector_expression<V> || detail::vector_expression<W>) ZG_INLINE
    auto dot(V&& v, W&& w) {
    return sum(std::forward<V>(v) * std::forward<W>(w));
}

/// The mean of a vector's elements.
template <detail::vector_expression V>
auto mean(const V& v) {
    return sum(v) / static_cast<double>(v.tree.size());
}

/// The Euclidean norm, sqrt(sum(v^2)), scaled as zg::detail::norm_scaling says: no overflow or
/// underflow for elements near 1e200 or 1e-200, gradient 0 at the zero vector.
template <detail::vector_expression V>
auto norm(const V& v) {
    double largest = 0;
    for (std::size_t k = 0; k < v.tree.size(); ++k)
        largest = std::max(largest, std::abs(zg::detail::primal(detail::element_value(v.tree, k))));
    const auto [scale, inverse, guard] = zg::detail::norm_scaling_for(largest);
    return scale * sqrt(sum(square(v * inverse)) + guard);
}

} // namespace zg::expr

namespace zg {
// Next to the reductions over ranges of core/reductions.hpp, for vector expressions.
using expr::dot;
using expr::log_sum_exp;
using expr::mean;
using expr::norm;
using expr::prod;
using expr::sum;
} // namespace zg
