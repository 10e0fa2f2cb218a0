// test/user_rules.hpp: rules of a user's own (zg::function), written as a user writes them, for
// the laws every mode is held to, the fuzzers and the benchmarks.
#pragma once

#include <zerograd/core/function.hpp>

#include <cmath>
#include <string_view>

namespace laws {

/// log(1 + exp(x)), whose derivative is the logistic function.
struct softplus_rule {
    static constexpr std::string_view name = "softplus";
    template <class T>
    T value(const T& x) const {
        using std::exp, std::log1p;
        return log1p(exp(x));
    }
    template <class T>
    T dx(const T& x, const T&) const {
        using std::exp;
        return 1 / (1 + exp(-x));
    }
};
inline constexpr zg::function<softplus_rule> softplus{};

/// softplus again, its value and derivative from one exp, as the library's log1p(exp(x)) has them.
struct softplus_together_rule : softplus_rule {
    template <class T>
    zg::value_and_partial<T> value_and_dx(const T& x) const {
        using std::exp, std::log1p;
        const T e = exp(x);
        return {log1p(e), e / (1 + e)};
    }
};
inline constexpr zg::function<softplus_together_rule> softplus_together{};

/// log(exp(l) + exp(r)); partials exp(l - y) and exp(r - y) read the value.
struct logaddexp_rule {
    static constexpr std::string_view name = "logaddexp";
    template <class T>
    T value(const T& l, const T& r) const {
        using std::exp, std::log;
        return log(exp(l) + exp(r));
    }
    template <class T>
    T dl(const T& l, const T&, const T& y) const {
        using std::exp;
        return exp(l - y);
    }
    template <class T>
    T dr(const T&, const T& r, const T& y) const {
        using std::exp;
        return exp(r - y);
    }
};
inline constexpr zg::function<logaddexp_rule> logaddexp{};

} // namespace laws
