// zerograd/tape/tape.hpp: basic_tape, the arena that records a program's operations and runs the
// reverse sweep over them; one per thread per scalar type.
// The include guard (not #pragma once) lets test/core/core_only.cpp prove core/ never includes it.
#ifndef ZG_TAPE_TAPE_HPP
#define ZG_TAPE_TAPE_HPP

#include "zerograd/core/error.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/core/thread_object.hpp"
#include "zerograd/tape/pinned.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdlib> // realloc: large tapes grow by remapping pages instead of copying
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace zg::tape {

template <class T>
class basic_var;

/// Records a program in arrays indexed by node: its value, its operation and number of operands
/// (10 bytes for double), and per operand the local partial derivative and the
/// operand's node index (12 bytes). Partials are computed when an operation is recorded, so the
/// reverse sweep is a plain loop of multiply-adds in reverse recording order: a valid
/// topological order, walked with no recursion and no revisiting. The sweep reads only the
/// 2-byte operation-and-arity entries of the node arrays, so it streams through few bytes.
/// Adjoints live in their own array, zeroed in bulk when a sweep (or a grad() read) first needs
/// it, so recording does not write it.
///
/// Memory is reclaimed by rewinding to a mark (see basic_scope): the arenas keep their capacity,
/// so a training loop that records and rewinds each step allocates nothing after warm-up. A
/// variable carries the tape's stamp (its count of rewinds) from when its node was recorded, and
/// the tape remembers how far back the rewinds since reached, so a variable that names a
/// reclaimed (and maybe reused) slot is detected instead of read. Nodes carry no stamp: that is
/// one store and 4 bytes less per node.
template <class T>
class basic_tape {
    static_assert(std::is_trivially_copyable_v<T>, "zg::tape: the scalar type must be trivially "
                                                   "copyable (double, or zg::dual_t of one)");

public:
    using index_type = std::uint32_t;

    basic_tape() = default;
    basic_tape(const basic_tape&) = delete;
    basic_tape& operator=(const basic_tape&) = delete;
    ~basic_tape() { free_arenas(); }

    /// Number of nodes recorded (and not reclaimed).
    index_type size() const { return size_; }
    /// Number of operand entries recorded: each is one partial derivative and one index.
    std::size_t operand_count() const { return operand_count_; }
    /// Bytes held by the arenas, used or not.
    std::size_t capacity_bytes() const {
        return node_capacity_ * node_bytes +
               operand_capacity_ * (sizeof(T) + sizeof(index_type));
    }
    /// Bytes the recorded nodes, their adjoints and their operands take.
    std::size_t bytes_used() const {
        return size_ * node_bytes +
               operand_count_ * (sizeof(T) + sizeof(index_type));
    }
    /// Whether the calling thread is the one that records on this tape: the thread that made
    /// it, or the one that adopted it after its thread ended. The thread's own tape passes the
    /// first test, for the price of one thread_local read.
    bool on_this_thread() const {
        return this == zg::detail::thread_object<basic_tape> ||
               owner_ == zg::detail::this_thread_id();
    }
    /// What an operation that finds !on_this_thread() throws: zg::error "<what> another
    /// thread's tape; ...", `what` naming the operation. Two threads recording on one tape would
    /// race.
    [[noreturn, gnu::cold, gnu::noinline]] static void throw_other_thread(std::string_view what) {
        throw error(std::string(what) +
                    " another thread's tape; each thread records on its own tape: give each "
                    "thread variables made there (from the values, data())");
    }
    /// The stamp of nodes recorded now: the number of rewinds so far, modulo 2^32.
    std::uint32_t stamp() const { return static_cast<std::uint32_t>(rewinds_); }

    /// Whether node i, recorded under `stamp`, still exists: no rewind since reclaimed it. (A
    /// handle older than 2^32 rewinds is taken for a younger one.)
    bool holds(index_type i, std::uint32_t stamp) const {
        // Recorded by a thread that ended, before this tape's thread adopted it: gone.
        if (std::uint32_t(this->stamp() - stamp) > rewinds_ - adopted_) return false;
        // Below every mark rewound to, as a model's parameters usually are: never reclaimed.
        // (reaches_ rises, so its first entry holds the lowest mark of all rewinds.)
        if (reaches_.empty() || i < reaches_.front().nodes) return i < size_;
        return holds_after_rewinds(i, stamp);
    }

    T& value(index_type i) { return values_[i]; }
    T& adjoint(index_type i) {
        if (i >= zeroed_) [[unlikely]]
            zero_new_adjoints();
        return adjoints_[i];
    }
    op_id op(index_type i) const { return shapes_[i].op; }
    /// How many operands node i has (0 for leaves).
    index_type arity(index_type i) const { return shapes_[i].arity; }
    /// An operand entry: the operand's index and the partial derivative by it. Node i's entries
    /// start at the sum of the arities of the nodes before it.
    index_type operand(std::size_t position) const { return operands_[position]; }
    const T& partial(std::size_t position) const { return partials_[position]; }

    /// Records an input (or a constant): a node with no operands. `value` is a copy: it may come
    /// from this tape (zg::var(x.data())), which growing moves.
    index_type record_leaf(T value) {
        make_room(0);
        const index_type i = push<0>(op_id::leaf, value, {}, {});
        note_nonfinite(i, value); // its users' partials may be infinite or NaN
        return i;
    }

    /// Records one input per value, at consecutive indices; returns the first.
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

    /// The most operands one node takes.
    static constexpr std::size_t max_arity = 255;

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

    /// The adjoints of nodes first, first + 1, ...: read after a sweep, as zg::tape::grad does
    /// for its leaves.
    const T* adjoints_from(index_type first) {
        zero_new_adjoints();
        return adjoints_ + first;
    }

    /// The reverse sweep from `root`: zeroes the adjoints that an earlier sweep left in
    /// intermediate nodes, adds 1 to root's adjoint, then walks nodes root, root-1, ..., floor
    /// adding each adjoint times each local partial into the operand's adjoint (+=). Leaves keep
    /// accumulating across sweeps, as micrograd's and PyTorch's do. Nodes below `floor` are
    /// not visited and receive nothing; zg::tape::grad passes the first node of its own
    /// recording there, so variables its function captured keep their gradients.
    void backward(index_type root, index_type floor = 0) {
        if (floor == 0)
            sweep<false>(root, 0);
        else
            sweep<true>(root, floor);
    }

    /// Sets every gradient on the tape to zero.
    void zero_grad() {
        zero_new_adjoints();
        std::fill_n(adjoints_, size_, T(0));
    }

    /// A point in the recording to rewind to.
    struct mark_type {
        index_type nodes;
        std::size_t operands;
    };
    mark_type mark() const { return {size_, operand_count_}; }

    /// Reclaims every node recorded after `mark`; variables naming them become dangling.
    void rewind(mark_type mark) {
        if (mark.nodes >= size_) return;
        size_ = mark.nodes;
        operand_count_ = mark.operands;
        zeroed_ = std::min(zeroed_, mark.nodes);
        swept_end_ = std::min(swept_end_, mark.nodes);
        positions_known_ = std::min<std::size_t>(positions_known_, block_of(mark.nodes) + 1);
        if (first_nonfinite_partial_ >= mark.nodes) first_nonfinite_partial_ = no_node;
        // A node recorded before rewind k is gone if any rewind from k on reached back to it:
        // only the lowest of those marks matters, so a rewind replaces the later ones that went
        // back no further. reaches_ then rises in both fields; a loop that rewinds to one mark
        // keeps one entry.
        while (!reaches_.empty() && reaches_.back().nodes >= mark.nodes)
            reaches_.pop_back();
        reaches_.push_back({rewinds_, mark.nodes});
        ++rewinds_;
    }

    /// Its thread ended: reclaims every node and frees the arenas. The tape itself is kept (see
    /// this_thread_tape), so variables left from that thread report dangling instead of reading
    /// freed memory.
    void retire() {
        free_arenas();
        values_ = adjoints_ = partials_ = nullptr;
        shapes_ = nullptr;
        operands_ = nullptr;
        dirty_ = nullptr;
        block_positions_ = nullptr;
        size_ = zeroed_ = swept_end_ = 0;
        positions_known_ = 0;
        first_nonfinite_partial_ = no_node;
        node_capacity_ = operand_count_ = operand_capacity_ = 0;
        ++rewinds_;
        reaches_ = {};
    }
    /// A new thread takes the retired tape over: what was recorded before is gone (holds()).
    void adopt() {
        adopted_ = rewinds_;
        owner_ = zg::detail::this_thread_id();
    }

    /// Makes room for one more rewind's record, so that the rewind at the end of a scope made
    /// now does not allocate (scopes end in destructors).
    void reserve_rewind() { reaches_.reserve(reaches_.size() + 1); }

private:
    void free_arenas() {
        value_pages_.release();
        adjoint_pages_.release();
        std::free(shapes_);
        std::free(partials_);
        std::free(operands_);
        std::free(dirty_);
        std::free(block_positions_);
    }

    /// holds() for a node at or above a mark rewound to, out of line: every operation checks its
    /// operands, and carries a call instead of this search.
    [[gnu::noinline]] bool holds_after_rewinds(index_type i, std::uint32_t stamp) const {
        if (i >= size_) return false;
        const std::uint64_t recorded = rewinds_ - std::uint32_t(this->stamp() - stamp);
        // The first rewind kept from then on went back furthest of all since (see rewind).
        const auto since = std::lower_bound(
            reaches_.begin(), reaches_.end(), recorded,
            [](const reach& r, std::uint64_t rewind) { return r.rewind < rewind; });
        return since == reaches_.end() || i < since->nodes;
    }

    // basic_var makes room for a node before it reads its operands' values, then records it:
    // growing is a call, and a value computed before it would be spilled to the stack on the way
    // to the tape. These are private to it, so that nothing records without making room.
    friend class basic_var<T>;

    /// Makes room for one node of `arity` operands: the record() that follows does not grow.
    void make_room(std::size_t arity) {
        if (size_ == node_capacity_ || operand_count_ + arity > operand_capacity_) [[unlikely]]
            grow(arity);
    }

    /// Records y = op(x) with local partial dy/dx, after make_room(1).
    index_type record(op_id op, const T& y, index_type x, const T& dx) {
        return push<1>(op, y, {x}, {dx});
    }

    /// Records y = op(l, r) with local partials dy/dl and dy/dr, after make_room(2).
    index_type record(op_id op, const T& y, index_type l, const T& dl, index_type r, const T& dr) {
        return push<2>(op, y, {l, r}, {dl, dr});
    }

    /// Where a walk down the nodes stands: the next node's operand position, and the carry (see
    /// sweep).
    struct sweep_state {
        std::size_t position;
        T carry;
    };

    // The sweep skips what an earlier sweep left behind block by block: a training loop without
    // a scope sweeps from the newest node each step, and walking every older step's nodes again
    // made it quadratic. A block is marked dirty when an adjoint in it may be nonzero (an
    // earlier sweep's nodes, or an operand this sweep reached); a clean block below the nodes
    // this sweep is the first to reach is skipped, with its operand position from a cache.
    static constexpr unsigned block_shift = 12; // 4,096 nodes a block
    static constexpr index_type block_of(index_type i) { return i >> block_shift; }

    // Floored: operands below `floor` receive nothing (a separate instantiation keeps the
    // comparison out of backward()'s loop).
    template <bool Floored>
    void sweep(index_type root, index_type floor) {
        zero_new_adjoints();
        // Intermediate nodes hold the latest sweep's adjoints only, above the root too.
        if (swept_end_ > floor) zero_stale_adjoints(floor, swept_end_);
        // Nodes below `swept` are older than this sweep's first node.
        const index_type swept = std::min<index_type>(root + 1, swept_end_);
        adjoints_[root] += T(1);

        // Most operations feed the very next one, so the contribution to node i - 1 is carried
        // in a register: storing it and loading it back one iteration later would put the
        // store-to-load latency on the sweep's critical path.
        const sweep_state state{operand_position(root + 1), T(0)};
        if (first_nonfinite_partial_ <= root)
            sweep_from<Floored, true>(root, floor, swept, state);
        else
            sweep_from<Floored, false>(root, floor, swept, state);
        swept_end_ = std::max<index_type>(swept_end_, root + 1);
    }

    /// sweep's walk from root down to floor. Checked: a node below root holds a partial that is
    /// infinite or NaN, so an adjoint may be too (see sweep_nodes).
    template <bool Floored, bool Checked>
    void sweep_from(index_type root, index_type floor, index_type swept, sweep_state state) {
        // With a floor, the carry left at the end belongs to node floor - 1: below it, dropped.
        const index_type fresh_floor = std::max(floor, swept);
        if (swept <= floor) {
            walk_nodes<Floored, false, Checked>(root + 1, floor, floor, 0, state);
        } else {
            state = walk_nodes<Floored, true, Checked>(root + 1, fresh_floor, floor, swept, state);
            if (root < swept) dirty_[block_of(root)] = 1;
            // Below: only blocks this sweep reached hold adjoints to pass on.
            for (index_type i = std::min(root + 1, swept); i > floor;) {
                const index_type block = block_of(i - 1);
                const index_type begin = std::max(floor, block << block_shift);
                if (dirty_[block] || begin != block << block_shift) {
                    state = walk_nodes<Floored, true, Checked>(i, begin, floor, i, state);
                } else {
                    state.position = block_position(block);
                }
                i = begin;
            }
        }
        if (root >= fresh_floor)
            std::fill(dirty_ + block_of(fresh_floor), dirty_ + block_of(root) + 1, 1);
    }

    /// Walks nodes from - 1 down to `to`, passing each adjoint to the operands. Marking: also
    /// marks the block of every operand below `marked_below` dirty. Zeros are strong, as
    /// zg::detail::chain's: a zero adjoint passes nothing, so an infinite partial on a path that
    /// does not reach the root (log at 0 under relu's dead side) cannot turn 0 into NaN, and an
    /// infinite or NaN adjoint passes nothing through a zero partial (sqrt at 0 over relu's dead
    /// side): walk_nodes hands such a node to pass_nonfinite. An infinite or NaN partial comes
    /// from an infinite or NaN value (a leaf's, or a result's, which its users' partials take
    /// up) or from a rule with zg::unbounded_partials at finite values; the tape notes both,
    /// and only a sweep over one (Checked) looks for such adjoints.
    template <bool Floored, bool Marking, bool Checked>
    sweep_state walk_nodes(index_type from, index_type to, index_type floor,
                           index_type marked_below, sweep_state state) {
        for (;;) {
            const index_type stopped =
                sweep_nodes<Floored, Marking, Checked>(from, to, floor, marked_below, state);
            if (stopped == no_node) return state;
            pass_nonfinite<Floored, Marking>(stopped, floor, marked_below, state);
            from = stopped;
        }
    }
    static constexpr index_type no_node = std::numeric_limits<index_type>::max();

    /// walk_nodes' loop, up to the first node whose adjoint is infinite or NaN: returns it (its
    /// operands untouched, state.position at its first operand entry), or no_node. A function of
    /// its own that calls nothing, so that its state stays in registers: inlined into sweep, or
    /// with a call in the loop, g++ spilled it.
    template <bool Floored, bool Marking, bool Checked>
    [[gnu::noinline]] index_type sweep_nodes(index_type from, index_type to, index_type floor,
                                             index_type marked_below, sweep_state& state) {
        std::size_t position = state.position;
        T carry = state.carry;
        const node_shape* shapes = shapes_;
        T* adjoints = adjoints_;
        const T* partials = partials_;
        const index_type* operands = operands_;
        for (index_type i = from; i-- > to;) {
            const index_type arity = shapes[i].arity;
            const T a = adjoints[i] + carry;
            carry = T(0);
            adjoints[i] = a;
            if (arity == 0) continue;
            position -= arity;
            if (zg::detail::is_zero(a)) continue;
            if (Checked && !zg::detail::is_finite(a)) [[unlikely]] {
                state = {position, carry};
                return i;
            }
            // The first operand's contribution is assigned to the carry, not added to a zero:
            // one addition less on the chain from one node's adjoint to the next.
            const index_type first = operands[position];
            const T contribution = partials[position] * a;
            if (Marking && first < marked_below) dirty_[block_of(first)] = 1;
            if (first + 1 == i)
                carry = contribution;
            else if (!Floored || first >= floor)
                adjoints[first] += contribution;
            for (index_type k = 1; k < arity; ++k)
                pass_on<Floored, Marking>(i, operands[position + k], partials[position + k] * a,
                                          floor, marked_below, carry, adjoints);
        }
        state = {position, carry};
        return no_node;
    }

    /// Adds node i's contribution to `operand`'s adjoint: to the carry if the operand is node
    /// i - 1, dropped below the floor.
    template <bool Floored, bool Marking>
    ZG_INLINE void pass_on(index_type i, index_type operand, const T& contribution,
                           index_type floor, index_type marked_below, T& carry, T* adjoints) {
        if (Marking && operand < marked_below) dirty_[block_of(operand)] = 1;
        if (operand + 1 == i)
            carry += contribution;
        else if (!Floored || operand >= floor)
            adjoints[operand] += contribution;
    }

    /// Passes node i's infinite or NaN adjoint to its operands, except those whose partial is
    /// exactly zero: they do not depend on node i.
    template <bool Floored, bool Marking>
    [[gnu::cold, gnu::noinline]] void pass_nonfinite(index_type i, index_type floor,
                                                     index_type marked_below, sweep_state& state) {
        const T a = adjoints_[i];
        for (std::size_t k = state.position, end = k + shapes_[i].arity; k < end; ++k)
            if (!zg::detail::is_zero(partials_[k]))
                pass_on<Floored, Marking>(i, operands_[k], partials_[k] * a, floor, marked_below,
                                          state.carry, adjoints_);
    }

    /// Notes node i's partials: if one is infinite or NaN, sweeps over node i look for infinite
    /// adjoints.
    template <class... Numbers>
    void note_nonfinite(index_type i, const Numbers&... numbers) {
        if (!(zg::detail::is_finite(numbers) && ...)) [[unlikely]]
            first_nonfinite_partial_ = std::min(first_nonfinite_partial_, i);
    }

    /// Zeroes the adjoints of the operations in [begin, end) that an earlier sweep left, in the
    /// blocks marked dirty; a block wholly zeroed is clean again.
    void zero_stale_adjoints(index_type begin, index_type end) {
        for (index_type block = block_of(begin); block <= block_of(end - 1); ++block) {
            const index_type from = std::max(begin, block << block_shift);
            // The block's end in 64 bits: it is 2^32 for the last block of a full tape.
            const auto to = index_type(
                std::min<std::size_t>(end, (std::size_t(block) + 1) << block_shift));
            if (!dirty_[block]) continue;
            for (index_type i = from; i < to; ++i)
                if (shapes_[i].arity != 0) adjoints_[i] = T(0);
            // The block's part at or above swept_end_ holds no earlier sweep's adjoints.
            if (from == block << block_shift &&
                (to == (std::size_t(block) + 1) << block_shift || to >= swept_end_))
                dirty_[block] = 0;
        }
    }

    /// The operand position of node i (or of the end): where its operand entries begin.
    std::size_t operand_position(index_type i) {
        std::size_t position;
        if (size_ - i <= (index_type(1) << block_shift)) {
            position = operand_count_;
            for (index_type k = size_; k > i;) position -= shapes_[--k].arity;
        } else { // an old node, far below the newest
            position = block_position(block_of(i));
            for (index_type k = block_of(i) << block_shift; k < i; ++k)
                position += shapes_[k].arity;
        }
        return position;
    }

    /// The operand position of the first node of `block` (whole blocks only), from a cache
    /// extended on demand: recorded blocks do not change until a rewind reaches them.
    std::size_t block_position(index_type block) {
        for (; positions_known_ <= block; ++positions_known_) {
            const auto b = index_type(positions_known_);
            std::size_t position = 0;
            if (b != 0) {
                position = block_positions_[b - 1];
                for (index_type i = (b - 1) << block_shift, end = b << block_shift; i < end; ++i)
                    position += shapes_[i].arity;
            }
            block_positions_[b] = position;
        }
        return block_positions_[block];
    }

    struct node_shape {
        op_id op;
        std::uint8_t arity;
    };
    static constexpr std::size_t node_bytes =
        sizeof(T) + sizeof(node_shape) + sizeof(T); // with the adjoint

    // Every member is read into a local and written back before the arenas are stored to:
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

    // Geometric growth; values and adjoints grow in place (pinned_array), the other arrays by
    // realloc, which lets glibc move large arenas by remapping pages. The capacity is
    // raised only once every array has grown, so a failed allocation leaves the tape usable.
    [[gnu::noinline]] void grow(std::size_t arity) {
        if (size_ == node_capacity_) grow_nodes(std::size_t(size_) + 1);
        if (operand_count_ + arity > operand_capacity_) {
            if (operand_count_ + arity > limit)
                throw error("zg::tape: a tape holds at most 4294967295 operands; use "
                            "zg::tape::scope to reclaim finished steps");
            const std::size_t capacity = std::min(
                limit, std::max<std::size_t>({2048, operand_capacity_ * 2, operand_count_ + arity}));
            reallocate(partials_, capacity);
            reallocate(operands_, capacity);
            operand_capacity_ = capacity;
        }
    }

    [[gnu::noinline]] void grow_nodes(std::size_t needed) {
        if (needed > limit)
            throw error("zg::tape: a tape holds at most 4294967295 nodes; use zg::tape::scope "
                        "to reclaim finished steps");
        const std::size_t capacity =
            std::min(limit, std::max<std::size_t>({1024, node_capacity_ * 2, needed}));
        value_pages_.grow(capacity);
        adjoint_pages_.grow(capacity);
        values_ = value_pages_.data();
        adjoints_ = adjoint_pages_.data();
        reallocate(shapes_, capacity);
        const std::size_t blocks = block_of(index_type(node_capacity_)) + 1;
        const std::size_t new_blocks = block_of(index_type(capacity)) + 1;
        reallocate(dirty_, new_blocks);
        reallocate(block_positions_, new_blocks);
        if (node_capacity_ == 0) dirty_[0] = 0;
        std::fill(dirty_ + blocks, dirty_ + new_blocks, 0);
        node_capacity_ = capacity;
    }

    static constexpr std::size_t limit = std::numeric_limits<index_type>::max();

    template <class U>
    static void reallocate(U*& data, std::size_t count) {
        void* grown = std::realloc(static_cast<void*>(data), count * sizeof(U));
        if (grown == nullptr) throw std::bad_alloc();
        data = static_cast<U*>(grown);
    }

    // Values and adjoints never move, so that references from data() and grad() stay valid.
    detail::pinned_array<T> value_pages_{limit}, adjoint_pages_{limit};
    T* values_ = nullptr; // value_pages_.data(), read without the indirection
    node_shape* shapes_ = nullptr;
    T* adjoints_ = nullptr;
    T* partials_ = nullptr;
    index_type* operands_ = nullptr;
    index_type size_ = 0;
    std::size_t node_capacity_ = 0;
    std::size_t operand_count_ = 0;
    std::size_t operand_capacity_ = 0;
    std::uint64_t rewinds_ = 0;
    struct reach {
        std::uint64_t rewind; // its number: it took the stamp from `rewind` to `rewind` + 1
        index_type nodes;     // the mark it went back to
    };
    std::vector<reach> reaches_; // see rewind()
    std::uint64_t adopted_ = 0;  // rewinds_ when this tape's thread adopted it (see retire())
    const void* owner_ = zg::detail::this_thread_id(); // the thread recording here
    index_type zeroed_ = 0;    // adjoints below this are valid; above, not yet written
    index_type swept_end_ = 0; // nodes below this may hold adjoints from an earlier sweep
    std::uint8_t* dirty_ = nullptr; // per block below swept_end_: may hold a nonzero adjoint
    std::size_t* block_positions_ = nullptr; // per block: its first node's operand position
    std::size_t positions_known_ = 0;        // how many of block_positions_ are valid
    index_type first_nonfinite_partial_ = no_node; // the lowest node that holds one
};

/// The calling thread's tape for scalar type T: each thread records on its own. When the thread
/// ends its tape is retired, not destroyed: a variable that outlives its thread reports
/// zg::dangling_var when used, and the next thread to start recording reuses the tape.
template <class T = double>
basic_tape<T>& this_thread_tape() {
    return zg::detail::this_thread_lasting_object<basic_tape<T>>();
}

/// Reclaims, when it ends, every node the thread recorded on its tape for T since it began;
/// variables made before it (a model's parameters) live on. zg::tape::scope also reclaims the
/// thread's tensors.
template <class T>
class basic_scope {
public:
    basic_scope() : basic_scope(this_thread_tape<T>()) {}
    explicit basic_scope(basic_tape<T>& tape) : tape_(tape), mark_(tape.mark()) {
        tape.reserve_rewind();
    }
    basic_scope(const basic_scope&) = delete;
    basic_scope& operator=(const basic_scope&) = delete;
    ~basic_scope() { tape_.rewind(mark_); }

    /// The first node recorded inside this scope.
    typename basic_tape<T>::index_type first() const { return mark_.nodes; }

private:
    basic_tape<T>& tape_;
    typename basic_tape<T>::mark_type mark_;
};

/// Reclaims, when it ends, everything the thread recorded since it began: zg::var nodes and
/// zg::tensor nodes (as zg::tensor::scope does); variables and tensors made before it (a model's
/// parameters) live on. Use one per training step to keep memory flat.
///
///     zg::var w = 0.5;
///     for (int step = 0; step < 100; ++step) {
///         zg::tape::scope step_scope;
///         zg::var loss = square(w * 3.0 - 1.0);
///         loss.backward();
///         w.data() -= 0.01 * w.grad();
///         w.grad() = 0;
///     } // loss's nodes are reclaimed here; using `loss` afterwards throws zg::dangling_var
class scope : public basic_scope<double> {
public:
    scope() : tensor_mark_(mark_tensors()) {}
    explicit scope(basic_tape<double>& tape) : basic_scope(tape), tensor_mark_(mark_tensors()) {}
    ~scope() {
        // A thread whose tensor tape was made inside this scope rewinds it to its start, 0.
        if (const auto rewind = zg::detail::this_thread_scope_companion.rewind)
            rewind(tensor_mark_);
    }

private:
    static std::uint32_t mark_tensors() {
        const auto mark = zg::detail::this_thread_scope_companion.mark;
        return mark ? mark() : 0;
    }
    std::uint32_t tensor_mark_;
};

/// Sets every gradient on the calling thread's tape to zero.
inline void zero_grad() { this_thread_tape<double>().zero_grad(); }

} // namespace zg::tape

#endif // ZG_TAPE_TAPE_HPP
