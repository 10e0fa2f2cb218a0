// zerograd/expr/reduce/map_reduce.hpp: zg::sum(range, fn) and zg::log_sum_exp(range, fn), a
// function mapped over a vector, data or an index range and reduced: the sums over data of a
// likelihood, the mixture's log-sum-exp over its components.
#pragma once

#include "zerograd/expr/reduce/elements.hpp"
#include "zerograd/expr/reduce/mapped.hpp"

namespace zg::expr {


// fn may capture the lambda's leaves and locals by reference, and those die when their function
// returns, so fn cannot be called again during the sweep. A map-reduce therefore builds each
// element's tree as it is built itself, and either
//
//  - sweeps it at once with adjoint 1 into an accumulator (a sum outside any other element
//    function: its partials are scaled by the adjoint that arrives later; memory: the
//    parameters and one element's temporaries), or
//  - keeps the elements' trees and sweeps them when its adjoint arrives (inside an element
//    function, where the enclosing element's sweep comes right after, and a log-sum-exp, whose
//    weights need every element's value first).
//
// Parts of fn that do not depend on the element (a function of the scalar arguments alone, such
// as log(sigma)) are evaluated for the first element only; the other elements take their value,
// and their adjoints are summed and swept once.


/// sum_k fn(x_k): map and reduce in one pass. x is a vector expression, a range of doubles (data:
/// fn is called with a double) or a sized range of integers (`zg::range(n)`: fn is
/// called with the index); fn is a generic lambda of the element (or of the element and its
/// index k) and may capture the lambda's leaves and locals by reference.
///
///     auto f = [&](auto mu, auto sigma) {
///         return zg::sum(data, [&](auto y) { return square((y - mu) / sigma) + log(sigma); });
///     };  // log(sigma) is evaluated once, not per element
template <class Range, class Fn>
requires detail::expression_map<Range, Fn>
auto sum(const Range& range, Fn fn) {
    return detail::map_reduce_verb<detail::reduction_kind::sum>(range, fn, "sum(range, fn)");
}

/// log sum_k exp(fn(x_k)), shifted by the largest term so that nothing overflows: the
/// log-likelihood of a mixture over its K components, `zg::log_sum_exp(zg::range(K),
/// [&](int k) { ... })`. x as for zg::sum(range, fn).
template <class Range, class Fn>
requires detail::expression_map<Range, Fn>
auto log_sum_exp(const Range& range, Fn fn) {
    return detail::map_reduce_verb<detail::reduction_kind::log_sum_exp>(range, fn,
                                                                        "log_sum_exp(range, fn)");
}

} // namespace zg::expr

namespace zg {
using expr::log_sum_exp;
using expr::sum;
} // namespace zg
