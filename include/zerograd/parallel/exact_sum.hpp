// zerograd/parallel/exact_sum.hpp: sums of doubles whose results do not depend on the order of
// their terms or on how they were split between threads or processes. Each term is added exactly
// into a fixed-point number wide enough for any double, and the total is rounded once, to the
// nearest double. Floating-point addition, whose rounding depends on the order, cannot do that.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/error.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath> // ldexp
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace zg::parallel {

namespace detail {

// The fixed-point number: 32-bit digits, one per 64-bit limb (the spare bits take carries), limb
// k weighing 2^(32 k - 1074). 68 limbs reach past the largest double with room for carries.
inline constexpr std::size_t limb_total = 68;
inline constexpr unsigned digit_bits = 32;
inline constexpr std::uint64_t digit_mask = (std::uint64_t{1} << digit_bits) - 1;
// Additions a limb takes before its carries must be moved up: each adds less than 2^32.
inline constexpr std::uint32_t max_pending = std::uint32_t{1} << 30;

// What adding a double means: nothing (a zero), a special value counted apart, or three signed
// digits from limb `limb` up.
struct placed_term {
    enum kind_t { zero, digits, nan, positive_infinity, negative_infinity } kind;
    std::size_t limb = 0;
    std::array<std::int64_t, 3> digit{};
};

inline placed_term place(double x) {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const auto biased_exponent = static_cast<unsigned>((bits >> 52) & 0x7ff);
    const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    const bool negative = (bits >> 63) != 0;
    if (biased_exponent == 0x7ff)
        return {fraction != 0 ? placed_term::nan
                : negative    ? placed_term::negative_infinity
                              : placed_term::positive_infinity};
    if (bits << 1 == 0) return {placed_term::zero}; // +0 or -0
    // x = significand * 2^(position - 1074), with position >= 0: subnormals have exponent 0.
    const std::uint64_t significand =
        biased_exponent == 0 ? fraction : fraction | (std::uint64_t{1} << 52);
    const unsigned position = biased_exponent == 0 ? 0 : biased_exponent - 1;
    const unsigned shift = position % digit_bits;
    // The significand shifted into its place spans three digits at most (53 + 31 bits).
    const std::uint64_t low = (significand << shift) & digit_mask;
    const std::uint64_t rest = significand >> (digit_bits - shift);
    const auto sign = negative ? std::int64_t{-1} : std::int64_t{1};
    return {placed_term::digits,
            position / digit_bits,
            {sign * static_cast<std::int64_t>(low),
             sign * static_cast<std::int64_t>(rest & digit_mask),
             sign * static_cast<std::int64_t>(rest >> digit_bits)}};
}

// Moves each limb's carry into the next: every limb but the last ends in [0, 2^32), the last
// keeps the sign and the rest.
inline void carry(std::span<std::int64_t> limbs) {
    for (std::size_t i = 0; i + 1 < limbs.size(); ++i) {
        const std::int64_t up = limbs[i] >> digit_bits; // floor division by 2^32
        limbs[i] -= up * (std::int64_t{1} << digit_bits);
        limbs[i + 1] += up;
    }
}

// The number whose limbs are `limbs`, the first weighing 2^(32 first - 1074), rounded to the
// nearest double (ties to even); +0 for an exact zero.
inline double rounded(std::span<const std::int64_t> limbs, std::size_t first) {
    // Two limbs more on top, so that the leading digits are 32-bit digits too.
    std::array<std::int64_t, limb_total + 2> total; // only the first limbs.size() + 2 are used
    std::copy(limbs.begin(), limbs.end(), total.begin());
    total[limbs.size()] = total[limbs.size() + 1] = 0;
    const std::span<std::int64_t> number(total.data(), limbs.size() + 2);
    carry(number);
    const bool negative = number.back() < 0;
    if (negative) { // the magnitude, in digits again
        for (std::int64_t& limb : number)
            limb = -limb;
        carry(number);
    }
    std::size_t top = number.size();
    while (top > 0 && number[top - 1] == 0)
        --top;
    if (top == 0) return 0.0;
    const std::size_t k = top - 1;
    const auto digit = [&](std::size_t i) { return static_cast<std::uint64_t>(number[i]); };
    // The 64 bits from the magnitude's leading one down, then one sticky bit for anything lower,
    // so that the conversion to double rounds as the exact number would.
    const auto lead = static_cast<unsigned>(std::countl_zero(digit(k))) - digit_bits;
    const std::uint64_t below = k >= 2 ? digit(k - 2) : 0;
    std::uint64_t head = (digit(k) << (digit_bits + lead)) | (k >= 1 ? digit(k - 1) << lead : 0);
    if (lead != 0) head |= below >> (digit_bits - lead);
    bool sticky = (below & ((std::uint64_t{1} << (digit_bits - lead)) - 1)) != 0;
    for (std::size_t i = 0; !sticky && i + 2 < k; ++i)
        sticky = number[i] != 0;
    head |= sticky ? 1 : 0;
    // head's lowest bit weighs 2^(32 (first + k - 1) - lead - 1074).
    const int exponent = static_cast<int>(digit_bits * (first + k)) -
                         static_cast<int>(digit_bits + lead) - 1074;
    const double magnitude = std::ldexp(static_cast<double>(head), exponent);
    return negative ? -magnitude : magnitude;
}

// NaN and infinities, counted apart: IEEE's result in any order.
struct special_counts {
    std::int64_t nans = 0, positive_infinities = 0, negative_infinities = 0;

    void count(placed_term::kind_t kind) {
        ++(kind == placed_term::nan                 ? nans
           : kind == placed_term::positive_infinity ? positive_infinities
                                                    : negative_infinities);
    }
    void add(const special_counts& other) {
        nans += other.nans;
        positive_infinities += other.positive_infinities;
        negative_infinities += other.negative_infinities;
    }
    bool any() const { return nans != 0 || positive_infinities != 0 || negative_infinities != 0; }
    // What the sum is when any were added.
    double value() const {
        if (nans != 0 || (positive_infinities != 0 && negative_infinities != 0))
            return std::numeric_limits<double>::quiet_NaN();
        return positive_infinities != 0 ? std::numeric_limits<double>::infinity()
                                        : -std::numeric_limits<double>::infinity();
    }
};

} // namespace detail

/// The exact sum of the doubles added to it, rounded to the nearest double only when read:
///
///     zg::parallel::exact_sum s;
///     for (double x : {1e100, 1.0, -1e100}) s.add(x);
///     // s.value() == 1.0, in any order
///
/// The number is kept in 32-bit digits, one per 64-bit limb, from 2^-1074 (the smallest
/// subnormal) up past the largest double: 544 bytes. A limb takes 2^31 additions before its
/// carries must be moved up, which add() does on its own; merge() adds two sums exactly, so sums
/// made apart (on threads, on processes) combine into the same bits as one sum of every term.
/// NaN and infinities are counted apart and give what IEEE arithmetic gives in any order: NaN if a
/// NaN or infinities of both signs were added, else the infinity.
class exact_sum {
public:
    void add(double x) {
        const detail::placed_term term = detail::place(x);
        if (term.kind == detail::placed_term::zero) return;
        if (term.kind != detail::placed_term::digits) return specials_.count(term.kind);
        for (std::size_t i = 0; i < 3; ++i)
            limbs_[term.limb + i] += term.digit[i];
        if (++pending_ == detail::max_pending) normalize();
    }

    /// Adds `other`'s terms to this sum, exactly.
    void merge(const exact_sum& other) {
        exact_sum addend = other;
        addend.normalize();
        normalize();
        for (std::size_t i = 0; i < limbs_.size(); ++i)
            limbs_[i] += addend.limbs_[i];
        pending_ = 2; // each limb holds two normalized sums' digits
        specials_.add(other.specials_);
    }

    /// The sum, rounded to the nearest double (ties to even); +0 for an exact zero.
    double value() const {
        return specials_.any() ? specials_.value() : detail::rounded(limbs_, 0);
    }

private:
    void normalize() {
        detail::carry(limbs_);
        pending_ = 0;
    }

    std::array<std::int64_t, detail::limb_total> limbs_{};
    std::uint32_t pending_ = 0;
    detail::special_counts specials_;
};

/// Many exact sums at once, as of a gradient's components: sum i of size() is exact_sum's number
/// for the terms add(i, x) gave it. The sums share one window of the fixed-point range, widened to
/// take each term, so that memory and time follow the range of magnitudes the terms span (8 bytes
/// a sum per 32 bits of it: 48 to 64 bytes for terms within a factor of 2^60 of each other) rather
/// than the whole range of doubles. Indices are not checked, as std::vector's operator[] does not
/// check them: i < size().
///
/// Reductions across processes add the sums' numbers as integers (an MPI_SUM of MPI_INT64_T,
/// exact and in any order): each process normalize()s its sums and cover()s the union of the
/// processes' windows; the limbs() and make_special_counts() of up to 2^30 processes, added, are
/// then those of the sums of every term, to be normalize()d before reading.
class exact_sums {
public:
    explicit exact_sums(std::size_t count = 0) : count_(count) {}

    std::size_t size() const { return count_; }

    void add(std::size_t i, double x) {
        const detail::placed_term term = detail::place(x);
        if (term.kind == detail::placed_term::zero) return;
        if (term.kind != detail::placed_term::digits) return count_special(i, term.kind);
        // Limbs term.limb to term.limb + 2, and one above them for the carries.
        if (term.limb < first_ || term.limb + 4 > first_ + width_) {
            // Room to spare below: terms tend to come at a few magnitudes.
            const std::size_t below = term.limb >= 2 ? term.limb - 2 : 0;
            cover(width_ == 0 || term.limb < first_ ? below : first_, term.limb + 4);
        }
        std::int64_t* limbs = &limbs_[i * width_ + (term.limb - first_)];
        for (std::size_t k = 0; k < 3; ++k)
            limbs[k] += term.digit[k];
        if (++pending_ == detail::max_pending) normalize();
    }

    /// Adds each of `other`'s sums to this one's of the same index, exactly. Throws
    /// zg::shape_error when the two hold different numbers of sums.
    void merge(const exact_sums& other) {
        if (other.count_ != count_)
            throw shape_error("zg::parallel::exact_sums::merge: " + std::to_string(other.count_) +
                              " sums merged into " + std::to_string(count_));
        exact_sums addend = other;
        addend.normalize();
        normalize();
        if (addend.width_ != 0) cover(addend.first_, addend.first_ + addend.width_);
        for (std::size_t i = 0; i < count_; ++i)
            for (std::size_t k = 0; k < addend.width_; ++k)
                limbs_[i * width_ + (addend.first_ - first_) + k] +=
                    addend.limbs_[i * addend.width_ + k];
        pending_ = 2;
        if (!other.specials_.empty()) {
            make_special_counts();
            for (std::size_t k = 0; k < specials_.size(); ++k)
                specials_[k] += other.specials_[k];
        }
    }

    /// Sum i, rounded to the nearest double (ties to even); +0 for an exact zero.
    double value(std::size_t i) const {
        if (!specials_.empty()) {
            const detail::special_counts counts{specials_[3 * i], specials_[3 * i + 1],
                                                specials_[3 * i + 2]};
            if (counts.any()) return counts.value();
        }
        return detail::rounded({limbs_.data() + i * width_, width_}, first_);
    }

    /// The window: limbs [first, last) of the fixed-point number, limb k weighing
    /// 2^(32 k - 1074); {68, 0} before any term, so that the union of windows is the least first
    /// and the greatest last.
    std::pair<std::size_t, std::size_t> window() const {
        return width_ == 0 ? std::pair{detail::limb_total, std::size_t{0}}
                           : std::pair{first_, first_ + width_};
    }
    /// Makes the window take limbs [first, last) (last <= 68) besides its own, moving each sum's
    /// limbs to their new places.
    void cover(std::size_t first, std::size_t last) {
        if (width_ != 0) {
            first = std::min(first, first_);
            last = std::max(last, first_ + width_);
        }
        last = std::min(last, detail::limb_total);
        if (first >= last || (first == first_ && last - first == width_)) return;
        const std::size_t width = last - first;
        std::vector<std::int64_t> moved(count_ * width);
        for (std::size_t i = 0; width_ != 0 && i < count_; ++i)
            std::copy_n(limbs_.begin() + static_cast<std::ptrdiff_t>(i * width_), width_,
                        moved.begin() + static_cast<std::ptrdiff_t>(i * width + (first_ - first)));
        limbs_ = std::move(moved);
        first_ = first;
        width_ = width;
    }
    /// Moves the limbs' carries up, as add() does every 2^30 terms: each limb ends in [0, 2^32)
    /// but each sum's last, which keeps the sign.
    void normalize() {
        for (std::size_t i = 0; i < count_; ++i)
            detail::carry({limbs_.data() + i * width_, width_});
        pending_ = 0;
    }
    /// Every sum's limbs over the window, sum i's at [i w, (i + 1) w) for the window's width w.
    std::span<std::int64_t> limbs() { return limbs_; }
    /// Every sum's counts of NaN, +infinity and -infinity terms, three a sum; empty before the
    /// first such term or make_special_counts().
    std::span<const std::int64_t> special_counts() const { return specials_; }
    /// The same, made (as zeros) if empty, to be added into.
    std::span<std::int64_t> make_special_counts() {
        if (specials_.empty()) specials_.resize(3 * count_);
        return specials_;
    }

private:
    void count_special(std::size_t i, detail::placed_term::kind_t kind) {
        make_special_counts();
        ++specials_[3 * i + (kind == detail::placed_term::nan                 ? 0
                             : kind == detail::placed_term::positive_infinity ? 1
                                                                              : 2)];
    }

    std::size_t count_;
    std::size_t first_ = 0, width_ = 0;
    std::vector<std::int64_t> limbs_;    // sum i's limbs at [i width_, (i + 1) width_)
    std::vector<std::int64_t> specials_; // empty before the first NaN or infinity
    std::uint32_t pending_ = 0;
};

} // namespace zg::parallel
