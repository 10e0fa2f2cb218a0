// zerograd/tape/tape.hpp: basic_tape, which records a program's operations and runs the reverse
// sweep over them; one per thread per scalar type. It joins three parts: the arrays the nodes
// are recorded in (arena.hpp), the sweep (sweep.hpp) and the nodes' lifetimes (lifetimes.hpp).
// The include guard (not #pragma once) lets the tests of the other modes prove they never
// include it.
#ifndef ZG_TAPE_TAPE_HPP
#define ZG_TAPE_TAPE_HPP

#include "zerograd/core/error.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/thread_object.hpp"
#include "zerograd/tape/arena.hpp"
#include "zerograd/tape/lifetimes.hpp"
#include "zerograd/tape/statements.hpp"
#include "zerograd/tape/sweep.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::tape {

template <class T>
class basic_var;
template <class T, class Node>
class expression;

/// Records a program (detail::node_arena) and runs the reverse sweep over it
/// (detail::reverse_sweep), which walks the nodes from the root down: leaves keep accumulating
/// across sweeps, as micrograd's and PyTorch's do, and intermediate nodes hold the latest
/// sweep's adjoints.
///
/// Memory is reclaimed by rewinding to a mark (see basic_scope): the arrays keep their capacity,
/// so a training loop that records and rewinds each step allocates nothing after warm-up;
/// variables naming reclaimed nodes are detected (detail::node_lifetimes).
template <class T>
class basic_tape {
    static_assert(std::is_trivially_copyable_v<T>, "zg::tape: the scalar type must be trivially "
                                                   "copyable (double, or zg::dual_t of one)");

public:
    using index_type = std::uint32_t;
    /// The most operands one node takes.
    static constexpr std::size_t max_arity = detail::node_arena<T>::max_arity;

    basic_tape() = default;
    basic_tape(const basic_tape&) = delete;
    basic_tape& operator=(const basic_tape&) = delete;

    /// Number of nodes recorded (and not reclaimed).
    index_type size() const { return arena_.size(); }
    /// Number of operand entries recorded: each is one partial derivative and one index.
    std::size_t operand_count() const { return arena_.operand_count(); }
    /// Bytes held by the arrays, used or not.
    std::size_t capacity_bytes() const { return arena_.capacity_bytes(); }
    /// Bytes the recorded nodes, their adjoints and their operands take.
    std::size_t bytes_used() const { return arena_.bytes_used(); }

    /// Whether the calling thread is the one that records on this tape: the thread that made
    /// it, or the one that adopted it after its thread ended. The thread's own tape passes the
    /// first test, for the price of one thread_local read.
    bool on_this_thread() const {
        return this == zg::detail::thread_object<basic_tape> ||
               lifetimes_.owner() == zg::detail::this_thread_id();
    }
    /// What an operation that finds !on_this_thread() throws: zg::error "<what> another
    /// thread's tape; ...", `what` naming the operation. Two threads recording on one tape would
    /// race. Cold and out of line: it stays off the operations' path.
    [[noreturn, gnu::cold, gnu::noinline]] static void throw_other_thread(std::string_view what) {
        throw error(std::string(what) +
                    " another thread's tape; each thread records on its own tape: give each "
                    "thread variables made there (from the values, data())");
    }
    /// The stamp of nodes recorded now: the number of rewinds so far, modulo 2^32.
    std::uint32_t stamp() const { return lifetimes_.stamp(); }
    /// Whether node i, recorded under `stamp`, still exists: no rewind since reclaimed it.
    bool holds(index_type i, std::uint32_t stamp) const {
        return lifetimes_.holds(i, stamp, arena_.size());
    }

    T& value(index_type i) { return arena_.value(i); }
    T& adjoint(index_type i) { return arena_.adjoint(i); }
    /// The operation of node i: for a statement (a formula of several operations), the outermost.
    op_id op(index_type i) const { return detail::root_op(std::uint8_t(arena_.shapes()[i].op)); }
    /// What node i computes, as zg::to_dot draws it: its operation's name or its formula's text.
    std::string label(index_type i) const {
        return detail::label_of(std::uint8_t(arena_.shapes()[i].op));
    }
    /// How many operands node i has (0 for leaves).
    index_type arity(index_type i) const { return arena_.shapes()[i].arity; }
    /// An operand entry: the operand's index and the partial derivative by it. Node i's entries
    /// start at the sum of the arities of the nodes before it.
    index_type operand(std::size_t position) const { return arena_.operands()[position]; }
    const T& partial(std::size_t position) const { return arena_.partials()[position]; }

    /// Records an input (or a constant): a node with no operands. `value` is a copy: it may come
    /// from this tape (zg::var(x.data())), which growing moves.
    index_type record_leaf(T value) { return arena_.record_leaf(value); }
    /// Records one input per value, at consecutive indices; returns the first.
    index_type record_leaves(const T* values, std::size_t count) {
        return arena_.record_leaves(values, count);
    }
    /// Records y = op(x_0, ..., x_{n-1}) with local partials dy/dx_k (a reduction), as a chain
    /// of nodes of at most max_arity operands each.
    index_type record_many(op_id op, const T& y, const index_type* operands, const T* partials,
                           std::size_t count) {
        return arena_.record_many(op, y, operands, partials, count);
    }

