// zerograd/tensor/tensor.hpp: zg::tensor, a handle to an n-dimensional array of doubles recorded
// on the calling thread's tensor tape, with its factories, accessors, backward and scope.
#pragma once

#include "zerograd/core/error.hpp"
#include "zerograd/tensor/shape.hpp"
#include "zerograd/tensor/tape.hpp"

#include <cmath> // log, sqrt, cos, sin: randn's Box-Muller transform
#include <cstdint>
#include <numbers> // pi
#include <ostream>
#include <random> // mt19937_64: randn's raw bits
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zg {

namespace detail {
struct tensor_access;
} // namespace detail

/// An n-dimensional row-major array of doubles whose operations are recorded on the calling
/// thread's tensor tape; `backward()` on a one-element result sweeps the tape in reverse and
/// accumulates (+=) gradients into every tensor made with `requires_grad`.
///
/// A tensor is a 16-byte handle: copying it names the same node, and `t += u` rebinds t to a
/// new node. Operations are free functions found by argument-dependent lookup (`matmul(a, b)`,
/// `tanh(t)`, `a + 2.0`), with NumPy broadcasting for the elementwise ones. Tensors made before a
/// `zg::tensor::scope` (parameters) outlive it; tensors made inside are reclaimed when it ends,
/// and using one afterwards throws zg::dangling_var. The spans from `data()` and `grad()` stay
/// valid while the tensor's node does; an operand's data changed between an operation and the
/// backward through it gives that backward the new data.
///
///     auto w = zg::tensor::from({1, 2, 3, 4}, {2, 2}, true);
///     auto x = zg::tensor::from({1, -1}, {2});
///     auto loss = sum(tanh(matmul(w, x)));
///     loss.backward();   // w.grad(): d loss / d w, shape [2, 2]
class tensor {
public:
    using shape_type = tensor_shape;
    using index_type = detail::tensor_tape::index_type;
    class scope;

    /// An empty handle naming no node; any use but assignment throws zg::error.
    tensor() = default;

    /// A leaf holding `values` (row-major) of `shape`; shape_error if the counts differ.
    ///
    ///     auto t = zg::tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});   // t.data()[5] == 6
    static tensor from(std::vector<double> values, tensor_shape shape, bool requires_grad = false) {
        if (values.size() != shape.numel())
            throw shape_error("zg::tensor::from: " + std::to_string(values.size()) +
                              " values for shape " + shape.to_string() + " of " +
                              std::to_string(shape.numel()) + " elements");
        const tensor t = make_leaf(shape, requires_grad);
        detail::tensor_node& node = t.unchecked_node();
        // Copy into the slot's buffer when it is large enough, so a reused slot keeps its
        // capacity; otherwise take the caller's buffer.
        if (node.value.capacity() >= values.size())
            std::copy(values.begin(), values.end(), node.value.begin());
        else
            node.value = std::move(values);
        return t;
    }

    /// A leaf of `shape` filled with `value`.
    static tensor full(tensor_shape shape, double value, bool requires_grad = false) {
        const tensor t = make_leaf(shape, requires_grad);
        detail::tensor_node& node = t.unchecked_node();
        std::fill(node.value.begin(), node.value.end(), value);
        return t;
    }
    /// A leaf of zeros.
    static tensor zeros(tensor_shape shape, bool requires_grad = false) {
        return full(shape, 0.0, requires_grad);
    }
    /// A leaf of ones.
    static tensor ones(tensor_shape shape, bool requires_grad = false) {
        return full(shape, 1.0, requires_grad);
    }

    /// A leaf of standard normal samples, the same for the same seed (mt19937_64 bits through
    /// the Box-Muller transform, so no library's distribution can change them). Scale a
    /// parameter in place: `for (double& w : t.data()) w *= 0.1;`.
    static tensor randn(tensor_shape shape, std::uint64_t seed = 0, bool requires_grad = false) {
        const tensor t = make_leaf(shape, requires_grad);
        detail::tensor_node& node = t.unchecked_node();
        std::mt19937_64 bits(seed);
        const auto uniform = [&] { return static_cast<double>(bits() >> 11) * 0x1p-53; };
        for (std::size_t i = 0; i < node.value.size(); i += 2) {
            const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform())); // 1 - u > 0
            const double angle = 2.0 * std::numbers::pi * uniform();
            node.value[i] = radius * std::cos(angle);
            if (i + 1 < node.value.size()) node.value[i + 1] = radius * std::sin(angle);
        }
        return t;
    }

    /// The dimensions, outermost first.
    const tensor_shape& shape() const { return checked_node().shape; }
    /// Number of dimensions.
    std::size_t rank() const { return shape().rank(); }
    /// Number of elements.
    std::size_t numel() const { return checked_node().value.size(); }
    /// The values, row-major; writable (a parameter update), valid while the node lives.
    std::span<double> data() const { return checked_node().value; }
    /// The gradient, d(root)/d(this) after root.backward(), same layout as data(). Throws
    /// zg::error on a tensor that requires no gradient (it has none).
    std::span<double> grad() const {
        detail::tensor_node& n = checked_node();
        if (!n.requires_grad)
            throw error("zg::tensor::grad: this tensor of shape " + n.shape.to_string() +
                        " requires no gradient; make its leaves with requires_grad = true");
        // An intermediate no sweep has reached holds no gradient yet: zeros.
        return {tape_->gradient_of(n), n.grad.size()};
    }
    /// Whether gradients flow into this tensor: a leaf made with requires_grad, or a result of
    /// an operation on one.
    bool requires_grad() const { return checked_node().requires_grad; }
    /// The value of a one-element tensor (shape_error otherwise).
    double item() const {
        const detail::tensor_node& n = checked_node();
        if (n.value.size() != 1)
            throw shape_error("zg::tensor::item: needs a tensor of one element, not one of shape " +
                              n.shape.to_string());
        return n.value[0];
    }
    /// The operation that made this tensor ("leaf" for inputs), for printing.
    std::string_view op_name() const { return checked_node().name; }
    /// Whether this handle names a node (false for a default-constructed tensor).
    bool has_node() const { return tape_ != nullptr; }

    /// Seeds this one-element tensor's gradient with 1 and accumulates (+=) into every tensor it
    /// depends on, in reverse recording order. shape_error on more than one element; zg::error if
    /// nothing it depends on requires a gradient.
    void backward() const {
        detail::tensor_node& n = checked_node();
        if (n.value.size() != 1)
            throw shape_error("zg::tensor::backward: needs a tensor of one element, not one of "
                              "shape " +
                              n.shape.to_string() + "; reduce it first with zg::sum or zg::mean");
        if (!n.requires_grad)
            throw error("zg::tensor::backward: this tensor depends on no tensor with "
                        "requires_grad = true, so there is no gradient to compute");
        if (tape_ != detail::thread_object<detail::tensor_tape>) [[unlikely]]
            throw_other_thread("backward");
        tape_->backward(index_);
    }

    /// Sets this tensor's gradient to zero (nothing on a tensor that requires none).
    void zero_grad() const {
        detail::tensor_node& n = checked_node();
        std::fill(n.grad.begin(), n.grad.end(), 0.0);
    }

    /// The tape this tensor lives on and its position there.
    detail::tensor_tape& tape() const {
        checked_node();
        return *tape_;
    }
    index_type index() const { return index_; }

