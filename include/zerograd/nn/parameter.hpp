// zerograd/nn/parameter.hpp: how optimizers read and write a parameter of any type: its values
// and gradients as spans of doubles (parameter_traits), and the concept trainable.
#pragma once

#include "zerograd/core/config.hpp"

#include <concepts>
#include <cstddef>
#include <span>
#include <utility> // std::forward, std::move
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

/// Sets a parameter's gradient to zero.
template <trainable P>
void zero_gradient(P& p) {
    for (double& g : parameter_traits<P>::grads(p))
        g = 0;
}

/// The parameters an optimizer updates: the list it was given, walked value by value.
template <trainable P>
class parameter_list {
public:
    explicit parameter_list(std::vector<P> parameters) : parameters_(std::move(parameters)) {}

    /// How many doubles the parameters hold together: the size of an optimizer's state.
    std::size_t element_count() {
        std::size_t count = 0;
        for (P& p : parameters_)
            count += parameter_traits<P>::values(p).size();
        return count;
    }
    /// Calls update(value, gradient, k) for every value of every parameter, k counting the
    /// values from 0 in order (an optimizer's state for that value).
    template <class Update>
    void update_each(Update update) {
        std::size_t k = 0;
        for (P& p : parameters_) {
            const std::span<double> values = parameter_traits<P>::values(p);
            const std::span<double> grads = parameter_traits<P>::grads(p);
            for (std::size_t i = 0; i < values.size(); ++i, ++k)
                update(values[i], grads[i], k);
        }
    }
    void zero_grad() {
        for (P& p : parameters_)
            zero_gradient(p);
    }
    std::span<const P> get() const { return parameters_; }

private:
    std::vector<P> parameters_;
};

/// What a model derives its parameters(), parameter_count(), zero_grad() and
/// append_parameters() from: its own for_each_parameter(fn), which calls fn on each parameter
/// in order.
template <class Model, class P>
class model_parameters {
public:
    /// Every parameter, in the model's order.
    std::vector<P> parameters() const {
        std::vector<P> all;
        all.reserve(count_handles());
        append_parameters(all);
        return all;
    }
    /// The number of parameter values (a tensor counts its elements), without allocating.
    std::size_t parameter_count() const {
        std::size_t count = 0;
        model().for_each_parameter([&](P p) { count += parameter_traits<P>::values(p).size(); });
        return count;
    }
    /// Sets every parameter's gradient to zero.
    void zero_grad() const {
        // Through a copy of each handle: a model's zg::var and zg::tensor share their numbers.
        model().for_each_parameter([](P p) { zero_gradient(p); });
    }
    /// Appends the parameters to `out`; models use it to gather theirs without copies in between.
    void append_parameters(std::vector<P>& out) const {
        model().for_each_parameter([&](const P& p) { out.push_back(p); });
    }

private:
    const Model& model() const { return static_cast<const Model&>(*this); }
    std::size_t count_handles() const {
        std::size_t count = 0;
        model().for_each_parameter([&](const P&) { ++count; });
        return count;
    }
};

} // namespace detail

} // namespace zg::nn
