// zerograd/expr/grad.hpp: zg::grad and zg::value_and_grad, which call the user's lambda on
// expression leaves and sweep the tree it returns.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/operations.hpp"
#include "zerograd/expr/sweep.hpp"
#include "zerograd/expr/vector.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::expr {

namespace detail {

/// The leaves for scalar arguments: leaf I holds the value of argument I, as a T.
template <class T, class F, std::size_t... I>
constexpr auto call_on_leaves(F& f, const std::array<T, sizeof...(I)>& values,
                              std::index_sequence<I...>) {
    return std::invoke(f, expression<leaf_expr<I, T>>{leaf_expr<I, T>{values[I]}, {}}...);
}

template <class R>
concept vector_result = Expression<R> && vector_node<typename R::tree_type>;

/// What f may return: one scalar expression (not a vector) or a number.
template <class R>
concept scalar_result = std::is_arithmetic_v<R> || (Expression<R> && !vector_result<R>);

/// Which call a sweep of scalar leaves serves, for its compile-time messages.
enum class scalar_call { grad, hessian };

/// The messages for a result R of f that is not one scalar, naming the call.
template <scalar_call Call, class R>
constexpr void check_result() {
    static_assert(Call != scalar_call::grad || !vector_result<R>,
                  "zg::grad / zg::value_and_grad: f returned a vector; reduce it to one "
                  "scalar, for instance with zg::sum");
    static_assert(Call != scalar_call::grad || scalar_result<R> || vector_result<R>,
                  "zg::grad / zg::value_and_grad: f must return one scalar expression; a vector "
                  "needs a reduction such as zg::sum, and several outputs need zg::jacobian");
    static_assert(Call != scalar_call::hessian || scalar_result<R>,
                  "zg::hessian: f must return one scalar expression; a vector needs a reduction "
                  "such as zg::sum");
}

/// A value and the adjoints of N scalar leaves, of any scalar type T (a dual for Hessians).
template <class T, std::size_t N>
struct scalar_sweep {
    T value;
    std::array<T, N> grad;
};

template <scalar_call Call, class T, std::size_t N, class F>
constexpr scalar_sweep<T, N> sweep_scalars_in_scope(F& f, const std::array<T, N>& values) {
    const auto y = call_on_leaves(f, values, std::make_index_sequence<N>{});
    using result = std::remove_cvref_t<decltype(y)>;
    check_result<Call, result>();
    std::array<T, N> gradient{};
    if constexpr (!scalar_result<result>) {
        return {}; // after the message above, nothing more to say
    } else if constexpr (Expression<result>) {
        sweep(y, gradient);
        return {y.value(), gradient};
    } else {
        return {T(y), gradient};
    }
}

/// Makes this thread's call context current for one zg::grad call with vector arguments, and
/// restores the previous one (a zg::grad inside f) with its scratch position when done.
template <std::size_t N>
class call_scope {
public:
    template <class... Args>
    explicit call_scope(const Args&... args)
        : previous_(current_call), lengths_{length_of(args)...} {
        // One context per thread: nested calls save and restore their position in it.
        call_context& context = zg::detail::this_thread_object<call_context>();
        saved_block_ = context.block;
        saved_used_ = context.used;
        saved_lengths_ = context.lengths;
        saved_gradients_ = context.gradients;
        saved_building_ = context.building;
        saved_gathered_ = context.gathered.size();
        // One argument at a time: g++ clears the whole array with `rep stos`, which takes
        // longer to start than these few stores (some 7 ns of a 130 ns call, measured).
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((gradients_[I] = vector_gradient{}), ...);
        }(std::make_index_sequence<N>{});
        context.lengths = lengths_.data();
        context.gradients = gradients_.data();
        context.building = 0;
        current_call = &context;
    }
    /// The same for a call whose gradient holds a std::vector per vector argument: the sweep,
    /// and a sum that claims an argument, write into it.
    template <class... G, class... Args>
    call_scope(std::tuple<G...>& gradient, const Args&... args) : call_scope(args...) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((gradients_[I].data = data_of(std::get<I>(gradient))), ...);
        }(std::index_sequence_for<G...>{});
    }
    call_scope(const call_scope&) = delete;
    call_scope& operator=(const call_scope&) = delete;
    ~call_scope() {
        current_call->rewind(saved_block_, saved_used_);
        current_call->lengths = saved_lengths_;
        current_call->gradients = saved_gradients_;
        current_call->building = saved_building_;
        current_call->gathered.resize(saved_gathered_);
        current_call = previous_;
    }

    /// Where the sweep adds into argument I's gradient: the gradient itself, or, when a node
    /// claimed it and others write too, scratch space that finish_claims adds in. Asked for
    /// every argument before finish_claims.
    double* sweep_destination(std::size_t i) {
        vector_gradient& g = gradients_[i];
        if (!(g.claimed && g.shared)) return g.data;
        deferred_[i] = current_call->allocate(lengths_[i]);
        return deferred_[i];
    }

    /// After the sweep: each claimed gradient scaled by its claimant's adjoint (zero if the
    /// claimant was not part of the result), plus what other nodes wrote meanwhile.
    void finish_claims() {
        for (std::size_t i = 0; i < N; ++i) {
            const vector_gradient& g = gradients_[i];
            if (!g.claimed) continue;
            double* data = g.data;
            const std::size_t n = lengths_[i];
            if (!g.swept)
                std::fill_n(data, n, 0.0);
            else if (g.scale != 1) {
                if (g.strong) [[unlikely]]
                    scale_strongly(data, n, g.scale);
                else
                    for (std::size_t k = 0; k < n; ++k)
                        data[k] *= g.scale;
            }
            if (g.shared)
                for (std::size_t k = 0; k < n; ++k)
                    data[k] += deferred_[i][k];
        }
    }