private:
    friend struct detail::tensor_access;

    tensor(detail::tensor_tape& tape, index_type index)
        : tape_(&tape), index_(index), stamp_(tape.stamp()) {}

    static tensor make_leaf(const tensor_shape& shape, bool requires_grad) {
        detail::tensor_tape& tape = detail::this_thread_tensor_tape();
        return {tape, tape.push(shape, requires_grad, nullptr, "leaf")};
    }
    detail::tensor_node& unchecked_node() const { return tape_->node(index_); }

    // Cold: an error path, kept apart from the operations' code.
    [[noreturn, gnu::cold]] static void throw_other_thread(std::string_view operation) {
        throw error("zg::tensor: operation " + std::string(operation) +
                    " on a tensor of another thread's tape; each thread records on its own tape: "
                    "give each thread tensors made there (from the values, data())");
    }

    detail::tensor_node& checked_node() const {
        if (tape_ == nullptr) [[unlikely]]
            throw error("zg::tensor: this tensor is empty (default-constructed); assign it the "
                        "result of an operation or a factory such as zg::tensor::zeros first");
        if (!tape_->holds(index_, stamp_)) [[unlikely]]
            throw dangling_var("zg::dangling_var: this zg::tensor names node " +
                               std::to_string(index_) +
                               ", which was reclaimed when its zg::tensor::scope or its thread "
                               "ended");
        return tape_->node(index_);
    }

    detail::tensor_tape* tape_ = nullptr;
    index_type index_ = 0;
    std::uint32_t stamp_ = 0;
};

