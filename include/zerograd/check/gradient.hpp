// zerograd/check/gradient.hpp: zg::check::gradient, a mode's gradient against central finite
// differences, reporting the worst coordinate.
#pragma once

#include "zerograd/core/arguments.hpp"
#include "zerograd/core/config.hpp" // ZG_NO_IPA
#include "zerograd/core/error.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/fwd/dual.hpp"
#include "zerograd/fwd/grad.hpp"
#include "zerograd/tape/grad.hpp"
#include "zerograd/tape/scope.hpp"
#include "zerograd/tape/tape.hpp"
#include "zerograd/tape/var.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <functional>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::check {

/// What zg::check::gradient found: the coordinate where the mode's gradient and the central
/// finite difference disagree most. A report converts to its largest relative error, so
/// `CHECK(zg::check::gradient(f, x) < 1e-8)` reads as the claim.
struct gradient_report {
    /// |analytic - numeric| / max(1, |analytic|, |numeric|) at the worst coordinate: relative
    /// for partials above 1, absolute below, where a difference quotient's own error (rounding
    /// of f over the step) is absolute. NaN if any partial is NaN.
    double max_relative_error = 0;
    /// Where: the position in the gradient (f's parameter; with a spread std::array, the
    /// element), and the element within a vector argument (0 for a number).
    std::size_t argument = 0;
    std::size_t element = 0;
    /// The mode's partial there, and the central difference.
    double analytic = 0;
    double numeric = 0;
    /// How many coordinates were compared.
    std::size_t coordinates = 0;

    constexpr operator double() const { return max_relative_error; }
};

/// Prints `largest relative error 2.1e-11 at argument 1, element 3: analytic 0.5, numeric
/// 0.50000000001`: the error with 3 digits, the partials with 17 (enough to tell any two doubles
/// apart).
inline std::ostream& operator<<(std::ostream& out, const gradient_report& r) {
    const auto precision = out.precision(3);
    out << "largest relative error " << r.max_relative_error << " at argument " << r.argument
        << ", element " << r.element << ": ";
    out.precision(17);
    out << "analytic " << r.analytic << ", numeric " << r.numeric;
    out.precision(precision);
    return out;
}

/// Modes derive from this tag, so that gradient(mode, f, x...) and gradient(f, x...) never
/// mistake one for the other.
struct mode_tag {};

template <class M>
concept gradient_mode = std::derived_from<std::remove_cvref_t<M>, mode_tag>;

/// Tape mode: zg::tape::grad. The default.
struct tape_mode_t : mode_tag {
    template <class F, class... Args>
    auto operator()(F& f, const Args&... args) const {
        return zg::tape::grad(f, args...);
    }
};
inline constexpr tape_mode_t tape_mode{};

/// Forward mode: zg::fwd::grad.
struct forward_mode_t : mode_tag {
    template <class F, class... Args>
    auto operator()(F& f, const Args&... args) const {
        return zg::fwd::grad(f, args...);
    }
};
inline constexpr forward_mode_t forward_mode{};

/// Any other gradient: `g(f, x...)` must return what zg::grad(f, x...) would.
template <class G>
struct custom_mode : mode_tag {
    G gradient;
    template <class F, class... Args>
    auto operator()(F& f, const Args&... args) const {
        return std::invoke(gradient, f, args...);
    }
};

/// Wraps a gradient callable as a mode:
/// `zg::check::gradient(zg::check::mode([](auto& f, auto... x) { return zg::grad(f, x...); }),
/// f, 1.0, 2.0)`.
template <class G>
custom_mode<std::decay_t<G>> mode(G&& g) {
    return {{}, std::forward<G>(g)};
}

