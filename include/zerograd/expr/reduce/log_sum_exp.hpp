// zerograd/expr/reduce/log_sum_exp.hpp: zg::log_sum_exp of a few scalar expressions (a, b, ...) or
// of a std::array of them, shifted by the largest so that nothing overflows.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp" // the rule of log_sum_exp at its edges
#include "zerograd/core/scalar.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/reduce/map_reduce.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <new>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zg::expr {

/// log(exp(a) + exp(b) + ...) of scalar expressions, kept in the frame with its terms' trees
/// and values; the partial by term i is exp(term_i - largest) / total, kept from the build.
template <class T, class... Trees>
struct log_sum_exp_of_terms : shared_base<T> {
    static constexpr std::string_view name = "log_sum_exp";
    std::tuple<Trees...> trees;
    std::tuple<values_of<Trees>...> values;
    std::array<T, sizeof...(Trees)> exponentials{};
    T total{};

    explicit log_sum_exp_of_terms(const Trees&... t) : trees(t...), values(evaluated(t)...) {}

    template <bool Strong>
    void sweep_with(const T& incoming, sweep_context<T>& context) const {
        const T scale = incoming / total;
        // A term of weight 0 (-inf, a masked row) passes nothing, even through an infinite
        // partial, as the tape's sweep skips a zero adjoint. Unless Strong, the adjoints are
        // finite, and a term's own value needs no look (see sweep_as_built).
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((zg::detail::is_zero(exponentials[I])
                  ? void()
                  : expr::sweep_checked<Strong, true>(
                        std::get<I>(trees), std::get<I>(values).data(),
                        Strong ? zg::detail::chain(incoming, exponentials[I] / total)
                               : scale * exponentials[I],
                        context)),
             ...);
        }
        (std::index_sequence_for<Trees...>{});
    }
};

namespace detail {

template <class T, class... Trees>
auto log_sum_exp_of(frame<T>& f, const Trees&... trees) {
    using record_type = log_sum_exp_of_terms<T, Trees...>;
    auto* record = ::new (f.template place<record_type>()) record_type(trees...);
    std::array<T, sizeof...(Trees)> terms{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((terms[I] = value_at(std::get<I>(record->trees), std::get<I>(record->values).data())),
         ...);
    }
    (std::index_sequence_for<Trees...>{});
    record->value = reduction_rules::log_sum_exp_terms(
        terms.size(), [&](std::size_t i) -> const T& { return terms[i]; },
        record->exponentials.data(), 1, record->total);
    f.touch((leaves_of<Trees> | ... | leaf_set{}).vectors);
    f.keep(record);
    return make(shared_expr<T, typename detail::join_calls<call_of<Trees>...>::type>{record}, &f);
}

template <class A>
concept term_operand = Expression<A> || Number<std::remove_cvref_t<A>>;

} // namespace detail

/// log(exp(a) + exp(b) + ...) of scalar expressions (numbers may stand beside them), stable:
/// shifted by the largest term.
template <class A, class B, class... Rest>
requires((Expression<A> || Expression<B> || (Expression<Rest> || ...)) && detail::term_operand<A> &&
         detail::term_operand<B> &&
         (detail::term_operand<Rest> && ...)) auto log_sum_exp(A&& a, B&& b, Rest&&... rest) {
    using first = std::conditional_t<Expression<A>, A, std::conditional_t<Expression<B>, B, void>>;
    using T = detail::value_type_of<std::conditional_t<std::is_void_v<first>, double, first>>;
    frame<T>* owner = detail::owner_if_expression<T>(a);
    if (owner == nullptr) owner = detail::owner_if_expression<T>(b);
    ((owner = owner != nullptr ? owner : detail::owner_if_expression<T>(rest)), ...);
    return detail::log_sum_exp_of(detail::map_frame<T>(owner, "log_sum_exp"),
                                  detail::select_operand<T>(std::forward<A>(a)),
                                  detail::select_operand<T>(std::forward<B>(b)),
                                  detail::select_operand<T>(std::forward<Rest>(rest))...);
}

/// log sum exp of a std::array of scalar expressions (K components of a mixture).
template <class E, std::size_t K>
requires(Expression<E>&& K > 0) auto log_sum_exp(const std::array<E, K>& terms) {
    using T = typename E::value_type;
    frame<T>& f = detail::map_frame<T>(terms[0].owner, "log_sum_exp");
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return detail::log_sum_exp_of(f, detail::operand(terms[I])...);
    }
    (std::make_index_sequence<K>{});
}

} // namespace zg::expr

namespace zg {
using expr::log_sum_exp;
} // namespace zg
