// zerograd/core/error.hpp: the exceptions every mode throws.
#pragma once

#include <stdexcept>
#include <string>

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

} // namespace zg
