// test/fuzz/reader.hpp: how the fuzz targets read their bytes: one at a time, as doubles of any
// bit pattern, or as numbers from a table of awkward ones (past the end, every byte is 0); and
// what they share for choosing operations and reporting a broken invariant.
#pragma once

#include <zerograd/core/rules.hpp> // the lists of operations

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace fuzz {

class reader {
public:
    reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool done() const { return position_ >= size_; }
    std::uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }
    double raw_double() {
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k)
            bits = bits << 8 | byte();
        double x;
        std::memcpy(&x, &bits, sizeof x);
        return x;
    }
    /// A number from a table of awkward ones, or any bit pattern.
    double number() {
        static constexpr double table[] = {
            0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 1e-10, 1e10, 1e300, -1e300, 1e-300,
            5e-324, 1.7976931348623157e308, __builtin_inf(), -__builtin_inf(), __builtin_nan("")};
        const std::uint8_t k = byte();
        return k < std::size(table) ? table[k] : (k < 200 ? double(k) / 16 - 6 : raw_double());
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t position_ = 0;
};

/// Every elementary operation on a mode's variable type V, in tables a byte picks from: unary
/// (negation included), binary, and binary with a constant on the right or on the left. Calls
/// are unqualified, so each mode's overloads are found by argument-dependent lookup.
template <class V>
struct operations {
    using unary_fn = V (*)(const V&);
    using binary_fn = V (*)(const V&, const V&);
    using left_fn = V (*)(const V&, double);
    using right_fn = V (*)(double, const V&);

    static inline const unary_fn unary[] = {
        [](const V& x) -> V { return -x; },
#define ZG_FUZZ_UNARY(fn) [](const V& x) -> V { return fn(x); },
        ZG_UNARY_FUNCTIONS(ZG_FUZZ_UNARY)
#undef ZG_FUZZ_UNARY
    };
    static inline const binary_fn binary[] = {
#define ZG_FUZZ_FUNCTION(fn) [](const V& l, const V& r) -> V { return fn(l, r); },
#define ZG_FUZZ_OPERATOR(fn, symbol) [](const V& l, const V& r) -> V { return l symbol r; },
        ZG_BINARY_FUNCTIONS(ZG_FUZZ_FUNCTION) ZG_BINARY_OPERATORS(ZG_FUZZ_OPERATOR)
#undef ZG_FUZZ_FUNCTION
#undef ZG_FUZZ_OPERATOR
    };
    static inline const left_fn with_constant_right[] = {
#define ZG_FUZZ_FUNCTION(fn) [](const V& l, double r) -> V { return fn(l, r); },
#define ZG_FUZZ_OPERATOR(fn, symbol) [](const V& l, double r) -> V { return l symbol r; },
        ZG_BINARY_FUNCTIONS(ZG_FUZZ_FUNCTION) ZG_BINARY_OPERATORS(ZG_FUZZ_OPERATOR)
#undef ZG_FUZZ_FUNCTION
#undef ZG_FUZZ_OPERATOR
    };
    static inline const right_fn with_constant_left[] = {
#define ZG_FUZZ_FUNCTION(fn) [](double l, const V& r) -> V { return fn(l, r); },
#define ZG_FUZZ_OPERATOR(fn, symbol) [](double l, const V& r) -> V { return l symbol r; },
        ZG_BINARY_FUNCTIONS(ZG_FUZZ_FUNCTION) ZG_BINARY_OPERATORS(ZG_FUZZ_OPERATOR)
#undef ZG_FUZZ_FUNCTION
#undef ZG_FUZZ_OPERATOR
    };
};

/// One of a table's entries, chosen by the next byte.
template <class T, std::size_t N>
const T& pick(const T (&table)[N], reader& in) {
    return table[in.byte() % N];
}

/// Where results go so that the optimizer keeps the work that made them.
inline volatile double sink;

/// Stops the run: an invariant the target checks does not hold.
[[noreturn]] inline void broken(const char* what) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

} // namespace fuzz
