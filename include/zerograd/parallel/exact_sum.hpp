// zerograd/parallel/exact_sum.hpp: a sum of doubles whose result does not depend on the order of
// its terms or on how they were split between threads or processes. Each term is added exactly
// into a fixed-point number wide enough for any double, and the total is rounded once, to the
// nearest double. Floating-point addition, whose rounding depends on the order, cannot do that.
#pragma once

#include "zerograd/core/config.hpp"

#include <array>
#include <bit>
#include <cmath> // ldexp
#include <cstddef>
#include <cstdint>
#include <limits>

namespace zg::parallel {

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
        const auto bits = std::bit_cast<std::uint64_t>(x);
        const auto biased_exponent = static_cast<unsigned>((bits >> 52) & 0x7ff);
        const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
        const bool negative = (bits >> 63) != 0;
        if (biased_exponent == 0x7ff) {
            if (fraction != 0)
                ++nans_;
            else
                ++(negative ? negative_infinities_ : positive_infinities_);
            return;
        }
        if (bits << 1 == 0) return; // +0 or -0
        // x = significand * 2^(position - 1074), with position >= 0: subnormals have exponent 0.
        const std::uint64_t significand =
            biased_exponent == 0 ? fraction : fraction | (std::uint64_t{1} << 52);
        const unsigned position = biased_exponent == 0 ? 0 : biased_exponent - 1;
        const std::size_t limb = position / digit_bits;
        const unsigned shift = position % digit_bits;
        // The significand shifted into its place spans three digits at most (53 + 31 bits).
        const std::uint64_t low = (significand << shift) & digit_mask;
        const std::uint64_t rest = significand >> (digit_bits - shift);
        const auto sign = negative ? std::int64_t{-1} : std::int64_t{1};
        limbs_[limb] += sign * static_cast<std::int64_t>(low);
        limbs_[limb + 1] += sign * static_cast<std::int64_t>(rest & digit_mask);
        limbs_[limb + 2] += sign * static_cast<std::int64_t>(rest >> digit_bits);
        if (++pending_ == max_pending) carry();
    }

    /// Adds `other`'s terms to this sum, exactly.
    void merge(const exact_sum& other) {
        exact_sum addend = other;
        addend.carry();
        carry();
        for (std::size_t i = 0; i < limb_count; ++i)
            limbs_[i] += addend.limbs_[i];
        pending_ = 2; // each limb holds two normalized sums' digits
        nans_ += other.nans_;
        positive_infinities_ += other.positive_infinities_;
        negative_infinities_ += other.negative_infinities_;
    }

    /// The sum, rounded to the nearest double (ties to even); +0 for an exact zero.
    double value() const {
        if (nans_ != 0 || (positive_infinities_ != 0 && negative_infinities_ != 0))
            return std::numeric_limits<double>::quiet_NaN();
        if (positive_infinities_ != 0) return std::numeric_limits<double>::infinity();
        if (negative_infinities_ != 0) return -std::numeric_limits<double>::infinity();
        exact_sum total = *this;
        total.carry();
        const bool negative = total.limbs_[limb_count - 1] < 0;
        if (negative) { // the magnitude, in digits again
            for (std::int64_t& limb : total.limbs_)
                limb = -limb;
            total.carry();
        }
        std::size_t top = limb_count;
        while (top > 0 && total.limbs_[top - 1] == 0)
            --top;
        if (top == 0) return 0.0;
        const std::size_t k = top - 1;
        const auto digit = [&](std::size_t i) {
            return static_cast<std::uint64_t>(total.limbs_[i]);
        };
        // The 64 bits from the magnitude's leading one down, then one sticky bit for anything
        // lower, so that the conversion to double rounds as the exact number would.
        const auto lead = static_cast<unsigned>(std::countl_zero(digit(k))) - digit_bits;
        const std::uint64_t below = k >= 2 ? digit(k - 2) : 0;
        std::uint64_t head =
            (digit(k) << (digit_bits + lead)) | (k >= 1 ? digit(k - 1) << lead : 0);
        if (lead != 0) head |= below >> (digit_bits - lead);
        bool sticky = (below & ((std::uint64_t{1} << (digit_bits - lead)) - 1)) != 0;
        for (std::size_t i = 0; !sticky && i + 2 < k; ++i)
            sticky = total.limbs_[i] != 0;
        head |= sticky ? 1 : 0;
        // head's lowest bit weighs 2^(32 (k - 1) - lead - 1074).
        const int exponent =
            static_cast<int>(digit_bits * k) - static_cast<int>(digit_bits + lead) - 1074;
        const double magnitude = std::ldexp(static_cast<double>(head), exponent);
        return negative ? -magnitude : magnitude;
    }

private:
    static constexpr std::size_t limb_count = 68;
    static constexpr unsigned digit_bits = 32;
    static constexpr std::uint64_t digit_mask = (std::uint64_t{1} << digit_bits) - 1;
    static constexpr std::uint32_t max_pending = std::uint32_t{1} << 30;

    // Leaves every limb but the last in [0, 2^32); the last keeps the sign.
    void carry() {
        for (std::size_t i = 0; i + 1 < limb_count; ++i) {
            const std::int64_t up = limbs_[i] >> digit_bits; // floor division by 2^32
            limbs_[i] -= up * (std::int64_t{1} << digit_bits);
            limbs_[i + 1] += up;
        }
        pending_ = 0;
    }

    std::array<std::int64_t, limb_count> limbs_{};
    std::uint32_t pending_ = 0;
    std::int64_t nans_ = 0;
    std::int64_t positive_infinities_ = 0;
    std::int64_t negative_infinities_ = 0;
};

} // namespace zg::parallel
