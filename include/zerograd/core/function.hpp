// zerograd/core/function.hpp: zg::function<Rule>, an operation of the user's own rule, applied in
// every mode the way the library applies its own rules.
#pragma once

#include "zerograd/core/elementwise.hpp"
#include "zerograd/core/scalar.hpp" // checked_value

#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace zg {

/// A rule of one argument: `value(x)` and `dx(x, y)`, the partial at x given y = value(x).
template <class Rule>
concept unary_rule = requires(const Rule& rule, const double& x) {
    { rule.value(x) } -> std::convertible_to<double>;
    { rule.dx(x, x) } -> std::convertible_to<double>;
};

/// A rule of two: `value(l, r)`, `dl(l, r, y)` and `dr(l, r, y)`.
template <class Rule>
concept binary_rule = requires(const Rule& rule, const double& x) {
    { rule.value(x, x) } -> std::convertible_to<double>;
    { rule.dl(x, x, x) } -> std::convertible_to<double>;
    { rule.dr(x, x, x) } -> std::convertible_to<double>;
};

/// A rule with a name for messages and graphs: `static constexpr std::string_view name`.
template <class Rule>
concept named_rule = requires {
    std::string_view(Rule::name);
};

template <class Rule>
struct function;

/// What a call of zg::function<Rule> needs: as many operands as the rule takes (any number while
/// the rule is malformed, so that the call reaches the static_asserts that say what is missing).
template <class Rule, std::size_t N>
concept called_with_as_many_operands_as_its_rule_takes =
    !function<Rule>::well_formed || N == function<Rule>::arity;

/// The operation of a rule written like the library's own (core/rules.hpp): on plain numbers its
/// value; on any mode's scalar the mode's node for it, found by argument-dependent lookup as
/// `apply_rule(rule, operands...)` beside the mode's scalar type, the same function each of the
/// library's operations goes through; on a std::span or std::vector of a mode's scalars, per
/// element (core/elementwise.hpp).
template <class Rule>
struct function {
    using rule_type = Rule;
    /// How many operands the rule takes.
    static constexpr std::size_t arity = unary_rule<Rule> ? 1 : binary_rule<Rule> ? 2 : 0;
    /// Whether the rule has what every mode needs: a name, its partials, no state.
    static constexpr bool well_formed = named_rule<Rule> && arity != 0 && std::is_empty_v<Rule> &&
                                        std::is_default_constructible_v<Rule>;

    // A constraint rather than a static_assert, so that std::is_invocable (which zg::sum(v, fn)
    // asks) sees the operand count.
    template <class... X>
    requires called_with_as_many_operands_as_its_rule_takes<Rule, sizeof...(X)>
    constexpr auto operator()(X&&... x) const {
        // Checked where it is called: a class whose static_assert failed has no members for
        // clang, which would add errors of its own.
        static_assert(
            named_rule<Rule>,
            "zg::function<Rule>: Rule has no name; give it "
            "`static constexpr std::string_view name = \"...\";` (error messages, checked "
            "builds and zg::to_dot show it)");
        constexpr bool has_unary_value = requires(const Rule& r, const double& v) { r.value(v); };
        constexpr bool has_binary_value = requires(const Rule& r, const double& v) {
            r.value(v, v);
        };
        static_assert(unary_rule<Rule> || binary_rule<Rule> || !has_unary_value,
                      "zg::function<Rule>: Rule states value(x) but not dx(x, y), the derivative "
                      "at x given y = value(x): add `template <class T> T dx(const T& x, const T& "
                      "y) const`");
        static_assert(unary_rule<Rule> || binary_rule<Rule> || !has_binary_value,
                      "zg::function<Rule>: Rule states value(l, r) but not both dl(l, r, y) and "
                      "dr(l, r, y), the partials by l and by r given y = value(l, r)");
        static_assert(
            unary_rule<Rule> || binary_rule<Rule> || has_unary_value || has_binary_value,
            "zg::function<Rule>: Rule states neither value(x) and dx(x, y) nor value(l, r), "
            "dl(l, r, y) and dr(l, r, y); write them as templates on the scalar type, "
            "`template <class T> T value(const T& x) const`");
        static_assert(std::is_empty_v<Rule> && std::is_default_constructible_v<Rule>,
                      "zg::function<Rule>: Rule must be an empty struct (the modes make it anew "
                      "where they apply it); pass parameters as operands");
        if constexpr (well_formed && sizeof...(X) == arity)
            return apply(std::forward<X>(x)...);
        else // a static_assert above failed: the first operand lets the caller's code compile on,
             // so that the one message shown is that one
            return first(x...);
    }

private:
    template <class X, class... Rest>
    static constexpr X first(const X& x, const Rest&...) {
        return x;
    }

    template <class X>
    constexpr auto apply(X&& x) const {
        using D = std::remove_cvref_t<X>;
        if constexpr (std::is_arithmetic_v<D>)
            return detail::checked_value(Rule{}, static_cast<double>(x));
        else if constexpr (elementwise::detail::scalar_range<D>)
            return elementwise::detail::map(x, *this);
        else
            return apply_rule(Rule{}, std::forward<X>(x));
    }

    template <class L, class R>
    constexpr auto apply(L&& l, R&& r) const {
        using DL = std::remove_cvref_t<L>;
        using DR = std::remove_cvref_t<R>;
        if constexpr (std::is_arithmetic_v<DL> && std::is_arithmetic_v<DR>)
            return detail::checked_value(Rule{}, static_cast<double>(l), static_cast<double>(r));
        else if constexpr (elementwise::detail::operands<DL, DR>)
            return elementwise::detail::map(Rule::name, l, r, *this);
        else
            return apply_rule(Rule{}, std::forward<L>(l), std::forward<R>(r));
    }
};

} // namespace zg
