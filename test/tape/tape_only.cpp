// tape/ includes only core/: this file includes every header of tape/ and fails to
// compile if another mode's header came along (test/architecture.py checks the same from the
// #include lines).
#include <zerograd/tape/arena.hpp>
#include <zerograd/tape/dot.hpp>
#include <zerograd/tape/grad.hpp>
#include <zerograd/tape/jacobian.hpp>
#include <zerograd/tape/lifetimes.hpp>
#include <zerograd/tape/pinned.hpp>
#include <zerograd/tape/reductions.hpp>
#include <zerograd/tape/scope.hpp>
#include <zerograd/tape/sweep.hpp>
#include <zerograd/tape/tape.hpp>
#include <zerograd/tape/var.hpp>

#ifdef ZG_EXPR_TREE_NODE_HPP
#error "a tape/ header included expression mode"
#endif
#ifdef ZG_FWD_DUAL_HPP
#error "a tape/ header included forward mode"
#endif
#ifdef ZG_TENSOR_TAPE_HPP
#error "a tape/ header included the tensors"
#endif
