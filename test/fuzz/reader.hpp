// test/fuzz/reader.hpp: how the fuzz targets read their bytes: one at a time, as doubles of any
// bit pattern, or as numbers from a table of awkward ones (past the end, every byte is 0); and
// what they share for choosing operations and reporting a broken invariant.
#pragma once

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
