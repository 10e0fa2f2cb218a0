// zerograd/tensor/shape.hpp: tensor_shape, a tensor's dimensions held inline, and the shape algebra
// of NumPy broadcasting that the tensor kernels share.
#pragma once

#include "zerograd/core/error.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint> // PTRDIFF_MAX
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace zg {

/// The dimensions of a zg::tensor, outermost first (row-major). Held inline, so recording an
/// operation allocates nothing for its shape; at most `max_rank` (8) dimensions. Rank 0 is a
/// scalar of one element. Converts from and to `std::vector<std::size_t>` and compares with it.
/// A shape whose element count (that of its nonzero dimensions) would not fit in memory, more
/// than `max_numel`, is a zg::shape_error, so counts and strides never overflow.
///
///     zg::tensor_shape s = {2, 3};   // s.rank() == 2, s.numel() == 6, s.to_string() == "[2, 3]"
class tensor_shape {
public:
    static constexpr std::size_t max_rank = 8;
    /// The most elements a tensor may have: as many doubles as a byte offset can address.
    static constexpr std::size_t max_numel = PTRDIFF_MAX / sizeof(double);

    /// Rank 0: the shape of a scalar.
    constexpr tensor_shape() = default;
    tensor_shape(std::initializer_list<std::size_t> dims)
        : tensor_shape(std::span<const std::size_t>(dims.begin(), dims.size())) {}
    tensor_shape(const std::vector<std::size_t>& dims)
        : tensor_shape(std::span<const std::size_t>(dims)) {}
    explicit tensor_shape(std::span<const std::size_t> dims) {
        if (dims.size() > max_rank)
            throw shape_error("zg::tensor: " + std::to_string(dims.size()) +
                              " dimensions; a tensor has at most 8");
        rank_ = dims.size();
        std::copy(dims.begin(), dims.end(), dims_.begin());
        check_numel();
    }

    std::size_t rank() const { return rank_; }
    std::size_t size() const { return rank_; }
    bool empty() const { return rank_ == 0; }
    std::size_t operator[](std::size_t axis) const { return dims_[axis]; }
    const std::size_t* data() const { return dims_.data(); }
    const std::size_t* begin() const { return dims_.data(); }
    const std::size_t* end() const { return dims_.data() + rank_; }

    /// The number of elements: the product of the dimensions (1 for rank 0).
    std::size_t numel() const {
        std::size_t n = 1;
        for (std::size_t d : *this)
            n *= d;
        return n;
    }

    /// Appends a dimension (shape_error beyond max_rank).
    void push_back(std::size_t dim) {
        if (rank_ == max_rank) throw shape_error("zg::tensor: a tensor has at most 8 dimensions");
        dims_[rank_++] = dim;
        check_numel();
    }

    std::vector<std::size_t> to_vector() const { return {begin(), end()}; }
    operator std::vector<std::size_t>() const { return to_vector(); }

    /// "[2, 3]", as shape errors print it.
    std::string to_string() const {
        std::string text = "[";
        for (std::size_t i = 0; i < rank_; ++i) {
            if (i != 0) text += ", ";
            text += std::to_string(dims_[i]);
        }
        return text + "]";
    }

    friend bool operator==(const tensor_shape& a, const tensor_shape& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator==(const tensor_shape& a, const std::vector<std::size_t>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend std::ostream& operator<<(std::ostream& out, const tensor_shape& s) {
        return out << s.to_string();
    }

private:
    void check_numel() const {
        std::size_t n = 1;
        for (std::size_t d : *this) {
            if (d == 0) continue;
            if (n > max_numel / d)
                throw shape_error("zg::tensor: shape " + to_string() + " has more than " +
                                  std::to_string(max_numel) + " elements");
            n *= d;
        }
    }

    std::array<std::size_t, max_rank> dims_{};
    std::size_t rank_ = 0;
};

namespace detail {

/// Element strides, one per axis of some output shape.
using tensor_strides = std::array<std::size_t, tensor_shape::max_rank>;

/// NumPy broadcasting: shapes aligned at the right, each pair of dimensions equal or one of them
/// 1 (missing dimensions count as 1). False when they do not broadcast.
inline bool broadcast_shape(const tensor_shape& a, const tensor_shape& b, tensor_shape& out) {
    const std::size_t rank = std::max(a.rank(), b.rank());
    std::array<std::size_t, tensor_shape::max_rank> dims{};
    for (std::size_t i = 0; i < rank; ++i) {
        // Counting from the right: axis i of the output is axis i - (rank - a.rank()) of a.
        const std::size_t da = i + a.rank() >= rank ? a[i + a.rank() - rank] : 1;
        const std::size_t db = i + b.rank() >= rank ? b[i + b.rank() - rank] : 1;
        if (da != db && da != 1 && db != 1) return false;
        dims[i] = da == 1 ? db : da;
    }
    out = tensor_shape(std::span<const std::size_t>(dims.data(), rank));
    return true;
}

/// The strides of `in` seen from the axes of `out`, which `in` broadcasts to: 0 on the axes that
/// broadcasting inserted or stretched, so every output position reads (or, in a backward,
/// accumulates into) the one input element it came from.
inline tensor_strides broadcast_strides(const tensor_shape& in, const tensor_shape& out) {
    tensor_strides strides{};
    std::size_t stride = 1;
    const std::size_t offset = out.rank() - in.rank();
    for (std::size_t i = in.rank(); i-- > 0;) {
        strides[i + offset] = in[i] == 1 ? 0 : stride;
        stride *= in[i];
    }
    return strides;
}

/// Calls f(i, ia, ib) for every element i of `out` (row-major) with the positions ia, ib of the
/// elements of a and b it comes from under broadcasting. Equal shapes and one-element operands
/// take plain loops; the general case walks the outer axes with a counter and runs the innermost
/// axis as a loop.
template <class F>
void for_each_broadcast(const tensor_shape& out, const tensor_shape& a, const tensor_shape& b,
                        F&& f) {
    const std::size_t n = out.numel();
    const bool a_full = a == out, b_full = b == out;
    if (a_full && b_full) {
        for (std::size_t i = 0; i < n; ++i)
            f(i, i, i);
        return;
    }
    if (a_full && b.numel() == 1) {
        for (std::size_t i = 0; i < n; ++i)
            f(i, i, std::size_t(0));
        return;
    }
    if (b_full && a.numel() == 1) {
        for (std::size_t i = 0; i < n; ++i)
            f(i, std::size_t(0), i);
        return;
    }
    if (n == 0) return;
    const tensor_strides sa = broadcast_strides(a, out), sb = broadcast_strides(b, out);
    const std::size_t rank = out.rank();
    const std::size_t inner = out[rank - 1], ia_step = sa[rank - 1], ib_step = sb[rank - 1];
    std::array<std::size_t, tensor_shape::max_rank> counter{};
    std::size_t ia = 0, ib = 0;
    for (std::size_t i = 0; i < n; i += inner) {
        for (std::size_t k = 0; k < inner; ++k)
            f(i + k, ia + k * ia_step, ib + k * ib_step);
        // Advance the outer axes like an odometer, moving each operand's position along.
        for (std::size_t axis = rank - 1; axis-- > 0;) {
            ia += sa[axis];
            ib += sb[axis];
            if (++counter[axis] < out[axis]) break;
            ia -= sa[axis] * out[axis];
            ib -= sb[axis] * out[axis];
            counter[axis] = 0;
        }
    }
}

/// A negative axis counts from the end, as in NumPy; out of range is a shape_error.
inline std::size_t normalize_axis(const char* operation, int axis, const tensor_shape& shape) {
    const auto rank = static_cast<int>(shape.rank());
    if (axis < -rank || axis >= rank)
        throw shape_error(std::string(operation) + ": axis " + std::to_string(axis) +
                          " is out of range for shape " + shape.to_string());
    return static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
}

/// A shape seen as [outer, n, inner] around `axis`: the layout reductions and softmax walk.
struct axis_view {
    std::size_t outer = 1, n = 1, inner = 1;
};
inline axis_view view_around(const tensor_shape& shape, std::size_t axis) {
    axis_view view;
    for (std::size_t i = 0; i < axis; ++i)
        view.outer *= shape[i];
    view.n = shape[axis];
    for (std::size_t i = axis + 1; i < shape.rank(); ++i)
        view.inner *= shape[i];
    return view;
}

} // namespace detail

} // namespace zg
