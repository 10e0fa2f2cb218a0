// zerograd/tape/arena.hpp: node_arena, the arrays a tape records its nodes in, and how they grow.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/tape/pinned.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdlib> // realloc: large tapes grow by remapping pages instead of copying
#include <limits>
#include <new>
#include <string>

namespace zg::tape::detail {

/// Grows `data` to `count` elements by realloc, or throws std::bad_alloc leaving it as it was.
template <class U>
void reallocate(U*& data, std::size_t count) {
    void* grown = std::realloc(static_cast<void*>(data), count * sizeof(U));
    if (grown == nullptr) throw std::bad_alloc();
    data = static_cast<U*>(grown);
}

/// A program recorded in arrays indexed by node: its value, its operation and number of operands
/// (10 bytes for double), and per operand the local partial derivative and the operand's node
/// index (12 bytes). Node i's operand entries follow node i - 1's, so they start at the sum of
/// the arities before it. Adjoints live in their own array, zeroed in bulk when a sweep (or a
/// grad() read) first needs them, so recording does not write it.
template <class T>
class node_arena {
public:
    using index_type = std::uint32_t;
    struct node_shape {
        op_id op;
        std::uint8_t arity;
    };
    /// The most operands one node takes.
    static constexpr std::size_t max_arity = 255;
    static constexpr index_type no_node = std::numeric_limits<index_type>::max();

    node_arena() = default;
    node_arena(const node_arena&) = delete;
    node_arena& operator=(const node_arena&) = delete;
    ~node_arena() { free_arrays(); }

    index_type size() const { return size_; }
    std::size_t operand_count() const { return operand_count_; }
    std::size_t capacity_bytes() const {
        return node_capacity_ * node_bytes + operand_capacity_ * (sizeof(T) + sizeof(index_type));
    }
    std::size_t bytes_used() const {
        return size_ * node_bytes + operand_count_ * (sizeof(T) + sizeof(index_type));
    }

    T& value(index_type i) { return values_[i]; }
    T& adjoint(index_type i) {
        if (i >= zeroed_) [[unlikely]]
            zero_new_adjoints();
        return adjoints_[i];
    }
    // The arrays as the sweep walks them: adjoints() after zero_new_adjoints().
    const node_shape* shapes() const { return shapes_; }
    T* adjoints() { return adjoints_; }
    const T* partials() const { return partials_; }
    const index_type* operands() const { return operands_; }

    /// The lowest node with an infinite or NaN partial (or whose users' partials may be), or
    /// no_node: only a sweep over it looks for infinite adjoints.
    index_type first_nonfinite_partial() const { return first_nonfinite_partial_; }
    /// Notes node i's partials (or value): if one is infinite or NaN, sweeps over node i look for
    /// infinite adjoints.
    template <class... Numbers>
    void note_nonfinite(index_type i, const Numbers&... numbers) {
        if (!(zg::detail::is_finite(numbers) && ...)) [[unlikely]]
            first_nonfinite_partial_ = std::min(first_nonfinite_partial_, i);
    }

    index_type record_leaf(T value) {
        make_room(0);
        const index_type i = push<0>(op_id::leaf, value, {}, {});
        note_nonfinite(i, value); // its users' partials may be infinite or NaN
        return i;
    }

    index_type record_leaves(const T* values, std::size_t count) {
        if (size_ + count > node_capacity_) [[unlikely]]
            grow_nodes(size_ + count);
        const index_type first = size_;
        std::copy_n(values, count, values_ + first);
        for (std::size_t k = 0; k < count; ++k)
            if (!zg::detail::is_finite(values[k])) [[unlikely]] {
                note_nonfinite(first + index_type(k), values[k]);
                break;
            }
        std::fill_n(shapes_ + first, count, node_shape{op_id::leaf, 0});
        size_ = static_cast<index_type>(first + count);
        return first;
    }

    /// Records y = op(x_0, ..., x_{n-1}) with local partials dy/dx_k (a reduction): one node
    /// of up to 255 operands, or a chain of nodes that each take up to 254 and then the node
    /// before them, with partial 1. The sweep is linear in the adjoints, so every x_k still
    /// receives dy/dx_k times y's adjoint. Each node of the chain holds y.
    index_type record_many(op_id op, const T& y, const index_type* operands, const T* partials,
                           std::size_t count) {
        std::size_t done = 0;
        index_type previous = 0;
        // An infinite or NaN value (from such elements) makes its users' partials so; a
        // product's partials, which may overflow where its value does not, are noted apart.
        note_nonfinite(size_, y);
        if (op == op_id::prod)
            for (std::size_t k = 0; k < count; ++k)
                note_nonfinite(size_, partials[k]);
        do {
            const std::size_t link = done == 0 ? 0 : 1;
            const std::size_t take = std::min(count - done, max_arity - link);
            const std::size_t arity = take + link;
            make_room(arity);
            const index_type i = size_;
            const std::size_t position = operand_count_;
            values_[i] = y;
            shapes_[i] = node_shape{op, std::uint8_t(arity)};
            std::copy_n(partials + done, take, partials_ + position);
            std::copy_n(operands + done, take, operands_ + position);
            if (link != 0) {
                partials_[position + take] = T(1);
                operands_[position + take] = previous;
            }
            size_ = i + 1;
            operand_count_ = position + arity;
            previous = i;
            done += take;
        } while (done < count);
        return previous;
    }

