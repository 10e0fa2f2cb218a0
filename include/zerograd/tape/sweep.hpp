// zerograd/tape/sweep.hpp: reverse_sweep, the backward pass over a tape's recorded nodes.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/tape/arena.hpp"
#include "zerograd/tape/move_only_function.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <numeric> // std::iota
#include <span>
#include <utility>
#include <vector>

namespace zg::tape::detail {

/// Partials are computed when an operation is recorded, so the reverse sweep is a plain loop of
/// multiply-adds in reverse recording order: a valid topological order, walked with no recursion
/// and no revisiting. It reads only the 2-byte operation-and-arity entries of the node arrays,
/// so it streams through few bytes. The loop is sweep_nodes; the rest chooses how it runs:
///
/// - Floored: operands below a floor receive nothing (zg::tape::grad sweeps its own recording
///   only). Chosen by run() when the floor is not 0, so the comparison stays out of the loop
///   of every other sweep.
/// - Strong: a node swept holds an infinite or NaN partial, so an adjoint may be infinite too
///   and its zeros must be strong (it must not pass through a zero partial), as Strong means in
///   expression mode's sweep. Chosen by sweep() from what the arena noted while recording;
///   sweeps of finite programs never test their adjoints.
/// - Marking: the walk goes over nodes an earlier sweep reached, so it marks the blocks it
///   passes adjoints into (see below). Chosen by sweep_from() per stretch of nodes: a sweep
///   over nodes no sweep reached before marks nothing.
///
/// A training loop without a scope sweeps from its newest node each step; walking every older
/// step's nodes again made it quadratic. So nodes come in blocks of 4,096, and a block is marked
/// dirty when an adjoint in it may be nonzero (an earlier sweep's nodes, or an operand this
/// sweep reached): a clean block below the nodes this sweep is the first to reach is skipped,
/// its operand position taken from a cache.
template <class T>
class reverse_sweep {
public:
    using index_type = std::uint32_t;

    explicit reverse_sweep(node_arena<T>& arena) : arena_(arena) {}
    reverse_sweep(const reverse_sweep&) = delete;
    reverse_sweep& operator=(const reverse_sweep&) = delete;
    ~reverse_sweep() { free_blocks(); }

    /// Zeroes the adjoints that an earlier sweep left in intermediate nodes, adds 1 to root's
    /// adjoint, then walks nodes root, root-1, ..., floor adding each adjoint times each local
    /// partial into the operand's adjoint (+=). Nodes below `floor` receive nothing.
    void run(index_type root, index_type floor) {
        reserve_blocks(block_of(arena_.size() - 1) + 1);
        if (floor == 0)
            sweep<false>(root, 0);
        else
            sweep<true>(root, floor);
    }

    /// Nodes first_output, ..., first_output + outputs - 1 whose adjoints `pass` takes to the
    /// inputs' (zg::tape::external, zg::tape::checkpoint): pass(ybar, xbar) adds J^T ybar into
    /// xbar, which holds the inputs' adjoints so far (an input listed twice: its adjoint at its
    /// first place, 0 at the others) and is written back. So a checkpoint adds each share into a
    /// parameter's adjoint in the order the sweep without it would. Recorded after every input.
    struct adjoint_callback {
        index_type first_output;
        index_type outputs;
        std::vector<index_type> inputs;
        std::vector<bool> repeated; // per input: listed before
        move_only_function<void(std::span<const T>, std::span<T>)> pass;
    };
    /// Adds a callback whose outputs are the newest nodes.
    void add_callback(index_type first_output, index_type outputs,
                      std::span<const index_type> inputs,
                      move_only_function<void(std::span<const T>, std::span<T>)> pass) {
        // The places of the inputs, by node and then by place: a place holding the node of the
        // one before it repeats an input.
        std::vector<std::size_t> places(inputs.size());
        std::iota(places.begin(), places.end(), std::size_t{0});
        std::stable_sort(places.begin(), places.end(),
                         [&](std::size_t a, std::size_t b) { return inputs[a] < inputs[b]; });
        std::vector<bool> repeated(inputs.size(), false);
        for (std::size_t k = 1; k < places.size(); ++k)
            repeated[places[k]] = inputs[places[k]] == inputs[places[k - 1]];
        callbacks_.push_back({first_output, outputs, {inputs.begin(), inputs.end()},
                              std::move(repeated), std::move(pass)});
    }

    /// The nodes from `nodes` on were reclaimed.
    void forget_from(index_type nodes) {
        while (!callbacks_.empty() && callbacks_.back().first_output >= nodes)
            callbacks_.pop_back();
        swept_end_ = std::min(swept_end_, nodes);
        positions_known_ = std::min<std::size_t>(positions_known_, block_of(nodes) + 1);
    }

