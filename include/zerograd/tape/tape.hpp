// zerograd/tape/tape.hpp: basic_tape, the arena that records a program's operations and runs the
// reverse sweep over them; one per thread per scalar type.
// The include guard (not #pragma once) lets test/core/core_only.cpp prove core/ never includes it.
#ifndef ZG_TAPE_TAPE_HPP
#define ZG_TAPE_TAPE_HPP

#include "zerograd/core/error.hpp"
#include "zerograd/core/rules.hpp"
#include "zerograd/core/scalar.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib> // realloc: large tapes grow by remapping pages instead of copying
#include <limits>
#include <new>
#include <type_traits>

namespace zg::tape {

/// Records a program as nodes in three arenas: per node its value, a stamp, its operation and
/// its number of operands (16 bytes for double); per operand the local partial derivative and
/// the operand's node index (12 bytes). Partials are computed when an operation is recorded, so
/// the reverse sweep is a plain loop of multiply-adds in reverse recording order: a valid
/// topological order, walked with no recursion and no revisiting. Adjoints live in a fourth
/// array that is zeroed in bulk when a sweep (or a grad() read) first needs it, which keeps
/// recording to two streams of stores.
///
/// Memory is reclaimed by rewinding to a mark (see basic_scope): the arenas keep their capacity,
/// so a training loop that records and rewinds each step allocates nothing after warm-up. Each
/// node carries the stamp the tape had when it was recorded; rewinding changes the stamp, so a
/// variable that names a reclaimed (and maybe reused) slot is detected instead of read.
template <class T>
class basic_tape {
    static_assert(std::is_trivially_copyable_v<T>, "zg::tape: the scalar type must be trivially "
                                                   "copyable (double, or zg::dual_t of one)");

public:
    using index_type = std::uint32_t;

    basic_tape() = default;
    basic_tape(const basic_tape&) = delete;
    basic_tape& operator=(const basic_tape&) = delete;
    ~basic_tape() {
        std::free(nodes_);
        std::free(adjoints_);
        std::free(partials_);
        std::free(operands_);
    }

    /// Number of nodes recorded (and not reclaimed).
    index_type size() const { return size_; }
    /// Number of operand entries recorded: each is one partial derivative and one index.
    std::size_t operand_count() const { return operand_count_; }
    /// Bytes held by the arenas, used or not.
    std::size_t capacity_bytes() const {
        return node_capacity_ * (sizeof(node) + sizeof(T)) +
               operand_capacity_ * (sizeof(T) + sizeof(index_type));
    }
    /// Bytes the recorded nodes, their adjoints and their operands take.
    std::size_t bytes_used() const {
        return size_ * (sizeof(node) + sizeof(T)) +
               operand_count_ * (sizeof(T) + sizeof(index_type));
    }
    /// The stamp given to nodes recorded now.
    std::uint32_t stamp() const { return stamp_; }

    /// Whether node i exists and is the one recorded under `stamp` (not reclaimed since).
    bool holds(index_type i, std::uint32_t stamp) const {
        return i < size_ && nodes_[i].stamp == stamp;
    }

    T& value(index_type i) { return nodes_[i].value; }
    T& adjoint(index_type i) {
        if (i >= zeroed_) [[unlikely]]
            zero_new_adjoints();
        return adjoints_[i];
    }
    op_id op(index_type i) const { return nodes_[i].op; }
    /// How many operands node i has (0 for leaves).
    index_type arity(index_type i) const { return nodes_[i].arity; }
    /// An operand entry: the operand's index and the partial derivative by it. Node i's entries
    /// start at the sum of the arities of the nodes before it.
    index_type operand(std::size_t position) const { return operands_[position]; }
    const T& partial(std::size_t position) const { return partials_[position]; }

    /// Records an input (or a constant): a node with no operands.
    index_type record_leaf(const T& value) { return push(op_id::leaf, value, 0); }

    /// Records y = op(x) with local partial dy/dx.
    index_type record(op_id op, const T& y, index_type x, const T& dx) {
        const index_type i = push(op, y, 1);
        put_operand(x, dx);
        return i;
    }

    /// Records y = op(l, r) with local partials dy/dl and dy/dr.
    index_type record(op_id op, const T& y, index_type l, const T& dl, index_type r, const T& dr) {
        const index_type i = push(op, y, 2);
        put_operand(l, dl);
        put_operand(r, dr);
        return i;
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
        ++stamp_;
    }

private:
    // Floored: operands below `floor` receive nothing (a separate instantiation keeps the
    // comparison out of backward()'s loop).
    template <bool Floored>
    void sweep(index_type root, index_type floor) {
        zero_new_adjoints();
        for (index_type i = floor, end = std::min<index_type>(root + 1, swept_end_); i < end; ++i)
            if (nodes_[i].arity != 0) adjoints_[i] = T(0);
        adjoints_[root] += T(1);

        std::size_t position = operand_count_;
        for (index_type i = size_; --i > root;)
            position -= nodes_[i].arity;
        const node* nodes = nodes_;
        T* adjoints = adjoints_;
        const T* partials = partials_;
        const index_type* operands = operands_;
        // Most operations feed the very next one, so the contribution to node i - 1 is carried
        // in a register: storing it and loading it back one iteration later would put the
        // store-to-load latency on the sweep's critical path.
        T carry(0);
        for (index_type i = root + 1; i-- > floor;) {
            const index_type arity = nodes[i].arity;
            position -= arity;
            const T a = adjoints[i] + carry;
            carry = T(0);
            adjoints[i] = a;
            // Skipping zero adjoints keeps an infinite partial on a path that does not reach
            // the root (say log at 0 under relu's dead side) from turning 0 into NaN.
            if (arity == 0 || zg::detail::is_zero(a)) continue;
            for (index_type k = 0; k < arity; ++k) {
                const index_type operand = operands[position + k];
                const T contribution = partials[position + k] * a;
                if (operand + 1 == i)
                    carry += contribution;
                else if (!Floored || operand >= floor)
                    adjoints[operand] += contribution;
            }
        }
        // With a floor, the carry left over belongs to node floor - 1: below it, so dropped.
        swept_end_ = std::max<index_type>(swept_end_, root + 1);
    }