namespace detail {

/// The arguments in the gradient's shape: a std::array of the numbers (or the spread array), or
/// a std::tuple of a double per number and a std::vector<double> per range. Finite differences
/// move one coordinate of it at a time.
template <class... Args>
gradient_t<Args...> point_of(const Args&... args) {
    using point = gradient_t<Args...>;
    if constexpr (zg::detail::scalar_arguments<Args...>) {
        return zg::detail::scalar_values(args...);
    } else {
        const auto one = [](const auto& argument) {
            using A = std::remove_cvref_t<decltype(argument)>;
            if constexpr (zg::detail::scalar_argument<A>)
                return static_cast<double>(argument);
            else
                return std::vector<double>(std::ranges::begin(argument),
                                           std::ranges::end(argument));
        };
        return point{one(args)...};
    }
}

/// Calls fn(argument, element, coordinate of the point, matching partial of the gradient) for
/// every coordinate.
template <class Point, class Fn>
void for_each_coordinate(Point& point, const Point& gradient, Fn fn) {
    if constexpr (zg::detail::is_std_array<Point>::value) {
        for (std::size_t i = 0; i < point.size(); ++i)
            fn(i, std::size_t{0}, point[i], gradient[i]);
    } else {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            const auto each = [&](std::size_t argument, auto& x, const auto& g) {
                if constexpr (std::is_same_v<std::remove_cvref_t<decltype(x)>, double>) {
                    fn(argument, std::size_t{0}, x, g);
                } else {
                    if (g.size() != x.size())
                        throw error("zg::check::gradient: the mode's gradient has " +
                                    std::to_string(g.size()) + " elements for argument " +
                                    std::to_string(argument) + ", which has " +
                                    std::to_string(x.size()));
                    for (std::size_t k = 0; k < x.size(); ++k)
                        fn(argument, k, x[k], g[k]);
                }
            };
            (each(I, std::get<I>(point), std::get<I>(gradient)), ...);
        }
        (std::make_index_sequence<std::tuple_size_v<Point>>{});
    }
}

/// Whether f accepts the point's coordinates as scalars S (a vector as std::span<const S>).
template <class S, class Point>
struct accepts;
template <class S, std::size_t N>
struct accepts<S, std::array<double, N>> {
    template <class F>
    static constexpr bool by = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::is_invocable_v<F&, decltype((void(I), std::declval<const S&>()))...>;
    }
    (std::make_index_sequence<N>{});
};
template <class S, class... P>
struct accepts<S, std::tuple<P...>> {
    template <class F>
    static constexpr bool by = std::is_invocable_v<
        F&, std::conditional_t<std::is_same_v<P, double>, const S&, std::span<const S>>...>;
};

template <class R>
double plain_value(const R& y) {
    if constexpr (requires { y.data(); })
        return zg::detail::primal(y.data());
    else
        return zg::detail::primal(y);
}

/// f at the point, evaluated on scalars S (duals with zero derivative, or variables recorded
/// and reclaimed): user code may call square, relu, min... which exist for zerograd's scalars
/// and not for double.
template <class S, class F, class Point>
double evaluate_on(F& f, const Point& point) {
    if constexpr (zg::detail::is_std_array<Point>::value) {
        return std::apply([&](auto... x) { return plain_value(std::invoke(f, S(x)...)); }, point);
    } else {
        const auto leaf = [](const auto& x) {
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(x)>, double>)
                return S(x);
            else
                return std::vector<S>(x.begin(), x.end());
        };
        const auto as_argument = [](const auto& copy) -> decltype(auto) {
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(copy)>, S>)
                return copy;
            else
                return std::span<const S>(copy);
        };
        const auto leaves =
            std::apply([&](const auto&... x) { return std::tuple{leaf(x)...}; }, point);
        return std::apply(
            [&](const auto&... each) { return plain_value(std::invoke(f, as_argument(each)...)); },
            leaves);
    }
}

/// f's value at the point: on zg::dual if f accepts duals (nothing recorded), else on zg::var.
template <class F, class Point>
ZG_NO_IPA double evaluate(F& f, const Point& point) {
    if constexpr (accepts<dual, Point>::template by<F>) {
        return evaluate_on<dual>(f, point);
    } else {
        static_assert(accepts<var, Point>::template by<F>,
                      "zg::check::gradient: f must accept zg::dual or zg::var arguments (a "
                      "vector argument as std::span<const T>)");
        const zg::tape::scope recording;
        return evaluate_on<var>(f, point);
    }
}