    /// Every node was reclaimed: frees the blocks' records.
    void release() {
        callbacks_.clear();
        free_blocks();
        dirty_ = nullptr;
        block_positions_ = nullptr;
        blocks_ = positions_known_ = 0;
        swept_end_ = 0;
    }

private:
    using node_shape = typename node_arena<T>::node_shape;
    static constexpr index_type no_node = node_arena<T>::no_node;
    static constexpr unsigned block_shift = 12; // 4,096 nodes a block
    static constexpr index_type block_of(index_type i) { return i >> block_shift; }

    /// Where a walk down the nodes stands: the next node's operand position, and the carry.
    struct sweep_state {
        std::size_t position;
        T carry;
    };

    template <bool Floored>
    void sweep(index_type root, index_type floor) {
        arena_.zero_new_adjoints();
        // Intermediate nodes hold the latest sweep's adjoints only, above the root too.
        if (swept_end_ > floor) zero_stale_adjoints(floor, swept_end_);
        // Nodes below `swept` are older than this sweep's first node.
        const index_type swept = std::min<index_type>(root + 1, swept_end_);
        arena_.adjoints()[root] += T(1);

        // Most operations feed the very next one, so the contribution to node i - 1 is carried
        // in a register: storing it and loading it back one iteration later would put the
        // store-to-load latency on the sweep's critical path.
        const sweep_state state{operand_position(root + 1), T(0)};
        // Strong: a node at or below the root noted an infinite or NaN partial.
        const bool strong = arena_.first_nonfinite_partial() <= root;
        if (!callbacks_.empty()) [[unlikely]]
            sweep_with_callbacks<Floored>(strong, root, floor, swept, state);
        else if (strong)
            sweep_from<Floored, true>(root, floor, floor, swept, state);
        else
            sweep_from<Floored, false>(root, floor, floor, swept, state);
        swept_end_ = std::max<index_type>(swept_end_, root + 1);
    }

    /// The walk from root down to floor, stopping at each callback's outputs once every node
    /// above them has passed its adjoint on: the callback then passes the outputs' adjoints to
    /// its inputs, and the walk goes on below. Out of line: sweeps without callbacks skip it.
    template <bool Floored>
    [[gnu::noinline]] void sweep_with_callbacks(bool strong, index_type root, index_type floor,
                                                index_type swept, sweep_state state) {
        // Also when a callback throws: the nodes walked hold this sweep's adjoints.
        const struct swept_to {
            index_type& swept_end;
            index_type end;
            ~swept_to() { swept_end = std::max(swept_end, end); }
        } note{swept_end_, root + 1};
        const auto walk = [&](index_type top, index_type to) {
            state = strong ? sweep_from<Floored, true>(top, to, floor, swept, state)
                           : sweep_from<Floored, false>(top, to, floor, swept, state);
        };
        try {
            std::size_t k = callbacks_.size();
            while (k > 0 && callbacks_[k - 1].first_output > root)
                --k;
            index_type top = root;
            for (; k > 0 && callbacks_[k - 1].first_output >= floor; --k) {
                const index_type first = callbacks_[k - 1].first_output;
                // (The carry left for node first - 1 is 0: an output's one partial is 0.)
                walk(top, first);
                // An infinite adjoint the callback passes on is swept with strong zeros.
                strong |= run_callback(callbacks_[k - 1], floor, swept);
                if (first == floor) return;
                top = first - 1;
            }
            walk(top, floor);
        } catch (...) {
            // The walk stopped part way: any node down to the floor may hold an adjoint of this
            // sweep, which the next sweep must zero first.
            std::fill(dirty_ + block_of(floor), dirty_ + block_of(root) + 1, 1);
            throw;
        }
    }

