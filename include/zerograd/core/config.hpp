// zerograd/core/config.hpp: compile-time switches shared by every mode.
#pragma once

namespace zg::config {

/// Checked builds (`-DZG_CHECKED`, Meson option `checked`) turn the first NaN or infinity produced
/// from finite inputs into zg::domain_error naming the operation.
#ifdef ZG_CHECKED
inline constexpr bool checked = true;
#else
inline constexpr bool checked = false;
#endif

} // namespace zg::config
