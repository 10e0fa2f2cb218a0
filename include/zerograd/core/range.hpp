// zerograd/core/range.hpp: zg::range, the integers first, first + 1, ..., last - 1 as a sized
// random-access range: what zg::sum(range, fn), zg::log_sum_exp(range, fn) and zg::scan loop
// over by index, with every compiler (libstdc++ 12's std::views::iota does not compile with
// clang++ 14).
#pragma once

#include "zerograd/core/error.hpp"

#include <compare>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <ranges> // enable_borrowed_range
#include <string>
#include <type_traits>

namespace zg {

/// The integers [first, last) of type I, computed as they are read: no storage.
template <std::integral I>
class index_range {
public:
    class iterator {
    public:
        using value_type = I;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::random_access_iterator_tag;
        using iterator_category = std::random_access_iterator_tag;
        using reference = I;

        constexpr iterator() = default;
        constexpr explicit iterator(I i) : i_(i) {}
        constexpr I operator*() const { return i_; }
        constexpr I operator[](difference_type n) const { return I(i_ + I(n)); }
        constexpr iterator& operator++() {
            ++i_;
            return *this;
        }
        constexpr iterator operator++(int) { return iterator(i_++); }
        constexpr iterator& operator--() {
            --i_;
            return *this;
        }
        constexpr iterator operator--(int) { return iterator(i_--); }
        constexpr iterator& operator+=(difference_type n) {
            i_ = I(i_ + I(n));
            return *this;
        }
        constexpr iterator& operator-=(difference_type n) {
            i_ = I(i_ - I(n));
            return *this;
        }
        friend constexpr iterator operator+(iterator it, difference_type n) { return it += n; }
        friend constexpr iterator operator+(difference_type n, iterator it) { return it += n; }
        friend constexpr iterator operator-(iterator it, difference_type n) { return it -= n; }
        friend constexpr difference_type operator-(iterator a, iterator b) {
            return difference_type(a.i_) - difference_type(b.i_);
        }
        friend constexpr bool operator==(iterator, iterator) = default;
        friend constexpr auto operator<=>(iterator, iterator) = default;

    private:
        I i_ = 0;
    };

    constexpr index_range() = default;
    /// Throws zg::error if last comes before first: a count below zero is a mistake (n - 1 at
    /// n = 0 for a signed n), not an empty loop. (An unsigned n - 1 wraps before it gets here.)
    constexpr index_range(I first, I last) : first_(first), last_(last) {
        if (last < first) [[unlikely]]
            throw_backwards(first, last);
    }
    constexpr iterator begin() const { return iterator(first_); }
    constexpr iterator end() const { return iterator(last_); }
    // In std::size_t: last - first may not fit I (zg::range(-2, INT_MAX)).
    constexpr std::size_t size() const { return std::size_t(last_) - std::size_t(first_); }
    constexpr bool empty() const { return first_ == last_; }
    constexpr I operator[](std::size_t k) const { return I(first_ + I(k)); }

private:
    // Out of line and cold: a range made in a loop's body carries one comparison.
    [[noreturn, gnu::cold, gnu::noinline]] static void throw_backwards(I first, I last) {
        throw error("zg::range(first, last): last (" + std::to_string(last) +
                    ") comes before first (" + std::to_string(first) + ")");
    }

    I first_ = 0;
    I last_ = 0;
};

/// 0, 1, ..., n - 1: `zg::sum(zg::range(K), [&](int k) { ... })` sums over K components.
template <std::integral I>
constexpr index_range<I> range(I n) {
    return index_range<I>(I(0), n);
}
/// first, ..., last - 1, in the type of both (their common type if they differ:
/// `zg::range(0, v.size())` counts in std::size_t).
template <std::integral I, std::integral J>
constexpr auto range(I first, J last) {
    using common = std::common_type_t<I, J>;
    return index_range<common>(common(first), common(last));
}

} // namespace zg

// Its iterators hold their integer: they outlive the range (begin(zg::range(n)) is safe).
template <class I>
inline constexpr bool std::ranges::enable_borrowed_range<zg::index_range<I>> = true;