    /// Records the outputs y of a function of the nodes `inputs` whose adjoints `pass` takes to
    /// the inputs' in the sweep: pass(output adjoints, input adjoints) adds J^T ybar into xbar,
    /// which holds the inputs' adjoints so far (detail::reverse_sweep::adjoint_callback). The
    /// outputs are consecutive nodes; returns the first. Without inputs they are constants.
    using adjoint_pass = detail::move_only_function<void(std::span<const T>, std::span<T>)>;
    index_type record_external(std::span<const index_type> inputs, std::span<const T> y,
                               adjoint_pass pass) {
        if (inputs.empty() || y.empty()) return arena_.record_leaves(y.data(), y.size());
        // Each output names the first input with a zero partial: an operation, so that sweeps
        // zero its adjoint as they zero every intermediate node's.
        const T no_partial(0);
        const index_type first =
            arena_.record_many(op_id::external, y[0], inputs.data(), &no_partial, 1);
        for (std::size_t k = 1; k < y.size(); ++k)
            arena_.record_many(op_id::external, y[k], inputs.data(), &no_partial, 1);
        sweep_.add_callback(first, index_type(y.size()), inputs, std::move(pass));
        return first;
    }

    /// The adjoints of nodes first, first + 1, ...: read after a sweep, as zg::tape::grad does
    /// for its leaves.
    const T* adjoints_from(index_type first) {
        arena_.zero_new_adjoints();
        return arena_.adjoints() + first;
    }

    /// The reverse sweep from `root`: adds 1 to root's adjoint and passes it down to every node
    /// it reaches. Nodes below `floor` are not visited and receive nothing; zg::tape::grad passes
    /// the first node of its own recording there, so variables its function captured keep their
    /// gradients.
    void backward(index_type root, index_type floor = 0) { sweep_.run(root, floor); }

    /// Sets every gradient on the tape to zero.
    void zero_grad() {
        arena_.zero_new_adjoints();
        std::fill_n(arena_.adjoints(), arena_.size(), T(0));
    }

    /// A point in the recording to rewind to.
    struct mark_type {
        index_type nodes;
        std::size_t operands;
    };
    mark_type mark() const { return {arena_.size(), arena_.operand_count()}; }

    /// Reclaims every node recorded after `mark`; variables naming them become dangling.
    void rewind(mark_type mark) {
        if (mark.nodes >= arena_.size()) return;
        arena_.truncate(mark.nodes, mark.operands);
        sweep_.forget_from(mark.nodes);
        lifetimes_.rewound(mark.nodes, mark.operands);
    }
    /// The number of rewinds so far: a scope notes it when it begins.
    std::uint64_t rewinds() const { return lifetimes_.rewinds(); }
    /// Reclaims every node recorded since a scope began that took `mark` after `rewinds`
    /// rewinds. If a rewind since went back further (an enclosing scope that ended first), the
    /// nodes recorded after that one are the scope's too: it rewinds there.
    void rewind_since(mark_type mark, std::uint64_t rewinds) {
        const auto lowest = lifetimes_.template lowest_rewind_since<mark_type>(rewinds);
        rewind(lowest && lowest->nodes < mark.nodes ? *lowest : mark);
    }
    /// Makes room for one more rewind's record, so that the rewind at the end of a scope made
    /// now does not allocate (scopes end in destructors).
    void reserve_rewind() { lifetimes_.reserve_rewind(); }

    /// Its thread ended: reclaims every node and frees the arrays. The tape itself is kept (see
    /// this_thread_tape), so variables left from that thread report dangling instead of reading
    /// freed memory.
    void retire() {
        arena_.release();
        sweep_.release();
        lifetimes_.retire();
    }
    /// A new thread takes the retired tape over: what was recorded before is gone (holds()).
    void adopt() { lifetimes_.adopt(); }
    /// Which thread's turn on the tape this is (see adopt()): a scope made in one turn and ended
    /// in another, after its thread ended, is ended on another thread.
    std::uint64_t adoption() const { return lifetimes_.adoption(); }

private:
    // A formula records itself after making room; these are private to it, so that nothing
    // records without making room.
    template <class, class>
    friend class expression;

    void make_room(std::size_t arity) { arena_.make_room(arity); }
    bool has_room(std::size_t arity) const { return arena_.has_room(arity); }
    /// Records a statement of value y, its op byte (see statements.hpp) and N operand entries,
    /// after make_room(N).
    template <std::size_t N>
    index_type record_statement(std::uint8_t op, const T& y, const index_type (&operands)[N],
                                const T (&partials)[N]) {
        return arena_.template push<N>(op_id(op), y, operands, partials);
    }
    template <class... Numbers>
    void note_nonfinite(index_type i, const Numbers&... numbers) {
        arena_.note_nonfinite(i, numbers...);
    }

    detail::node_arena<T> arena_;
    detail::reverse_sweep<T> sweep_{arena_};
    detail::node_lifetimes lifetimes_;
};

/// The calling thread's tape for scalar type T: each thread records on its own. When the thread
/// ends its tape is retired, not destroyed: a variable that outlives its thread reports
/// zg::dangling_var when used, and the next thread to start recording reuses the tape.
template <class T = double>
basic_tape<T>& this_thread_tape() {
    return zg::detail::this_thread_lasting_object<basic_tape<T>>();
}

/// Sets every gradient on the calling thread's tape to zero.
inline void zero_grad() { this_thread_tape<double>().zero_grad(); }

} // namespace zg::tape

#endif // ZG_TAPE_TAPE_HPP