/// The central difference's step for a coordinate of magnitude |x|: the cube root of machine
/// epsilon (about 6e-6) times max(1, |x|), which balances the truncation error (h^2 f''' / 6)
/// against rounding (eps f / h) for a function of moderate scale.
inline double step_for(double x) {
    static const double cbrt_epsilon = std::cbrt(std::numeric_limits<double>::epsilon());
    return cbrt_epsilon * std::max(1.0, std::abs(x));
}

/// check::gradient once its arguments are known to be valid.
template <class M, class F, class... Args>
gradient_report compare_with_differences(const M& mode, F& f, const Args&... args) {
    using point_type = gradient_t<Args...>;
    static_assert(std::is_convertible_v<decltype(mode(f, args...)), point_type>,
                  "zg::check::gradient: the mode must return the gradient zg::grad would "
                  "(zg::gradient_t of the arguments)");
    const point_type analytic = mode(f, args...);
    point_type point = detail::point_of(args...);

    gradient_report report;
    detail::for_each_coordinate(
        point, analytic, [&](std::size_t argument, std::size_t element, double& x, double g) {
            const double x0 = x, h = detail::step_for(x0);
            const double up = x0 + h, down = x0 - h; // divide by the steps as represented
            x = up;
            const double f_up = detail::evaluate(f, point);
            x = down;
            const double f_down = detail::evaluate(f, point);
            x = x0;
            const double numeric = (f_up - f_down) / (up - down);
            const double error =
                std::abs(g - numeric) / std::max({1.0, std::abs(g), std::abs(numeric)});
            // The first coordinate sets the report; later ones replace it when worse. A NaN
            // error (a NaN partial) is the worst and stays.
            const bool worse = report.coordinates == 0 ||
                               (!std::isnan(report.max_relative_error) &&
                                (std::isnan(error) || error > report.max_relative_error));
            if (worse) report = {error, argument, element, g, numeric, report.coordinates};
            ++report.coordinates;
        });
    return report;
}

} // namespace detail

/// Compares `mode`'s gradient of f at the arguments with central finite differences, one
/// coordinate at a time (2 evaluations of f each, with a step from that coordinate's
/// magnitude), and reports the largest relative error and where it occurred. Arguments as
/// zg::grad's: numbers, a single spread std::array, or ranges of doubles. `mode` is
/// zg::check::tape_mode, zg::check::forward_mode, or zg::check::mode(g) for any gradient g.
///
///     auto r = zg::check::gradient(zg::check::forward_mode,
///                                  [](auto x, auto y) { return x * exp(y); }, 1.5, 0.5);
///     // r.max_relative_error about 1e-11; r < 1e-8 holds
template <gradient_mode M, class F, class... Args>
gradient_report gradient(const M& mode, F&& f, const Args&... args) {
    static_assert(sizeof...(Args) > 0, "zg::check::gradient: give f at least one argument");
    static_assert((zg::detail::gradient_argument<Args> && ...),
                  "zg::check::gradient: every argument must be a number, or a std::array, "
                  "std::vector or std::span of doubles");
    if constexpr (zg::detail::gradient_arguments<Args...>)
        return detail::compare_with_differences(mode, f, args...);
    else
        return gradient_report{}; // after the message above, nothing more to say
}

/// The same for tape mode (zg::tape::grad), the default.
///
///     auto r = zg::check::gradient([](auto x, auto y) { return x * exp(y); }, 1.5, 0.5);
template <class F, class... Args>
requires(!gradient_mode<F>) gradient_report gradient(F&& f, const Args&... args) {
    return check::gradient(tape_mode, std::forward<F>(f), args...);
}

} // namespace zg::check
