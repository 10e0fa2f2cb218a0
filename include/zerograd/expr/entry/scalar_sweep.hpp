// zerograd/expr/entry/scalar_sweep.hpp: a call of scalar arguments: the user's lambda called on
// leaves, the checks of what it returns, and its one evaluation and sweep, without a frame where
// the tree it returns needs none (zg::grad, zg::value_and_grad and zg::hessian run it).
// The call and the sweep are ZG_INLINE into zg::grad, so that the whole gradient is one function.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/ops/operations.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::expr {

namespace detail {

/// Bytes of a call's frame kept on the caller's stack: a call whose shared nodes fit allocates
/// nothing.
inline constexpr std::size_t stack_frame_bytes = 8192;
/// The same for a call that keeps no frame but the trees of a long formula holds.
inline constexpr std::size_t held_stack_bytes = 3072;

/// Makes `f` this thread's current frame (for verbs with no expression to find it from) until
/// the scope ends, restoring the previous one (a zg::grad inside the lambda).
template <class T>
class frame_scope {
public:
    explicit frame_scope(frame<T>& f) : previous_(current_frame<T>) { current_frame<T> = &f; }
    frame_scope(const frame_scope&) = delete;
    frame_scope& operator=(const frame_scope&) = delete;
    ~frame_scope() { current_frame<T> = previous_; }

private:
    frame<T>* previous_;
};

/// The leaves for scalar arguments: leaf I holds the value of argument I, as a T.
template <class T, class F, std::size_t... I>
ZG_INLINE constexpr auto call_on_leaves(F& f, const std::array<T, sizeof...(I)>& values,
                                        frame<T>* owner, std::index_sequence<I...>) {
    return f_returns_one_type_so_pick_with_zg_select(
        f, expression<leaf_expr<I, T, std::remove_cvref_t<F>>>{{values[I]}, owner}...);
}

/// The type f returns on N scalar leaves of T.
template <class T, std::size_t N, class F>
using scalar_result_of = std::remove_cvref_t<decltype(call_on_leaves(
    std::declval<F&>(), std::declval<const std::array<T, N>&>(), std::declval<frame<T>*>(),
    std::make_index_sequence<N>{}))>;

template <class R>
concept vector_result = Expression<R> && vector_node<tree_of<R>>;

/// What f may return: one scalar expression (not a vector) or a number.
template <class R>
concept scalar_result = std::is_arithmetic_v<R> ||(Expression<R> && !vector_result<R>);

/// Arguments of the other modes, told apart by their members (expression mode includes neither
/// mode), so that the message names the function that takes them.
template <class A>
concept tape_variable = requires(const A& a) {
    a.data();
    a.grad();
    a.backward();
};
template <class A>
concept dual_number = requires(const A& a) {
    a.value;
    a.deriv;
};
template <class A>
concept of_tape_mode = tape_variable<A> || (std::ranges::range<A> &&
                                            tape_variable<std::ranges::range_value_t<A>>);
template <class A>
concept of_forward_mode = dual_number<A> || (std::ranges::range<A> &&
                                             dual_number<std::ranges::range_value_t<A>>);


/// The message for a result R of f that holds another call's leaves alone (see call_id).
template <class F, class R>
constexpr void check_call() {
    if constexpr (Expression<R>) {
        using call = call_of<tree_of<R>>;
        static_assert(std::is_same_v<call, std::remove_cvref_t<F>> ||
                          std::is_same_v<call, no_call> || std::is_same_v<call, mixed_calls>,
                      "zg::grad: f returned an expression of another call's leaves alone: a "
                      "lambda differentiated inside another uses the outer call's leaves. Inside "
                      "the inner call they are constants: use their values, x.value()");
    }
}

/// Whether a call whose f returns R needs no frame: R is a number or a tree of arguments,
/// constants and operations (static_tree). Named intermediates and reductions f builds on the
/// way are then not part of the result: their values are read (a comparison), never swept, so
/// without a frame they keep their values only.
template <class R>
inline constexpr bool frameless = [] {
    if constexpr (Expression<R>)
        return static_tree<tree_of<R>>;
    else
        return std::is_arithmetic_v<R>;
}();

/// Which call a sweep of scalar leaves serves: for its compile-time messages, and whether it
/// wants the value (zg::grad and zg::hessian do not).
enum class scalar_call { value_and_grad, grad, hessian };

/// The messages for a result R of f that is not one scalar, naming the call.
template <scalar_call Call, class R>
constexpr void check_result() {
    static_assert(Call == scalar_call::hessian || !vector_result<R>,
                  "zg::grad / zg::value_and_grad: f returned a vector; reduce it to one "
                  "scalar, for instance with zg::sum");
    static_assert(Call == scalar_call::hessian || scalar_result<R> || vector_result<R>,
                  "zg::grad / zg::value_and_grad: f must return one scalar expression; a vector "
                  "needs a reduction such as zg::sum, and several outputs need zg::jacobian");
    static_assert(Call != scalar_call::hessian || scalar_result<R>,
                  "zg::hessian / zg::hvp: f must return one scalar expression; a vector needs a "
                  "reduction such as zg::sum");
}

/// The value of f's result y and the sweep of its tree (adjoint 1) and of the shared nodes the
/// call made, into `context`. An infinite or NaN value in the tree came from an infinite or NaN
/// input or intermediate, whose adjoints may be too: the sweep then takes strong zeros
/// throughout, as the tape's does (an infinite adjoint passes nothing through tanh's zero
/// partial at inf, nor tanh's zero adjoint at inf through an infinite partial below it).
template <class R, class T>
ZG_INLINE constexpr T value_and_sweep(const R& y, frame<T>& call, sweep_context<T>& context) {
    if constexpr (Expression<R>) {
        const auto values = evaluated(y.tree);
        if (plain_sweep_holds(y.tree, values.data())) [[likely]]
            sweep_tree(y.tree, values.data(), T(1), context);
        else
            sweep_strongly(y.tree, values.data(), T(1), context);
        sweep_list(call.persistent_last(), static_cast<shared_base<T>*>(nullptr), context);
        return value_at(y.tree, values.data());
    } else {
        return T(y);
    }
}

/// A value and the adjoints of N scalar leaves, of any scalar type T (a dual for Hessians).
template <class T, std::size_t N>
struct scalar_sweep {
    T value;
    std::array<T, N> grad;
};

template <scalar_call Call, class T, std::size_t N, class F>
ZG_INLINE constexpr scalar_sweep<T, N> sweep_in(frame<T>& call, F& f,
                                                const std::array<T, N>& values) {
    const auto y = call_on_leaves(f, values, &call, std::make_index_sequence<N>{});
    if (!std::is_constant_evaluated())
        check_not_abandoned(call, Call == scalar_call::hessian ? "hessian" : "grad");
    scalar_sweep<T, N> out{};
    sweep_context<T> context{out.grad.data()};
    out.value = value_and_sweep(y, call, context);
    return out;
}

/// The gradient of f by a sweep with strong zeros throughout, f called again: out of line and
/// cold, so that the common path keeps the tree in registers.
template <class T, std::size_t N, class F>
[[gnu::cold, gnu::noinline]] constexpr std::array<T, N>
gradient_with_strong_zeros(F& f, const std::array<T, N> values) {
    frame<T> call{std::span<argument_state<T>>{}, id_of<F>};
    const auto y = call_on_leaves(f, values, &call, std::make_index_sequence<N>{});
    std::array<T, N> grad{};
    sweep_context<T> context{grad.data()};
    const auto slots = evaluated(y.tree);
    sweep_tree<true>(y.tree, slots.data(), T(1), context);
    return grad;
}

/// Whether a gradient holds a NaN (in any part of a dual number): for doubles, two at a time, as
/// one comparison tells whether either of two numbers is NaN.
template <class T, std::size_t N>
ZG_INLINE constexpr bool any_nan(const std::array<T, N>& gradient) {
    bool nan = false;
    if (std::is_constant_evaluated()) {
        for (const T& g : gradient)
            nan |= zg::detail::has_nan(g);
    } else if constexpr (std::is_same_v<T, double>) {
        for (std::size_t i = 0; i < N; i += 2)
            nan |= std::isunordered(gradient[i], gradient[i + 1 < N ? i + 1 : i]);
    } else {
        for (const T& g : gradient)
            nan |= zg::detail::has_nan(g);
    }
    return nan;
}

/// A plain sweep's value and gradient, and whether the gradient holds a NaN: the sweep is then
/// done again with strong zeros (see sweep_frameless_in).
template <class T, std::size_t N>
struct plain_sweep {
    scalar_sweep<T, N> result;
    bool nan = false;
};

/// Trees of up to this many slots that met a NaN are swept again with strong zeros where they
/// were swept, without a call: their gradient then never passes through memory.
inline constexpr std::size_t strong_again_inline_slots = 16;

/// A call whose result needs no frame (see frameless): what a hand-written adjoint computes and
/// nothing else. Its frame object holds what f builds on the way and does not return (a named
/// intermediate it compares, say): it has no memory of its own until then, is not this thread's
/// current frame (a map-reduce over an index range with no expression to find it from computes
/// its value alone), and where f is inlined and keeps nothing, the compiler removes it.
///
/// Zeros are strong where a NaN would come out otherwise. A plain product differs from a strong
/// one only by a NaN (0 times an infinity), and a NaN adjoint reaches a leaf (adjoints only add
/// and multiply), so a plain sweep with no NaN in its gradient is right; one with a NaN is done
/// again with strong zeros: here for a small tree, else by sweep_frameless, f called again.
///
/// The adjoints of the leaves every sweep reaches start at -0.0, which the first addition then
/// drops, as a hand-written adjoint assigns its first term (such a gradient that is exactly
/// zero may come out as -0.0, as it does by hand).
template <scalar_call Call, class T, std::size_t N, class F>
ZG_INLINE constexpr plain_sweep<T, N> sweep_frameless_in(frame<T>& call, F& f,
                                                         const std::array<T, N>& values) {
    const auto y = call_on_leaves(f, values, &call, std::make_index_sequence<N>{});
    if constexpr (Expression<decltype(y)>) {
        using tree = tree_of<decltype(y)>;
        std::array<T, N> grad{};
        for (std::size_t i = 0; i < N && i < 64; ++i)
            if (sure_leaves<tree> >> i & 1) grad[i] = -T(0);
        sweep_context<T> context{grad.data()};
        const auto slots = evaluated(y.tree);
        sweep_tree(y.tree, slots.data(), T(1), context);
        const T value = value_at(y.tree, slots.data());
        if constexpr (slot_count<tree> <= strong_again_inline_slots) {
            if (any_nan(grad)) [[unlikely]] {
                grad = {};
                sweep_tree<true>(y.tree, slots.data(), T(1), context);
            }
            return {{value, grad}, false};
        } else {
            return {{value, grad}, any_nan(grad)};
        }
    } else {
        return {{T(y), {}}, false};
    }
}
/// sweep_frameless where f's tree holds parts of itself (a long formula): they start on this
/// stack, and the walks through them, and f itself, are inlined here.
template <scalar_call Call, class T, std::size_t N, class F>
[[gnu::flatten]] inline constexpr plain_sweep<T, N> sweep_frameless_holding(
    F& f, const std::array<T, N>& values) {
    if (std::is_constant_evaluated()) {
        frame<T> call{std::span<argument_state<T>>{}, id_of<F>};
        return sweep_frameless_in<Call>(call, f, values);
    }
    alignas(16) std::byte stack[held_stack_bytes];
    frame<T> call{std::span<argument_state<T>>{}, id_of<F>};
    call.hold_on(stack);
    return sweep_frameless_in<Call>(call, f, values);
}
template <scalar_call Call, class T, std::size_t N, class F>
ZG_INLINE constexpr plain_sweep<T, N> sweep_frameless_plainly(F& f,
                                                              const std::array<T, N>& values) {
    using result = decltype(call_on_leaves(f, values, static_cast<frame<T>*>(nullptr),
                                           std::make_index_sequence<N>{}));
    if constexpr (Expression<result>) {
        if constexpr (holds_any<tree_of<result>>)
            return sweep_frameless_holding<Call>(f, values);
    }
    frame<T> call{std::span<argument_state<T>>{}, id_of<F>};
    return sweep_frameless_in<Call>(call, f, values);
}
/// The sweep of a frameless call. A gradient that met a NaN is computed again with strong zeros
/// after the frame and the memory of its held trees are gone: a call made while they live could
/// read them, which would keep every store of the held trees in memory.
template <scalar_call Call, class T, std::size_t N, class F>
ZG_INLINE constexpr scalar_sweep<T, N> sweep_frameless(F& f, const std::array<T, N>& values) {
    plain_sweep<T, N> plain = sweep_frameless_plainly<Call>(f, values);
    if constexpr (Expression<scalar_result_of<T, N, F>>) {
        if (plain.nan) [[unlikely]]
            plain.result.grad = gradient_with_strong_zeros(f, values);
    }
    return plain.result;
}

/// sweep_scalars at run time: the frame starts on this stack, and verbs without an expression to
/// find it from (zg::sum over an index range) find it through frame_scope.
template <scalar_call Call, class T, std::size_t N, class F>
scalar_sweep<T, N> sweep_scalars_on_stack(F& f, const std::array<T, N>& values) {
    std::array<argument_state<T>, N> arguments{};
    alignas(16) std::byte stack[stack_frame_bytes];
    frame<T> call(arguments, stack, id_of<F>);
    const frame_scope<T> scope(call);
    return sweep_in<Call>(call, f, values);
}

/// f's value at `values` and the adjoints of its N scalar leaves, for any scalar type T: one
/// evaluation and one sweep. The type f returns says whether the call needs a frame.
template <scalar_call Call, class T, std::size_t N, class F>
ZG_INLINE constexpr scalar_sweep<T, N> sweep_scalars(F& f, const std::array<T, N>& values) {
    using result = scalar_result_of<T, N, F>;
    check_result<Call, result>();
    check_call<F, result>();
    if constexpr (!scalar_result<result>) {
        return {}; // nothing more to say after the message above
    } else if constexpr (frameless<result>) {
        return sweep_frameless<Call>(f, values);
    } else {
        if (std::is_constant_evaluated()) {
            std::array<argument_state<T>, N> arguments{};
            frame<T> call(arguments, id_of<F>);
            return sweep_in<Call>(call, f, values);
        }
        return sweep_scalars_on_stack<Call>(f, values);
    }
}
} // namespace detail

} // namespace zg::expr
