// zerograd/core/error.hpp: the exceptions every mode throws.
#pragma once

#include "zerograd/core/config.hpp"

#include <charconv>
#include <cmath>
#include <exception> // uncaught_exceptions: scope_ended_elsewhere
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace zg {

/// Base of every runtime error zerograd throws.
struct error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Operands whose shapes do not fit the operation; the message names both shapes and the operation.
struct shape_error : error {
    using error::error;
};

/// In checked builds (ZG_CHECKED): an operation produced NaN or infinity from finite inputs.
struct domain_error : error {
    using error::error;
};

/// A variable whose node was reclaimed (its tape scope or its thread ended) was used.
struct dangling_var : error {
    using error::error;
};

namespace detail {

/// What a scope's destructor does when it ends on a thread other than the one that made it (or
/// after that thread ended): throws zg::error naming the scope, leaving its tape as it was;
/// during unwinding, when throwing would end the program, it only leaves the tape alone.
[[gnu::cold, gnu::noinline]] inline void scope_ended_elsewhere(std::string_view scope) {
    if (std::uncaught_exceptions() == 0)
        throw error(std::string(scope) +
                    ": ended on a thread other than the one that made it (or after that thread "
                    "ended); the tape is left as it was: end a scope on the thread that made it");
}

/// x as the shortest text that reads back as the same number: "0.1", "1.0000000000000002",
/// "inf", "nan", "18446744073709551615". Messages print numbers this way so that a value near a
/// boundary is not shown as the boundary.
template <class Number>
std::string number_text(Number x) {
    if constexpr (std::is_floating_point_v<Number>)
        if (std::isnan(x)) return "nan"; // the sign of a NaN means nothing to the reader
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, x).ptr;
    return std::string(text, end);
}

/// Throws zg::error "who: setting is value; it must be rule" unless `valid`.
template <class Number>
void require_setting(bool valid, std::string_view who, std::string_view setting, Number value,
                     std::string_view rule) {
    if (!valid)
        throw error(std::string(who) + ": " + std::string(setting) + " is " + number_text(value) +
                    "; it must be " + std::string(rule));
}

/// The same for a finite setting >= 0 (a learning rate, a weight decay, a noise level).
inline void require_finite_non_negative(std::string_view who, std::string_view setting,
                                        double value) {
    require_setting(std::isfinite(value) && value >= 0, who, setting, value,
                    "a finite number >= 0");
}

} // namespace detail

} // namespace zg
