// test/fuzz/reader.hpp: how the fuzz targets read their bytes: one at a time, as doubles of any
// bit pattern, or as numbers from a table of awkward ones (past the end, every byte is 0); and
// what they share for choosing operations and reporting a broken invariant.
#pragma once

#include "user_rules.hpp" // softplus: the fuzzers reach a user's rule as the library's

#include <zerograd/core/rules.hpp> // the lists of operations

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string_view>

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

/// Where copy k of an operation sits on the ring pick() chooses from: FNV-1a of its name and k,
/// mixed so that names that differ in one letter land far apart.
constexpr std::uint32_t place_of(std::string_view name, int k) {
    std::uint32_t h = 2166136261u;
    for (char c : name)
        h = (h ^ std::uint8_t(c)) * 16777619u;
    h = (h ^ std::uint8_t('0' + k)) * 16777619u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ h >> 16;
}

/// An operation of a table, placed by its name at eight points of the ring, so that each
/// operation's share of the ring is near the others' (within 0.5x to 1.5x here).
template <class Fn>
struct entry {
    static constexpr int copies = 8;
    std::uint32_t places[copies];
    Fn apply;
    entry(std::string_view name, Fn fn) : apply(fn) {
        for (int k = 0; k < copies; ++k)
            places[k] = place_of(name, k);
    }
};

/// Every elementary operation on a mode's variable type V, in tables pick() chooses from: unary
/// (negation and a user's rule included), binary, and binary with a constant on the right or on
/// the left. Calls are unqualified, so each mode's overloads are found by argument-dependent
/// lookup.
template <class V>
struct operations {
    using unary_fn = entry<V (*)(const V&)>;
    using binary_fn = entry<V (*)(const V&, const V&)>;
    using left_fn = entry<V (*)(const V&, double)>;
    using right_fn = entry<V (*)(double, const V&)>;

    static inline const unary_fn unary[] = {
        {"neg", [](const V& x) -> V { return -x; }},
        {"softplus", [](const V& x) -> V { return laws::softplus(x); }},
#define ZG_FUZZ_UNARY(fn) {#fn, [](const V& x) -> V { return fn(x); }},
        ZG_UNARY_FUNCTIONS(ZG_FUZZ_UNARY)
#undef ZG_FUZZ_UNARY
    };
    static inline const binary_fn binary[] = {
#define ZG_FUZZ_FUNCTION(fn) {#fn, [](const V& l, const V& r) -> V { return fn(l, r); }},
#define ZG_FUZZ_OPERATOR(fn, symbol) {#fn, [](const V& l, const V& r) -> V { return l symbol r; }},
        ZG_BINARY_FUNCTIONS(ZG_FUZZ_FUNCTION) ZG_BINARY_OPERATORS(ZG_FUZZ_OPERATOR)
#undef ZG_FUZZ_FUNCTION
#undef ZG_FUZZ_OPERATOR
    };
    static inline const left_fn with_constant_right[] = {
#define ZG_FUZZ_FUNCTION(fn) {#fn, [](const V& l, double r) -> V { return fn(l, r); }},
#define ZG_FUZZ_OPERATOR(fn, symbol) {#fn, [](const V& l, double r) -> V { return l symbol r; }},
        ZG_BINARY_FUNCTIONS(ZG_FUZZ_FUNCTION) ZG_BINARY_OPERATORS(ZG_FUZZ_OPERATOR)
#undef ZG_FUZZ_FUNCTION
#undef ZG_FUZZ_OPERATOR
    };
    static inline const right_fn with_constant_left[] = {
#define ZG_FUZZ_FUNCTION(fn) {#fn, [](double l, const V& r) -> V { return fn(l, r); }},
#define ZG_FUZZ_OPERATOR(fn, symbol) {#fn, [](double l, const V& r) -> V { return l symbol r; }},
        ZG_BINARY_FUNCTIONS(ZG_FUZZ_FUNCTION) ZG_BINARY_OPERATORS(ZG_FUZZ_OPERATOR)
#undef ZG_FUZZ_FUNCTION
#undef ZG_FUZZ_OPERATOR
    };
};

/// One of a table's operations, chosen by the next two bytes as a point on a ring of 2^32 where
/// each operation sits at its places: the first at or after the point, wrapping. An
/// operation added to a table takes over only the points just before its own, so a saved input
/// means what it meant before except where it now reaches the new operation (an index modulo the
/// table's size would give nearly every byte another meaning).
template <class Fn, std::size_t N>
const Fn& pick(const entry<Fn> (&table)[N], reader& in) {
    const std::uint32_t point = std::uint32_t(in.byte()) << 24 | std::uint32_t(in.byte()) << 16;
    const Fn* after = nullptr;
    const Fn* lowest = nullptr;
    std::uint32_t after_place = 0, lowest_place = 0;
    for (const entry<Fn>& e : table)
        for (std::uint32_t place : e.places) {
            if (place >= point && (after == nullptr || place < after_place)) {
                after = &e.apply;
                after_place = place;
            }
            if (lowest == nullptr || place < lowest_place) {
                lowest = &e.apply;
                lowest_place = place;
            }
        }
    return after != nullptr ? *after : *lowest;
}

/// Where results go so that the optimizer keeps the work that made them.
inline volatile double sink;

/// Stops the run: an invariant the target checks does not hold.
[[noreturn]] inline void broken(const char* what) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

} // namespace fuzz
