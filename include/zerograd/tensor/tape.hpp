// zerograd/tensor/tape.hpp: tensor_tape, the per-thread record of tensor operations (each node a
// value, a gradient and a backward function), swept in reverse recording order.
// The include guard (not #pragma once) lets the tests of the other folders prove they never
// include the tensors.
#ifndef ZG_TENSOR_TAPE_HPP
#define ZG_TENSOR_TAPE_HPP

#include "zerograd/core/error.hpp"
#include "zerograd/core/thread_object.hpp"
#include "zerograd/tape/scope.hpp" // zg::tape::scope reclaims the tensors too
#include "zerograd/tensor/shape.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory> // unique_ptr: the node chunks
#include <string_view>
#include <vector>

namespace zg::detail {

class tensor_tape;
struct tensor_node;

/// A node's backward: reads the node's gradient and accumulates (+=) into its operands'.
using tensor_backward_fn = void (*)(tensor_tape&, tensor_node&);

/// One recorded tensor. Nodes are slots that the tape reuses after a scope rewinds, so their
/// buffers keep their capacity: a training loop that records the same operations each step
/// allocates nothing after the first steps.
struct tensor_node {
    std::vector<double> value;
    std::vector<double> grad;  // sized when the node requires a gradient, else empty
    std::vector<double> saved; // what an operation keeps for its backward (log-sum-exp per row)
    std::vector<int> saved_indices; // integers an operation keeps: labels, a factorisation's pivots
    tensor_shape shape;
    tensor_backward_fn backward = nullptr; // null for leaves and for constants
    std::string_view name = "leaf";        // the operation, for printing
    std::uint32_t operands[2] = {0, 0};
    std::uint32_t stamp = 0;
    std::int64_t parameter = 0; // an operation's integer parameter: pow's exponent, an axis
    bool requires_grad = false;
    // Whether grad holds this node's gradient. A leaf's is always valid (zeroed when made); an
    // intermediate's is zeroed when a sweep first reaches it, so recording writes one stream
    // (the value) instead of two, and a sweep zeroes only what it reaches.
    bool reached = false;
};

/// The tape: nodes in recording order, in chunks that never move, so a reference to a node stays
/// valid while later nodes are recorded. A node's operands always precede it, so walking the
/// nodes backwards is a topological order: the sweep is a plain loop, with no recursion.
///
/// Memory is reclaimed by rewinding to a mark (tensor::scope): the slots above it are kept with
/// their buffers and reused. Each node carries the stamp the tape had when it was recorded and
/// rewinding changes the stamp, so a tensor naming a reclaimed (maybe reused) slot is detected.
class tensor_tape {
public:
    using index_type = std::uint32_t;

    tensor_tape() = default;
    tensor_tape(const tensor_tape&) = delete;
    tensor_tape& operator=(const tensor_tape&) = delete;

    /// Number of nodes recorded and not reclaimed.
    index_type size() const { return size_; }
    /// The stamp given to nodes recorded now.
    std::uint32_t stamp() const { return stamp_; }
    /// Whether node i exists and is the one recorded under `stamp`.
    bool holds(index_type i, std::uint32_t stamp) const {
        return i < size_ && node(i).stamp == stamp;
    }

    tensor_node& node(index_type i) { return chunks_[i >> chunk_bits][i & chunk_mask]; }
    const tensor_node& node(index_type i) const { return chunks_[i >> chunk_bits][i & chunk_mask]; }

    /// Records a node of `shape`: its value sized (the caller fills it), its gradient sized if it
    /// requires one (zeroed for a leaf). A node that requires no gradient keeps no backward: it
    /// is a constant.
    index_type push(const tensor_shape& shape, bool requires_grad, tensor_backward_fn rule,
                    std::string_view name) {
        if (size_ == capacity_) [[unlikely]]
            grow();
        tensor_node& n = node(size_);
        const std::size_t count = shape.numel();
        n.shape = shape;
        n.value.resize(count);
        if (!requires_grad)
            n.grad.clear();
        else if (rule == nullptr)
            n.grad.assign(count, 0.0);
        else
            n.grad.resize(count); // zeroed when a sweep first reaches it
        n.backward = requires_grad ? rule : nullptr;
        n.name = name;
        n.stamp = stamp_;
        n.parameter = 0;
        n.requires_grad = requires_grad;
        n.reached = false;
        return size_++;
    }