    /// Passes a callback's outputs' adjoints to its inputs (those at or above the floor),
    /// marking their blocks below `swept`. The callback may record and sweep on this tape (a
    /// checkpoint runs its function again): nothing here is held across the call. Returns
    /// whether an input's adjoint is now infinite or NaN.
    bool run_callback(adjoint_callback& callback, index_type floor, index_type swept) {
        const T* outputs = arena_.adjoints() + callback.first_output;
        if (std::all_of(outputs, outputs + callback.outputs,
                        [](const T& a) { return zg::detail::is_zero(a); }))
            return false; // the outputs were not reached: nothing to pass on
        const std::vector<T> output_adjoints(outputs, outputs + callback.outputs);
        const std::size_t n = callback.inputs.size();
        std::vector<T> input_adjoints(n, T(0));
        for (std::size_t k = 0; k < n; ++k)
            if (callback.inputs[k] >= floor && !callback.repeated[k])
                input_adjoints[k] = arena_.adjoints()[callback.inputs[k]];
        callback.pass(output_adjoints, input_adjoints);
        T* adjoints = arena_.adjoints();
        bool finite = true;
        for (std::size_t k = 0; k < n; ++k) {
            const index_type input = callback.inputs[k];
            if (input < floor) continue;
            if (input < swept) dirty_[block_of(input)] = 1;
            if (callback.repeated[k])
                adjoints[input] += input_adjoints[k];
            else
                adjoints[input] = input_adjoints[k];
            finite &= zg::detail::is_finite(adjoints[input]);
        }
        return !finite;
    }

    /// The walk from root down to `to` (at or above the floor), marking below `swept` only.
    /// Returns the walk's state at `to`: the carry belongs to node to - 1.
    template <bool Floored, bool Strong>
    sweep_state sweep_from(index_type root, index_type to, index_type floor, index_type swept,
                           sweep_state state) {
        // The carry left at the end belongs to node to - 1: the next walk's, or dropped below
        // the floor.
        const index_type fresh_to = std::max(to, swept);
        if (swept <= to) {
            state = walk_nodes<Floored, false, Strong>(root + 1, to, floor, 0, state);
        } else {
            state = walk_nodes<Floored, true, Strong>(root + 1, fresh_to, floor, swept, state);
            if (root < swept) dirty_[block_of(root)] = 1;
            // Below: only blocks this sweep reached hold adjoints to pass on.
            for (index_type i = std::min(root + 1, swept); i > to;) {
                const index_type block = block_of(i - 1);
                const index_type begin = std::max(to, block << block_shift);
                if (dirty_[block] || begin != block << block_shift) {
                    state = walk_nodes<Floored, true, Strong>(i, begin, floor, i, state);
                } else {
                    state.position = block_position(block);
                }
                i = begin;
            }
        }
        if (root >= fresh_to)
            std::fill(dirty_ + block_of(fresh_to), dirty_ + block_of(root) + 1, 1);
        return state;
    }

    /// Walks nodes from - 1 down to `to`, passing each adjoint to the operands. Marking: also
    /// marks the block of every operand below `marked_below` dirty. Zeros are strong, as
    /// zg::detail::chain's: a zero adjoint passes nothing, so an infinite partial on a path that
    /// does not reach the root (log at 0 under relu's dead side) cannot turn 0 into NaN, and an
    /// infinite or NaN adjoint passes nothing through a zero partial (sqrt at 0 over relu's dead
    /// side): walk_nodes hands such a node to pass_nonfinite. An infinite or NaN partial comes
    /// from an infinite or NaN value (a leaf's, or a result's, which its users' partials take
    /// up) or from a rule with zg::unbounded_partials at finite values; the arena notes both,
    /// and only a sweep over one (Strong) looks for such adjoints.
    template <bool Floored, bool Marking, bool Strong>
    sweep_state walk_nodes(index_type from, index_type to, index_type floor,
                           index_type marked_below, sweep_state state) {
        for (;;) {
            const index_type stopped =
                sweep_nodes<Floored, Marking, Strong>(from, to, floor, marked_below, state);
            if (stopped == no_node) return state;
            pass_nonfinite<Floored, Marking>(stopped, floor, marked_below, state);
            from = stopped;
        }
    }