    struct node {
        T value;
        std::uint32_t stamp;
        op_id op;
        std::uint8_t arity;
    };

    index_type push(op_id op, const T& value, std::uint8_t arity) {
        if (size_ == node_capacity_ || operand_count_ + arity > operand_capacity_) [[unlikely]]
            grow(arity);
        const index_type i = size_++;
        nodes_[i] = node{value, stamp_, op, arity};
        return i;
    }

    void put_operand(index_type x, const T& partial) {
        partials_[operand_count_] = partial;
        operands_[operand_count_] = x;
        ++operand_count_;
    }

    void zero_new_adjoints() {
        std::fill(adjoints_ + zeroed_, adjoints_ + size_, T(0));
        zeroed_ = size_;
    }

    // Geometric growth; realloc lets glibc move large arenas by remapping pages.
    [[gnu::noinline]] void grow(std::size_t arity) {
        constexpr std::size_t limit = std::numeric_limits<index_type>::max();
        if (size_ == node_capacity_) {
            if (node_capacity_ == limit)
                throw error("zg::tape: a tape holds at most 4294967295 nodes; use zg::tape::scope "
                            "to reclaim finished steps");
            node_capacity_ = std::min(limit, std::max<std::size_t>(1024, node_capacity_ * 2));
            reallocate(nodes_, node_capacity_);
            reallocate(adjoints_, node_capacity_);
        }
        if (operand_count_ + arity > operand_capacity_) {
            if (operand_count_ + arity > limit)
                throw error("zg::tape: a tape holds at most 4294967295 operands; use "
                            "zg::tape::scope to reclaim finished steps");
            operand_capacity_ = std::min(limit, std::max<std::size_t>({2048, operand_capacity_ * 2,
                                                                       operand_count_ + arity}));
            reallocate(partials_, operand_capacity_);
            reallocate(operands_, operand_capacity_);
        }
    }

    template <class U>
    static void reallocate(U*& data, std::size_t count) {
        void* grown = std::realloc(static_cast<void*>(data), count * sizeof(U));
        if (grown == nullptr) throw std::bad_alloc();
        data = static_cast<U*>(grown);
    }

    node* nodes_ = nullptr;
    T* adjoints_ = nullptr;
    T* partials_ = nullptr;
    index_type* operands_ = nullptr;
    index_type size_ = 0;
    std::size_t node_capacity_ = 0;
    std::size_t operand_count_ = 0;
    std::size_t operand_capacity_ = 0;
    std::uint32_t stamp_ = 0;
    index_type zeroed_ = 0;    // adjoints below this are valid; above, not yet written
    index_type swept_end_ = 0; // nodes below this may hold adjoints from an earlier sweep
};

namespace detail {

template <class T>
struct thread_tape_owner {
    basic_tape<T>* tape = nullptr;
    ~thread_tape_owner() { delete tape; }
};

template <class T>
[[gnu::noinline]] basic_tape<T>* make_thread_tape() {
    // Only this cold path touches a thread_local with a destructor; the hot pointer below is
    // trivially destructible, so reading it needs no initialization guard.
    static thread_local thread_tape_owner<T> owner;
    owner.tape = new basic_tape<T>();
    return owner.tape;
}

template <class T>
inline thread_local basic_tape<T>* current_tape = nullptr;

} // namespace detail

/// The calling thread's tape for scalar type T: each thread records on its own.
template <class T = double>
basic_tape<T>& this_thread_tape() {
    if (detail::current_tape<T> == nullptr) [[unlikely]]
        detail::current_tape<T> = detail::make_thread_tape<T>();
    return *detail::current_tape<T>;
}

/// Reclaims, when it ends, every node the thread recorded since it began; variables made before
/// it (a model's parameters) live on. Use one per training step to keep memory flat.
///
///     zg::var w = 0.5;
///     for (int step = 0; step < 100; ++step) {
///         zg::tape::scope step_scope;
///         zg::var loss = square(w * 3.0 - 1.0);
///         loss.backward();
///         w.data() -= 0.01 * w.grad();
///         w.grad() = 0;
///     } // loss's nodes are reclaimed here; using `loss` afterwards throws zg::dangling_var
template <class T>
class basic_scope {
public:
    basic_scope() : basic_scope(this_thread_tape<T>()) {}
    explicit basic_scope(basic_tape<T>& tape) : tape_(tape), mark_(tape.mark()) {}
    basic_scope(const basic_scope&) = delete;
    basic_scope& operator=(const basic_scope&) = delete;
    ~basic_scope() { tape_.rewind(mark_); }

    /// The first node recorded inside this scope.
    typename basic_tape<T>::index_type first() const { return mark_.nodes; }

private:
    basic_tape<T>& tape_;
    typename basic_tape<T>::mark_type mark_;
};

using scope = basic_scope<double>;

/// Sets every gradient on the calling thread's tape to zero.
inline void zero_grad() { this_thread_tape<double>().zero_grad(); }

} // namespace zg::tape

#endif // ZG_TAPE_TAPE_HPP
