// zerograd/nn/parameter.hpp: how optimizers read and write a parameter of any type: its values
// and gradients as spans of doubles (parameter_traits), and the concept trainable.
#pragma once

#include "zerograd/core/config.hpp"

#include <concepts>
#include <cstddef>
#include <span>
#include <utility> // std::forward
#include <vector>

namespace zg::nn {

namespace detail {

inline std::span<double> as_span(double& x) { return {&x, 1}; }
template <class R>
requires std::constructible_from<std::span<double>, R &&> std::span<double> as_span(R&& range) {
    return std::span<double>(std::forward<R>(range));
}

/// data() and grad() give a double& or a contiguous range of doubles each.
template <class P>
concept has_data_and_grad = requires(P& p) {
    detail::as_span(p.data());
    detail::as_span(p.grad());
};

} // namespace detail

/// The customization point of the optimizers: `values(p)` and `grads(p)` give a parameter's
/// values and gradients as two spans of doubles of one size, fetched afresh at every step (a
/// parameter type may keep its numbers where it likes).
///
/// The default serves every type whose `data()` and `grad()` return either a `double&` (zg::var:
/// one value) or something a std::span<double> can be made from (a tensor's contiguous values).
/// Specialize it for a parameter type that offers neither.
template <class P>
struct parameter_traits {
    static std::span<double> values(P& p) requires detail::has_data_and_grad<P> {
        return detail::as_span(p.data());
    }
    static std::span<double> grads(P& p) requires detail::has_data_and_grad<P> {
        return detail::as_span(p.grad());
    }
};

/// A type the optimizers can update: parameter_traits<P> gives its values and gradients.
template <class P>
concept trainable = requires(P& p) {
    { parameter_traits<P>::values(p) } -> std::same_as<std::span<double>>;
    { parameter_traits<P>::grads(p) } -> std::same_as<std::span<double>>;
};

namespace detail {

/// How many doubles the parameters hold together: the size of an optimizer's state.
template <trainable P>
std::size_t element_count(std::vector<P>& parameters) {
    std::size_t count = 0;
    for (P& p : parameters)
        count += parameter_traits<P>::values(p).size();
    return count;
}

} // namespace detail

} // namespace zg::nn