    /// The gradient buffer of a node a backward accumulates into: an intermediate's is zeroed
    /// when the sweep first reaches it; a leaf's keeps what earlier sweeps accumulated.
    double* gradient_of(tensor_node& operand) {
        if (!operand.reached) [[unlikely]] {
            operand.reached = true;
            if (operand.backward != nullptr)
                std::fill(operand.grad.begin(), operand.grad.end(), 0.0);
        }
        return operand.grad.data();
    }

    /// The reverse sweep from `root` (one element): forgets the intermediate gradients of
    /// earlier sweeps (above root too), adds 1 to root's gradient, then runs the backward of
    /// every node the sweep reaches, from root down to the first node. Leaves keep accumulating
    /// across sweeps, as micrograd's and PyTorch's do.
    void backward(index_type root) {
        for (index_type i = 0; i < size_; ++i)
            node(i).reached = false;
        gradient_of(node(root))[0] += 1.0;
        for (index_type i = root + 1; i-- > 0;) {
            tensor_node& n = node(i);
            if (n.reached && n.backward != nullptr) n.backward(*this, n);
        }
    }

    /// A point in the recording to rewind to.
    index_type mark() const { return size_; }

    /// Reclaims every node recorded after `mark`; tensors naming them become dangling.
    void rewind(index_type mark) {
        if (mark >= size_) return;
        size_ = mark;
        ++stamp_;
    }

    /// Its thread ended: reclaims every node and frees the slots; the tape itself is kept (see
    /// this_thread_tensor_tape), so tensors left from that thread report dangling.
    void retire() {
        rewind(0);
        chunks_.clear();
        chunks_.shrink_to_fit();
        capacity_ = 0;
    }
    /// A new thread takes the retired tape over; the stamp already tells old tensors apart.
    void adopt() { ++adoptions_; }
    /// Which thread's turn on the tape this is: a scope made in one turn and ended in another
    /// (its thread ended, and a new one, maybe at the same thread-local address, took over) was
    /// ended on another thread.
    std::uint64_t adoption() const { return adoptions_; }

    /// Bytes held by node slots and their buffers, used or kept for reuse.
    std::size_t capacity_bytes() const {
        std::size_t bytes = capacity_ * sizeof(tensor_node);
        for (index_type i = 0; i < capacity_; ++i) {
            const tensor_node& n = node(i);
            bytes +=
                (n.value.capacity() + n.grad.capacity() + n.saved.capacity()) * sizeof(double) +
                n.saved_indices.capacity() * sizeof(int);
        }
        return bytes;
    }

    /// Frees the buffers of reclaimed slots (kept for reuse otherwise), say after a large
    /// one-off computation.
    void release_unused() {
        for (index_type i = size_; i < capacity_; ++i)
            node(i) = tensor_node{};
    }

private:
    static constexpr index_type chunk_bits = 6;
    static constexpr index_type chunk_mask = (index_type(1) << chunk_bits) - 1;

    // Out of line: push() stays small enough to inline into every operation.
    [[gnu::noinline]] void grow() {
        if (capacity_ > std::numeric_limits<index_type>::max() - (chunk_mask + 1))
            throw error("zg::tensor: a tape holds at most 4294967232 tensors; use "
                        "zg::tensor::scope to reclaim finished steps");
        chunks_.push_back(std::make_unique<tensor_node[]>(chunk_mask + 1));
        capacity_ += chunk_mask + 1;
    }

    std::vector<std::unique_ptr<tensor_node[]>> chunks_;
    index_type size_ = 0;
    index_type capacity_ = 0;
    std::uint32_t stamp_ = 0;
    std::uint64_t adoptions_ = 0;
};

/// The calling thread's tensor tape: each thread records on its own. When the thread ends its
/// tape is retired and kept for the next thread, as tape mode's is.
inline tensor_tape& this_thread_tensor_tape() {
    if (thread_object<tensor_tape> == nullptr) [[unlikely]] // zg::tape::scope reclaims it too
        zg::tape::detail::this_thread_scope_companion = {
            [] { return this_thread_tensor_tape().mark(); },
            [](std::uint32_t mark) { this_thread_tensor_tape().rewind(mark); }};
    return this_thread_lasting_object<tensor_tape>();
}

} // namespace zg::detail

#endif // ZG_TENSOR_TAPE_HPP