private:
    /// Scales partials by an adjoint that may be infinite, zeros strong (see zg::detail::chain);
    /// out of line, so that finish_claims stays small enough to inline.
    [[gnu::cold, gnu::noinline]] static void scale_strongly(double* data, std::size_t n,
                                                            double scale) {
        for (std::size_t k = 0; k < n; ++k) data[k] = zg::detail::chain(scale, data[k]);
    }

    static double* data_of(double&) { return nullptr; }
    static double* data_of(std::vector<double>& gradient) { return gradient.data(); }
    template <class A>
    static std::size_t length_of(const A& a) {
        if constexpr (zg::detail::scalar_argument<A>) return 0;
        else return std::ranges::size(a);
    }
    call_context* previous_;
    std::array<std::size_t, N> lengths_;
    std::array<vector_gradient, N> gradients_;
    std::array<double*, N> deferred_; // set by sweep_destination where finish_claims reads it
    std::size_t saved_block_, saved_used_;
    const std::size_t* saved_lengths_;
    vector_gradient* saved_gradients_;
    int saved_building_;
    std::size_t saved_gathered_;
};

/// Where the top-level sweep of a call with vector arguments puts adjoints: numbers into the
/// gradient tuple, elements of vector argument I into destinations[I] (see call_scope).
template <class Gradient, std::size_t N>
struct call_target {
    static constexpr bool finishes_claims = true;
    Gradient& gradient;
    std::array<double*, N> destinations;
    template <std::size_t I, class T>
    ZG_INLINE constexpr void add_leaf(const T& adjoint) {
        std::get<I>(gradient) += adjoint;
    }
    template <std::size_t I, class T>
    ZG_INLINE constexpr void add_element(std::size_t k, const T& adjoint) {
        destinations[I][k] += adjoint;
    }
};

/// sweep_scalars for a tree holding a zg::scan over a captured range: its states need the call's
/// scratch arena, which functions of numbers alone otherwise do without.
template <scalar_call Call, class T, std::size_t N, class F>
scalar_sweep<T, N> sweep_scalars_with_scratch(F& f, const std::array<T, N>& values) {
    const call_scope<1> scope(0.0);
    return sweep_scalars_in_scope<Call>(f, values);
}

/// f's value at `values` and the adjoints of its N scalar leaves, for any scalar type T.
template <scalar_call Call, class T, std::size_t N, class F>
constexpr scalar_sweep<T, N> sweep_scalars(F& f, const std::array<T, N>& values) {
    using built = decltype(call_on_leaves(f, values, std::make_index_sequence<N>{}));
    if constexpr (needs_scratch<std::remove_cvref_t<built>>())
        return sweep_scalars_with_scratch<Call>(f, values);
    else
        return sweep_scalars_in_scope<Call>(f, values);
}

/// Argument I as a leaf: a scalar leaf for a number, a vector leaf for a range.
template <std::size_t I, class A>
auto leaf_for(const A& a) {
    if constexpr (zg::detail::scalar_argument<A>)
        return expression<leaf_expr<I, double>>{{static_cast<double>(a)}, {}};
    else
        return expression<vector_leaf_expr<I, double>>{
            {std::span<const double>(std::ranges::data(a), std::ranges::size(a))}, {}};
}

