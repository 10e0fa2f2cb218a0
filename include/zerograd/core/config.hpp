// zerograd/core/config.hpp: compile-time switches shared by every mode.
#pragma once

// Every header includes this one before any code of its own, so that below C++20 the compiler
// stops at one message. A missing header is fatal where #error alone lets compilation go on into
// thousands of errors.
#if __cplusplus < 202002L && (!defined(_MSVC_LANG) || _MSVC_LANG < 202002L)
#error "zerograd needs C++20 or later: compile with -std=c++20 (or newer)"
#include "zerograd: compilation stopped here, C++20 is needed"
#endif

/// Forces inlining of expression mode's small functions: the reverse sweep is a template
/// recursion as deep as the expression, and g++ stops inlining at depth limits long before a
/// hand-written adjoint's straight-line code would end.
#if defined(__GNUC__) || defined(__clang__)
#define ZG_INLINE [[gnu::always_inline]] inline
#define ZG_INLINE_LAMBDA __attribute__((always_inline)) // after a lambda's parameters
#else
#define ZG_INLINE inline
#define ZG_INLINE_LAMBDA
#endif

/// A function of its own with everything it calls inlined into it at once: for the evaluation and
/// the sweep of a large expression. Inlined into the caller with the rest of the call, such code
/// left g++'s inliner to weigh each of its thousands of small calls (the rules' values and
/// partials) in one huge function: 9.5 s of compile time at 1,000 nodes against 4.6 s apart.
#if defined(__GNUC__) || defined(__clang__)
#define ZG_APART [[gnu::noinline, gnu::flatten]]
#else
#define ZG_APART
#endif

/// Keeps a function out of g++'s interprocedural analysis. g++ 12.2 at -O1 and -O2 drew a wrong
/// mod/ref summary of the call that evaluates f on forward mode's leaves: it took the stores that
/// seed a leaf just before the call for dead and returned derivatives of stale seeds (seen where
/// zg::check::gradient was inlined beside zg::fwd::grad; clang++, and g++ at -O0 and -O3, were
/// right). Forward mode seeds its leaves through such a function, and zg::check evaluates f
/// through one.
#if defined(__GNUC__) && !defined(__clang__)
#define ZG_NO_IPA [[gnu::noipa]]
#else
#define ZG_NO_IPA
#endif

namespace zg::config {

/// Checked builds (`-DZG_CHECKED`, Meson option `checked`) turn the first NaN or infinity produced
/// from finite inputs into zg::domain_error naming the operation. ZG_CHECKED defined empty or
/// nonzero turns it on; `-DZG_CHECKED=0` leaves it off.
#if defined(ZG_CHECKED) && (ZG_CHECKED + 0 != 0 || 1 - ZG_CHECKED - 1 == 2)
inline constexpr bool checked = true;
#else
inline constexpr bool checked = false;
#endif

} // namespace zg::config