    /// Makes room for one node of `arity` operands: the push() that follows does not grow.
    void make_room(std::size_t arity) {
        if (!has_room(arity)) [[unlikely]]
            grow(arity);
    }
    bool has_room(std::size_t arity) const {
        return size_ != node_capacity_ && operand_count_ + arity <= operand_capacity_;
    }

    // Every member is read into a local and written back before the arrays are stored to:
    // operand indices are uint32 like size_, so a store through operands_ could otherwise make
    // the compiler reload each member after it.
    template <std::size_t Arity>
    index_type push(op_id op, const T& value, const index_type (&operands)[Arity + (Arity == 0)],
                    const T (&partials)[Arity + (Arity == 0)]) {
        assert(size_ < node_capacity_ && operand_count_ + Arity <= operand_capacity_);
        const index_type i = size_;
        const std::size_t position = operand_count_;
        T* const values = values_;
        node_shape* const shapes = shapes_;
        T* const partials_out = partials_;
        index_type* const operands_out = operands_;
        size_ = i + 1;
        operand_count_ = position + Arity;
        values[i] = value;
        shapes[i] = node_shape{op, std::uint8_t(Arity)};
        for (std::size_t k = 0; k < Arity; ++k) {
            partials_out[position + k] = partials[k];
            operands_out[position + k] = operands[k];
        }
        return i;
    }

    void zero_new_adjoints() {
        std::fill(adjoints_ + zeroed_, adjoints_ + size_, T(0));
        zeroed_ = size_;
    }

    /// Forgets the nodes from `nodes` and the operand entries from `operands` on; the arrays
    /// keep their capacity.
    void truncate(index_type nodes, std::size_t operands) {
        size_ = nodes;
        operand_count_ = operands;
        zeroed_ = std::min(zeroed_, nodes);
        if (first_nonfinite_partial_ >= nodes) first_nonfinite_partial_ = no_node;
    }

    /// Forgets every node and frees the arrays.
    void release() {
        free_arrays();
        values_ = adjoints_ = partials_ = nullptr;
        shapes_ = nullptr;
        operands_ = nullptr;
        size_ = zeroed_ = 0;
        first_nonfinite_partial_ = no_node;
        node_capacity_ = operand_count_ = operand_capacity_ = 0;
    }

private:
    static constexpr std::size_t node_bytes =
        sizeof(T) + sizeof(node_shape) + sizeof(T); // with the adjoint
    static constexpr std::size_t limit = std::numeric_limits<index_type>::max();

    void free_arrays() {
        value_pages_.release();
        adjoint_pages_.release();
        std::free(shapes_);
        std::free(partials_);
        std::free(operands_);
    }

    // Geometric growth; values and adjoints grow in place (pinned_array), the other arrays by
    // realloc, which lets glibc move large arrays by remapping pages. The capacity is raised
    // only once every array has grown, so a failed allocation leaves the tape usable. Out of
    // line: make_room's callers stay small.
    [[gnu::noinline]] void grow(std::size_t arity) {
        if (size_ == node_capacity_) grow_nodes(std::size_t(size_) + 1);
        if (operand_count_ + arity > operand_capacity_) {
            if (operand_count_ + arity > limit)
                throw full("a tape holds at most 4294967295 operand entries");
            const std::size_t capacity = std::min(
                limit,
                std::max<std::size_t>({2048, operand_capacity_ * 2, operand_count_ + arity}));
            try {
                reallocate(partials_, capacity);
                reallocate(operands_, capacity);
            } catch (const std::bad_alloc&) {
                throw full("there is no memory for more");
            }
            operand_capacity_ = capacity;
        }
    }

    [[gnu::noinline]] void grow_nodes(std::size_t needed) { // out of line, as grow
        if (needed > limit) throw full("a tape holds at most 4294967295 nodes");
        std::size_t capacity =
            std::min(limit, std::max<std::size_t>({1024, node_capacity_ * 2, needed}));
        try {
            // Short of doubling, as far as the reservations go.
            capacity = adjoint_pages_.grow(value_pages_.grow(capacity, needed), needed);
            values_ = value_pages_.data();
            adjoints_ = adjoint_pages_.data();
            reallocate(shapes_, capacity);
        } catch (const std::bad_alloc&) {
            throw full("there is no memory for more");
        } catch (const pinned_array_full& e) {
            throw full(e.what());
        }
        node_capacity_ = capacity;
    }

    /// The error for a recording the tape cannot take: what it holds, and what to do.
    error full(const std::string& why) const {
        return error("zg::tape: recorded " + std::to_string(size_) + " nodes and " +
                     std::to_string(operand_count_) + " operand entries (" +
                     std::to_string(bytes_used() >> 20) + " MiB), and " + why +
                     "; the tape is unchanged and usable. Reclaim each finished step with "
                     "zg::tape::scope, or record less (fixed formulas in expression mode, "
                     "zg::grad)");
    }

    // Values and adjoints never move, so that references from data() and grad() stay valid.
    pinned_array<T> value_pages_{limit}, adjoint_pages_{limit};
    T* values_ = nullptr; // value_pages_.data(), read without the indirection
    node_shape* shapes_ = nullptr;
    T* adjoints_ = nullptr;
    T* partials_ = nullptr;
    index_type* operands_ = nullptr;
    index_type size_ = 0;
    std::size_t node_capacity_ = 0;
    std::size_t operand_count_ = 0;
    std::size_t operand_capacity_ = 0;
    index_type zeroed_ = 0; // adjoints below this are valid; above, not yet written
    index_type first_nonfinite_partial_ = no_node;
};

} // namespace zg::tape::detail
