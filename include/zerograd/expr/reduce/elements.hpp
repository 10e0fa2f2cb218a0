// zerograd/expr/reduce/elements.hpp: the elements a map-reduce maps over: a vector expression,
// data or an index range, one at a time; how fn is called on one; and which ranges and element
// functions zg::sum(range, fn) takes.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/reductions.hpp" // the rule of log_sum_exp at its edges
#include "zerograd/expr/memory/accumulate.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/ops/vector.hpp"
#include "zerograd/expr/reduce/hoist.hpp"
#include "zerograd/expr/reduce/lanes.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::expr {

namespace detail {

/// Calls fn on an element x, and its index k if fn takes one.
template <class Fn, class X>
ZG_INLINE auto call_element(Fn& fn, X&& x, std::size_t k) {
    if constexpr (std::is_invocable_v<Fn&, X, std::size_t>)
        return f_returns_one_type_so_pick_with_zg_select(fn, std::forward<X>(x),
                                                                            k);
    else
        return f_returns_one_type_so_pick_with_zg_select(fn, std::forward<X>(x));
}

/// fn's result as an element tree in a frame of scalar T: a number is a constant.
template <class T, class R>
ZG_INLINE constexpr auto tree_from(const R& result) {
    if constexpr (Expression<R>)
        return result.tree;
    else
        return constant_expr<T>{T(result)};
}
/// The same without a copy where fn gave an expression: the loop of a sum swept as it is built
/// reads the tree where fn wrote it, since a copy read in wider pieces than it was written
/// waits for the writes to reach memory, on every element.
template <class T, class R>
ZG_INLINE constexpr decltype(auto) tree_in(const R& result) {
    if constexpr (Expression<R>)
        return (result.tree);
    else
        return constant_expr<T>{T(result)};
}

/// What fn is called with for an element of Range: an element's expression for a vector
/// expression, else the range's element (a double of data, an integer index).
template <class Range, bool Vector = vector_expression<Range>>
struct element_argument {
    using type = std::ranges::range_reference_t<const Range&>;
};
template <class Range>
struct element_argument<Range, true> {
    using type =
        expression<decltype(std::declval<const tree_of<Range>&>().template element<false, 0>(
            std::size_t{}))>;
};

template <class Range, class Fn>
using map_result = decltype(call_element(
    std::declval<Fn&>(), std::declval<typename element_argument<Range>::type>(), std::size_t{}));

/// The number of elements of a sized range of data or integers. An index range whose end comes
/// before its start (std::views::iota(0, n - 1) at n = 0) has a negative count, which its size()
/// wraps into billions: a zg::error instead.
template <class Range>
std::size_t range_size(const Range& range) {
    using iterator = std::ranges::iterator_t<const Range&>;
    using sentinel = std::ranges::sentinel_t<const Range&>;
    if constexpr (std::sized_sentinel_for<sentinel, iterator>) {
        const auto count = std::ranges::end(range) - std::ranges::begin(range);
        if (count < 0)
            throw error("zg::sum(range, fn) / zg::log_sum_exp(range, fn) / zg::scan(range, "
                        "first, step): a range of " +
                        std::to_string(static_cast<long long>(count)) +
                        " elements (an index range whose end comes before its start, such as "
                        "std::views::iota(0, n - 1) at n = 0)");
    }
    return std::size_t(std::ranges::size(range));
}

/// The elements of a range of data, integers or a vector expression, one at a time.
template <class Range>
struct elements_of {
    using argument = typename element_argument<Range>::type;
    const Range& range;
    std::size_t size() const {
        if constexpr (vector_expression<Range>)
            return range.tree.size();
        else
            return range_size(range);
    }
    /// for_each for a sum swept as it is built, from element `from` on, calling tidy() after
    /// the first element, and then after each element if the first made anything beside its
    /// tree (made() says), or else after each batch of `batch` elements, whose loop does nothing
    /// else; there, where visit_two is not null, it takes two elements at a time. visit(x, k)
    /// is called from one place, so that the compiler inlines fn into it: a tree returned
    /// through memory and then copied stalls the loop on every element. A visit that returns
    /// false stops the loop (tidy() called), and its first element's index is returned; else
    /// size().
    template <class T, class Visit, class VisitTwo, class Tidy, class Made>
    ZG_INLINE std::size_t for_each_tidily(frame<T>& f, std::size_t batch, Visit&& visit,
                                          VisitTwo&& visit_two, Tidy&& tidy, Made&& made,
                                          std::size_t from = 0) const {
        const std::size_t n = size();
        auto it = std::ranges::begin(range_elements());
        if constexpr (!vector_expression<Range>) std::ranges::advance(it, std::ptrdiff_t(from));
        // Element k: `it` stands at it until the loop moves on.
        const auto at = [&](std::size_t k) -> decltype(auto) {
            if constexpr (vector_expression<Range>)
                return make(range.tree.template element<false, 0>(k), &f);
            else
                return *it;
        };
        const auto move_on = [&] {
            if constexpr (!vector_expression<Range>) ++it;
        };
        bool careful = true; // the first element alone, then made() says
        for (std::size_t k = from; k < n;) {
            const std::size_t end = careful ? k + 1 : std::min(n, k + batch);
            if constexpr (!std::is_null_pointer_v<std::remove_cvref_t<VisitTwo>>) {
                for (; !careful && k + 1 < end; k += 2) {
                    auto&& first = at(k);
                    move_on();
                    if (!visit_two(first, k, at(k + 1), k + 1)) [[unlikely]] {
                        tidy();
                        return k;
                    }
                    move_on();
                }
            }
            for (; k < end; ++k) {
                if (!visit(at(k), k)) [[unlikely]] {
                    tidy();
                    return k;
                }
                move_on();
            }
            if (k == 1) careful = made();
            tidy();
        }
        return n;
    }
    /// The range iterated over (an index range for a vector expression).
    decltype(auto) range_elements() const {
        if constexpr (vector_expression<Range>)
            return zg::range(range.tree.size());
        else
            return (range);
    }
    /// Calls visit(x, k) for each element x and its index k.
    template <class T, class Visit>
    void for_each(frame<T>& f, Visit&& visit) const {
        if constexpr (vector_expression<Range>) {
            for (std::size_t k = 0; k < range.tree.size(); ++k)
                visit(make(range.tree.template element<false, 0>(k), &f), k);
        } else {
            std::size_t k = 0;
            for (auto&& x : range)
                visit(x, k++);
        }
    }
};

/// A range zg::sum(range, fn) maps over: a vector expression, or a sized range (of doubles or
/// integers).
template <class Range>
concept mappable = vector_expression<Range> ||
    (std::ranges::sized_range<const Range&>&&
         std::is_arithmetic_v<std::remove_cvref_t<std::ranges::range_value_t<Range>>>);

template <class R, class Range>
inline constexpr bool scalar_map_result =
    vector_expression<Range>&& std::is_arithmetic_v<std::remove_cvref_t<R>>;
template <class R, class Range>
requires Expression<R>
inline constexpr bool scalar_map_result<R, Range> = !vector_node<tree_of<R>>;

/// Whether fn, called on the elements of Range, gives a scalar expression (or, over a vector
/// expression, a number).
template <class Range, class Fn>
concept expression_map = mappable<std::remove_cvref_t<Range>> &&
    scalar_map_result<map_result<std::remove_cvref_t<Range>, Fn>, std::remove_cvref_t<Range>>;

template <class R, class Range>
struct map_scalar_of {
    using type = typename tree_of<Range>::value_type; // a number over a vector expression
};
template <class R, class Range>
requires Expression<R>
struct map_scalar_of<R, Range> {
    using type = typename std::remove_cvref_t<R>::value_type;
};
/// The scalar type of a map-reduce of fn over Range.
template <class Range, class Fn>
using map_scalar = typename map_scalar_of<map_result<Range, Fn>, Range>::type;

template <class T>
frame<T>& map_frame(frame<T>* owner, std::string_view call) {
    if (owner == nullptr) owner = current_frame<T>;
    if (owner == nullptr)
        throw error("zg::" + std::string(call) +
                    ": an expression-mode map-reduce is differentiated inside zg::grad, "
                    "zg::value_and_grad, zg::jacobian or zg::hessian only");
    return *owner;
}

enum class reduction_kind { sum, log_sum_exp };


} // namespace detail

} // namespace zg::expr
