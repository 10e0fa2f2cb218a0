// zerograd/tape/statements.hpp: the kinds of statement a tape has recorded, so that a node holding
// a whole formula can say what it computes (zg::to_dot, basic_var::op()).
#pragma once

#include "zerograd/core/rules.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace zg::tape::detail {

/// A tape node stores what it computes in one byte: an op_id below 0x80 for a node of one
/// operation; for a statement, a formula of several, 0x80 + k for the program's k-th kind of
/// statement (its text and outermost operation kept here), or, beyond the first 88 kinds,
/// 0xd8 + its outermost operation (an op_id below 40: no reduction ends a formula; a user's
/// operation, op_id::function, takes the place of op_id::leaf, which ends none either).
struct statement_kind {
    std::string formula; // operands x0, x1, ... in the order read, constants c, exponents n
    op_id root;
};

inline constexpr std::uint8_t first_statement = 0x80;
inline constexpr std::uint8_t first_unnamed_statement = 0xd8;
inline constexpr std::size_t named_statements = first_unnamed_statement - first_statement;

struct statement_registry {
    std::array<statement_kind, named_statements> kinds;
    std::atomic<std::size_t> count{0}; // kinds[0, count) are written and never change
    std::mutex registering;
};

inline statement_registry& statement_kinds() {
    static statement_registry registry;
    return registry;
}

/// The byte a statement of this formula records, given once per formula type (the first time
/// one is recorded).
inline std::uint8_t register_statement(std::string formula, op_id root) {
    static_assert(std::uint8_t(op_id::sum) <= 0xff - first_unnamed_statement + 1,
                  "every operation a formula can end in fits below 0x28");
    auto& registry = statement_kinds();
    const std::lock_guard lock(registry.registering);
    const std::size_t k = registry.count.load(std::memory_order_relaxed);
    if (k == named_statements) {
        const op_id slot = root == op_id::function ? op_id::leaf : root;
        return std::uint8_t(first_unnamed_statement + std::uint8_t(slot));
    }
    registry.kinds[k] = {std::move(formula), root};
    registry.count.store(k + 1, std::memory_order_release);
    return std::uint8_t(first_statement + k);
}

/// The kind of op byte `op`, a statement's (0x80 to 0xd7), if registered.
inline const statement_kind* kind_of(std::uint8_t op) {
    const auto& registry = statement_kinds();
    const std::size_t k = std::size_t(op - first_statement);
    return k < registry.count.load(std::memory_order_acquire) ? &registry.kinds[k] : nullptr;
}

/// The outermost operation of what a node of op byte `op` computes.
inline op_id root_op(std::uint8_t op) {
    if (op < first_statement) return op_id(op);
    if (op == first_unnamed_statement) return op_id::function;
    if (op > first_unnamed_statement) return op_id(op - first_unnamed_statement);
    const statement_kind* kind = kind_of(op);
    return kind != nullptr ? kind->root : op_id::leaf;
}

/// What a node of op byte `op` computes, for drawing: its operation's name, or its formula.
inline std::string label_of(std::uint8_t op) {
    if (op < first_statement) return std::string(name_of(op_id(op)));
    if (op >= first_unnamed_statement)
        return "formula ending in " + std::string(name_of(root_op(op)));
    const statement_kind* kind = kind_of(op);
    return kind != nullptr ? kind->formula : std::string("formula");
}

} // namespace zg::tape::detail
