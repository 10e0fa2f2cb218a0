// zerograd/core/config.hpp: compile-time switches shared by every mode.
#pragma once

/// Forces inlining of expression mode's small functions: the reverse sweep is a template
/// recursion as deep as the expression, and g++ stops inlining at depth limits long before a
/// hand-written adjoint's straight-line code would end.
#if defined(__GNUC__) || defined(__clang__)
#define ZG_INLINE [[gnu::always_inline]] inline
#else
#define ZG_INLINE inline
#endif

namespace zg::config {

/// Checked builds (`-DZG_CHECKED`, Meson option `checked`) turn the first NaN or infinity produced
/// from finite inputs into zg::domain_error naming the operation.
#ifdef ZG_CHECKED
inline constexpr bool checked = true;
#else
inline constexpr bool checked = false;
#endif

} // namespace zg::config