    /// walk_nodes' loop, up to the first node whose adjoint is infinite or NaN: returns it (its
    /// operands untouched, state.position at its first operand entry), or no_node. A function of
    /// its own that calls nothing, so that its state stays in registers: inlined into sweep, or
    /// with a call in the loop, g++ spilled it.
    template <bool Floored, bool Marking, bool Strong>
    [[gnu::noinline]] index_type sweep_nodes(index_type from, index_type to, index_type floor,
                                             index_type marked_below, sweep_state& state) {
        std::size_t position = state.position;
        T carry = state.carry;
        const node_shape* shapes = arena_.shapes();
        T* adjoints = arena_.adjoints();
        const T* partials = arena_.partials();
        const index_type* operands = arena_.operands();
        for (index_type i = from; i-- > to;) {
            const index_type arity = shapes[i].arity;
            const T a = adjoints[i] + carry;
            carry = T(0);
            adjoints[i] = a;
            if (arity == 0) continue;
            position -= arity;
            if (zg::detail::is_zero(a)) continue;
            if (Strong && !zg::detail::is_finite(a)) [[unlikely]] {
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
    /// i - 1, dropped below the floor. Forced inline: sweep_nodes must call nothing (see there).
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
    /// exactly zero: they do not depend on node i. Cold and out of line: finite programs never
    /// come here, and sweep_nodes' loop stays small.
    template <bool Floored, bool Marking>
    [[gnu::cold, gnu::noinline]] void pass_nonfinite(index_type i, index_type floor,
                                                     index_type marked_below, sweep_state& state) {
        T* adjoints = arena_.adjoints();
        const T* partials = arena_.partials();
        const index_type* operands = arena_.operands();
        const T a = adjoints[i];
        for (std::size_t k = state.position, end = k + arena_.shapes()[i].arity; k < end; ++k)
            if (!zg::detail::is_zero(partials[k]))
                pass_on<Floored, Marking>(i, operands[k], partials[k] * a, floor, marked_below,
                                          state.carry, adjoints);
    }

    /// Zeroes the adjoints of the operations in [begin, end) that an earlier sweep left, in the
    /// blocks marked dirty; a block wholly zeroed is clean again.
    void zero_stale_adjoints(index_type begin, index_type end) {
        const node_shape* shapes = arena_.shapes();
        T* adjoints = arena_.adjoints();
        for (index_type block = block_of(begin); block <= block_of(end - 1); ++block) {
            const index_type from = std::max(begin, block << block_shift);
            // The block's end in 64 bits: it is 2^32 for the last block of a full tape.
            const auto to =
                index_type(std::min<std::size_t>(end, (std::size_t(block) + 1) << block_shift));
            if (!dirty_[block]) continue;
            for (index_type i = from; i < to; ++i)
                if (shapes[i].arity != 0) adjoints[i] = T(0);
            // The block's part at or above swept_end_ holds no earlier sweep's adjoints.
            if (from == block << block_shift &&
                (to == (std::size_t(block) + 1) << block_shift || to >= swept_end_))
                dirty_[block] = 0;
        }
    }

    /// The operand position of node i (or of the end): where its operand entries begin.
    std::size_t operand_position(index_type i) {
        const node_shape* shapes = arena_.shapes();
        const index_type size = arena_.size();
        std::size_t position;
        if (size - i <= (index_type(1) << block_shift)) {
            position = arena_.operand_count();
            for (index_type k = size; k > i;)
                position -= shapes[--k].arity;
        } else { // an old node, far below the newest
            position = block_position(block_of(i));
            for (index_type k = block_of(i) << block_shift; k < i; ++k)
                position += shapes[k].arity;
        }
        return position;
    }

    /// The operand position of the first node of `block` (whole blocks only), from a cache
    /// extended on demand: recorded blocks do not change until a rewind reaches them.
    std::size_t block_position(index_type block) {
        const node_shape* shapes = arena_.shapes();
        for (; positions_known_ <= block; ++positions_known_) {
            const auto b = index_type(positions_known_);
            std::size_t position = 0;
            if (b != 0) {
                position = block_positions_[b - 1];
                for (index_type i = (b - 1) << block_shift, end = b << block_shift; i < end; ++i)
                    position += shapes[i].arity;
            }
            block_positions_[b] = position;
        }
        return block_positions_[block];
    }

    /// Makes the blocks' records cover `count` blocks; new blocks are clean (no sweep reached
    /// them). The count is raised only once both arrays have grown, as the arena's.
    void reserve_blocks(std::size_t count) {
        if (count <= blocks_) return;
        const std::size_t capacity = std::max(count, blocks_ * 2);
        reallocate(dirty_, capacity);
        reallocate(block_positions_, capacity);
        std::fill(dirty_ + blocks_, dirty_ + capacity, 0);
        blocks_ = capacity;
    }

    void free_blocks() {
        std::free(dirty_);
        std::free(block_positions_);
    }

    node_arena<T>& arena_;
    index_type swept_end_ = 0;      // nodes below this may hold adjoints from an earlier sweep
    std::uint8_t* dirty_ = nullptr; // per block below swept_end_: may hold a nonzero adjoint
    std::size_t* block_positions_ = nullptr; // per block: its first node's operand position
    std::size_t positions_known_ = 0;        // how many of block_positions_ are valid
    std::size_t blocks_ = 0;                 // how many blocks the two arrays hold
    // By first output. A deque: a callback running may add and remove callbacks above its own,
    // and must not be moved meanwhile.
    std::deque<adjoint_callback> callbacks_;
};

} // namespace zg::tape::detail