/// Reclaims, when it ends, every tensor the thread recorded since it began; tensors made before
/// it (a model's parameters) live on, and their gradients keep what the step accumulated. Use
/// one per training step: the reclaimed slots and their buffers are reused by the next step, so
/// memory stays flat and, once shapes repeat, nothing is allocated.
///
///     auto w = zg::tensor::randn({2, 1}, 7, true);
///     for (int step = 0; step < 100; ++step) {
///         zg::tensor::scope step_scope;
///         auto loss = mean(square(matmul(x, w) - y));
///         loss.backward();
///         for (std::size_t i = 0; i < w.numel(); ++i) w.data()[i] -= 0.1 * w.grad()[i];
///         w.zero_grad();
///     } // loss is reclaimed here; using it afterwards throws zg::dangling_var
class tensor::scope {
public:
    scope() : scope(detail::this_thread_tensor_tape()) {}
    explicit scope(detail::tensor_tape& tape)
        : tape_(tape), mark_(tape.mark()), adoption_(tape.adoption()) {}
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    /// Throws zg::error, leaving the tape as it was, if ended on a thread other than the one
    /// that made it (unless an exception is already on its way: then it only leaves the tape).
    ~scope() noexcept(false) {
        if (detail::this_thread_id() != thread_ || tape_.adoption() != adoption_) [[unlikely]] {
            detail::scope_ended_elsewhere("zg::tensor::scope");
            return;
        }
        tape_.rewind(mark_);
    }

private:
    detail::tensor_tape& tape_;
    detail::tensor_tape::index_type mark_;
    std::uint64_t adoption_;
    const void* thread_ = detail::this_thread_id();
};

// The factories as free functions too: zg::zeros({2, 3}).
inline tensor zeros(tensor_shape shape, bool requires_grad = false) {
    return tensor::zeros(std::move(shape), requires_grad);
}
inline tensor ones(tensor_shape shape, bool requires_grad = false) {
    return tensor::ones(std::move(shape), requires_grad);
}
inline tensor randn(tensor_shape shape, std::uint64_t seed = 0, bool requires_grad = false) {
    return tensor::randn(std::move(shape), seed, requires_grad);
}

/// Prints shape and values: `tensor(shape=[2], data=[1, 2])`.
inline std::ostream& operator<<(std::ostream& out, const tensor& t) {
    out << "tensor(shape=" << t.shape() << ", data=[";
    const auto values = t.data();
    for (std::size_t i = 0; i < values.size(); ++i)
        out << (i == 0 ? "" : ", ") << values[i];
    return out << "])";
}

namespace detail {

/// What the operations need from a tensor handle: its checked node and tape, and a handle to a
/// node they record.
struct tensor_access {
    /// The tape an operation on t records on: t's, which must be the calling thread's (another
    /// thread's tape would be written by two threads at once).
    static tensor_tape& tape(const tensor& t, std::string_view operation) {
        t.checked_node();
        if (t.tape_ != thread_object<tensor_tape>) [[unlikely]]
            tensor::throw_other_thread(operation);
        return *t.tape_;
    }
    static tensor_node& node(const tensor& t) { return t.checked_node(); }
    static tensor::index_type index(const tensor& t) { return t.index_; }
    static tensor make(tensor_tape& tape, tensor::index_type index) { return {tape, index}; }
};

/// The tape two operands share: the calling thread's (zg::error naming the operation if either
/// is on another thread's).
inline tensor_tape& common_tape(std::string_view operation, const tensor& a, const tensor& b) {
    tensor_access::tape(b, operation);
    return tensor_access::tape(a, operation);
}

/// A one-element constant on t's tape, for a plain number mixed with a tensor.
inline tensor constant_like(const tensor& t, double value) {
    tensor_tape& tape = tensor_access::tape(t, "a constant");
    const auto i = tape.push(tensor_shape{}, false, nullptr, "leaf");
    tape.node(i).value[0] = value;
    return tensor_access::make(tape, i);
}

} // namespace detail

} // namespace zg