/// Argument I's gradient, zero: a double for a number, a vector of its length for a range.
template <class A>
auto zero_gradient_for(const A& a) {
    if constexpr (zg::detail::scalar_argument<A>) return 0.0;
    else return std::vector<double>(std::ranges::size(a), 0.0);
}

/// value_and_grad with at least one vector argument: the gradient is a std::tuple.
template <class F, class... Args>
auto sweep_mixed(F& f, const Args&... args) {
    constexpr std::size_t N = sizeof...(Args);
    gradient_t<Args...> gradient{zero_gradient_for(args)...};
    call_scope<N> scope(gradient, args...);
    const auto y = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::invoke(f, leaf_for<I>(args)...);
    }(std::index_sequence_for<Args...>{});
    using result = std::remove_cvref_t<decltype(y)>;
    check_result<scalar_call::grad, result>();
    // Also for a result that is a number: the nodes f built may still have claimed a gradient.
    call_target<gradient_t<Args...>, N> target{gradient, {}};
    for (std::size_t i = 0; i < N; ++i)
        target.destinations[i] = scope.sweep_destination(i);
    double value;
    if constexpr (!scalar_result<result>) {
        value = 0; // after the messages above, nothing more to say
    } else if constexpr (Expression<result>) {
        sweep_into(y, target);
        value = y.value();
    } else {
        value = static_cast<double>(y);
    }
    scope.finish_claims();
    return value_and_grad_result<gradient_t<Args...>>{value, std::move(gradient)};
}

} // namespace detail

/// The value of f at the arguments and its gradient, by one forward evaluation and one reverse
/// sweep that the compiler generates from the expression's type: no tape, no heap for numbers
/// and std::array, and usable in constant expressions when every operation is (+ - * /,
/// integer pow, square, abs, relu, min, max). A single std::array<double, N> is spread into N
/// leaves; the gradient is then std::array<double, N>. A range of doubles (std::vector, std::span)
/// becomes one vector leaf, and the gradient a std::tuple with a double per number and a
/// std::vector<double> per range.
///
///     auto [v, g] = zg::value_and_grad([](auto x, auto y) { return x * y + sin(x); }, 2.0, 3.0);
///     // v == 6 + sin(2), g == {3 + cos(2), 2}
template <class F, class... Args>
constexpr auto value_and_grad(F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::value_and_grad: give f at least one argument");
    static_assert((zg::detail::gradient_argument<Args> && ...),
                  "zg::value_and_grad: every argument must be a number, or a std::array, "
                  "std::vector or std::span of doubles");
    if constexpr (!zg::detail::gradient_arguments<Args...>) {
        return;
    } else if constexpr (zg::detail::spread_array<Args...>) {
        const auto& values = std::get<0>(std::tie(args...));
        const auto [value, gradient] = detail::sweep_scalars<detail::scalar_call::grad>(f, values);
        return value_and_grad_result<gradient_t<Args...>>{value, gradient};
    } else if constexpr ((zg::detail::scalar_argument<Args> && ...)) {
        const std::array<double, sizeof...(Args)> values{static_cast<double>(args)...};
        const auto [value, gradient] = detail::sweep_scalars<detail::scalar_call::grad>(f, values);
        return value_and_grad_result<gradient_t<Args...>>{value, gradient};
    } else {
        return detail::sweep_mixed(f, args...);
    }
}

/// The gradient of f at the arguments; see value_and_grad.
///
///     std::array<double, 2> g = zg::grad([](auto x, auto y) { return x * y; }, 2.0, 3.0);
///     // g == {3, 2}
template <class F, class... Args>
constexpr auto grad(F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::grad: give f at least one argument");
    static_assert((zg::detail::gradient_argument<Args> && ...),
                  "zg::grad: every argument must be a number, or a std::array, std::vector or "
                  "std::span of doubles");
    if constexpr (zg::detail::gradient_arguments<Args...>)
        return expr::value_and_grad(std::forward<F>(f), args...).grad;
}

/// The expression f builds on leaves holding the arguments (numbers only), for printing it or
/// sweeping it by hand.
template <class F, class... Args>
    requires(zg::detail::scalar_argument<Args> && ...)
constexpr auto build(F&& f, const Args&... args) {
    const std::array<double, sizeof...(Args)> values{static_cast<double>(args)...};
    return detail::call_on_leaves(f, values, std::index_sequence_for<Args...>{});
}

} // namespace zg::expr

namespace zg {
using expr::grad;
using expr::value_and_grad;
} // namespace zg
