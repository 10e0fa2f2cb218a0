// zerograd/tape/grad.hpp: zg::tape::grad and zg::tape::value_and_grad, the tape-mode twins of
// zg::grad: they call f with zg::var leaves, sweep once, and reclaim what f recorded.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::tape {

namespace detail {

/// A range argument's leaves: variables naming consecutive nodes, written in one plain loop (a
/// std::vector's push_back would check its capacity for each).
class leaf_run {
    static_assert(std::is_trivially_destructible_v<var>);

public:
    leaf_run(basic_tape<double>& tape, std::uint32_t first, std::size_t count)
        : vars_(std::allocator<var>().allocate(count)), count_(count) {
        for (std::size_t k = 0; k < count; ++k)
            std::construct_at(vars_ + k,
                              var_access::at(tape, first + static_cast<std::uint32_t>(k)));
    }
    leaf_run(leaf_run&& other) noexcept
        : vars_(std::exchange(other.vars_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    leaf_run& operator=(leaf_run&&) = delete;
    ~leaf_run() {
        if (vars_ != nullptr) std::allocator<var>().deallocate(vars_, count_);
    }
    std::span<const var> span() const { return {vars_, count_}; }

private:
    var* vars_;
    std::size_t count_;
};

/// One argument's leaves: a var for a number, a run of vars (recorded at consecutive indices,
/// all at once) for a range of doubles.
template <class A>
auto make_leaves(basic_tape<double>& tape, const A& argument) {
    if constexpr (zg::detail::scalar_argument<A>) {
        return var(tape, static_cast<double>(argument));
    } else {
        const std::span<const double> values = zg::detail::vector_span(argument);
        return leaf_run(tape, tape.record_leaves(values.data(), values.size()), values.size());
    }
}

/// Every argument's leaves, in a tuple. Numbers alone, the common small call, are recorded as
/// one run.
template <class... A>
auto make_all_leaves(basic_tape<double>& tape, const A&... arguments) {
    if constexpr ((zg::detail::scalar_argument<A> && ...)) {
        const double values[] = {static_cast<double>(arguments)...};
        const std::uint32_t first = tape.record_leaves(values, sizeof...(A));
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::tuple{var_access::at(tape, first + std::uint32_t(I))...};
        }(std::index_sequence_for<A...>{});
    } else {
        return std::tuple{make_leaves(tape, arguments)...};
    }
}

/// What f receives for those leaves: the var itself, or a span over the run.
inline const var& as_argument(const var& leaf) { return leaf; }
inline std::span<const var> as_argument(const leaf_run& leaves) { return leaves.span(); }

// (The leaves are alive: the call's own scope recorded them.)
inline double gradient_of(const var& leaf) { return var_access::adjoint(leaf); }
inline std::vector<double> gradient_of(const leaf_run& run) {
    const std::span<const var> leaves = run.span();
    if (leaves.empty()) return {};
    // The leaves are consecutive nodes: their adjoints are one contiguous run.
    const double* adjoints = leaves.front().tape().adjoints_from(leaves.front().index());
    return std::vector<double>(adjoints, adjoints + leaves.size());
}

template <class R>
inline constexpr bool scalar_result = std::is_same_v<R, var> || std::is_arithmetic_v<R>;

/// value_and_grad, once its arguments are known to be good.
template <class F, class... Args>
auto value_and_grad_at(F& f, const Args&... args) {
    using gradient = gradient_t<Args...>;
    basic_tape<double>& tape = this_thread_tape<double>();
    const basic_scope<double> recording(tape);

    auto leaves = zg::detail::spread_arguments(
        [&](const auto&... each) { return detail::make_all_leaves(tape, each...); }, args...);
    auto&& produced = zg::detail::call_with_views(
        f, leaves, [](const auto& each) -> decltype(auto) { return detail::as_argument(each); });
    using result = zg::detail::kept_t<decltype(produced)>; // a formula is kept as its variable
    const result y = std::forward<decltype(produced)>(produced);
    static_assert(
        detail::scalar_result<result>,
        "zg::tape::grad / zg::tape::value_and_grad: f must return one scalar (a zg::var); "
        "use zg::jacobian for functions with several outputs");

    if constexpr (std::is_same_v<result, var>) {
        if (y.index() >= recording.first()) tape.backward(y.index(), recording.first());
    }
    const double value = [&] {
        if constexpr (std::is_same_v<result, var>)
            return y.data();
        else if constexpr (std::is_arithmetic_v<result>)
            return static_cast<double>(y);
        else
            return 0.0; // after the message above, nothing more to say
    }();
    return value_and_grad_result<gradient>{
        value, zg::detail::pack_gradient<Args...>(
                   leaves, [](const auto& each) { return detail::gradient_of(each); })};
}

} // namespace detail

/// The value of f at the arguments and its gradient, by one recording and one reverse sweep.
/// Arguments and results as zg::value_and_grad: numbers give std::array<double, N> (a single
/// std::array<double, N> is spread into N leaves); any range of doubles, passed to f as
/// std::span<const zg::var>, makes the gradient a std::tuple. Everything f records is reclaimed
/// before this returns. A zg::var that f captures is a constant: the sweep stops at the call's
/// first node, so its grad() is not touched (use backward() to accumulate into parameters).
///
///     auto [v, g] = zg::tape::value_and_grad([](auto x, auto y) { return x * y; }, 2.0, 3.0);
///     // v == 6, g == {3, 2}
template <class F, class... Args>
auto value_and_grad(F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::tape::value_and_grad: give f at least one argument");
    static_assert((zg::detail::gradient_argument<Args> && ...),
                  "zg::tape::value_and_grad: every argument must be a number, or a std::array, "
                  "std::vector or std::span of doubles");
    if constexpr (zg::detail::gradient_arguments<Args...>) // else nothing more to say
        return detail::value_and_grad_at(f, args...);
}

/// The gradient of f at the arguments; see value_and_grad.
template <class F, class... Args>
auto grad(F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::tape::grad: give f at least one argument");
    static_assert((zg::detail::gradient_argument<Args> && ...),
                  "zg::tape::grad: every argument must be a number, or a std::array, "
                  "std::vector or std::span of doubles");
    if constexpr (zg::detail::gradient_arguments<Args...>)
        return tape::value_and_grad(std::forward<F>(f), args...).grad;
}

} // namespace zg::tape
