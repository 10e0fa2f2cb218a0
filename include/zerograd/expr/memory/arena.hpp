// zerograd/expr/memory/arena.hpp: the call's scratch memory. Bump allocation in blocks that never
// move, the first on the caller's stack, the others from a pool each thread keeps between calls:
// after the first call, a call of the same size allocates nothing.
// Allocation is ZG_INLINE (a bump of a pointer at every shared node); running out of a block is
// noinline, rare and kept out of its way.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/thread_object.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace zg::expr {

namespace detail {

/// Blocks of scratch memory a thread keeps between calls: after the first call, a call of the
/// same size allocates nothing.
class block_pool {
public:
    struct block {
        std::byte* data;
        std::size_t size;
    };

    /// The smallest free block of at least `bytes`: the first that fits could be one a later
    /// request of the same call needs, which would then allocate on every other call.
    block take(std::size_t bytes) {
        std::size_t best = free_.size();
        for (std::size_t i = 0; i < free_.size(); ++i)
            if (free_[i].size >= bytes &&
                (best == free_.size() || free_[i].size < free_[best].size))
                best = i;
        if (best < free_.size()) {
            const block found = free_[best];
            free_.erase(free_.begin() + std::ptrdiff_t(best));
            return found;
        }
        const std::size_t size = std::max<std::size_t>(bytes, std::size_t{1} << 16);
        owned_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
        return {owned_.back().get(), size};
    }
    void give_back(block b) { free_.push_back(b); }

private:
    std::vector<std::unique_ptr<std::byte[]>> owned_;
    std::vector<block> free_;
};

} // namespace detail

/// Bump allocation in blocks that never move (so pointers into them stay valid), rewound to a
/// mark. The first block may be the caller's (on its stack); the others come from the thread's
/// pool and return to it when the arena ends.
class arena {
public:
    struct mark {
        std::size_t block = 0, used = 0;
    };

    constexpr arena() = default;
    constexpr arena(std::byte* first, std::size_t size) : callers_first_(true) {
        blocks_[0] = {first, size};
        count_ = 1;
    }
    arena(const arena&) = delete;
    arena& operator=(const arena&) = delete;
    ZG_INLINE constexpr ~arena() {
        if (std::is_constant_evaluated()) return; // nothing was allocated
        if (count_ > std::size_t(callers_first_)) [[unlikely]]
            give_back_blocks();
    }

    /// `bytes` of memory aligned for any scalar type.
    ZG_INLINE void* allocate(std::size_t bytes) {
        bytes = (bytes + alignment - 1) & ~(alignment - 1); // (callers keep bytes below 2^63)
        if (count_ == 0 || bytes > blocks_[current_].size - used_) [[unlikely]]
            move_to_a_block_with_room(bytes);
        void* p = blocks_[current_].data + used_;
        used_ += bytes;
        return p;
    }

    mark position() const { return {current_, used_}; }
    void rewind(mark m) {
        current_ = m.block;
        used_ = m.used;
    }

private:
    static constexpr std::size_t alignment = 16;
    static constexpr std::size_t max_blocks = 64; // each new block is at least twice the last

    // Out of line, both: only calls whose nodes outgrew the stack's block come here.
    [[gnu::noinline]] void give_back_blocks() {
        for (std::size_t i = callers_first_ ? 1 : 0; i < count_; ++i)
            zg::detail::this_thread_object<detail::block_pool>().give_back(blocks_[i]);
    }
    [[gnu::noinline]] void move_to_a_block_with_room(std::size_t bytes) {
        while (current_ + 1 < count_) {
            ++current_;
            used_ = 0;
            if (bytes <= blocks_[current_].size) return;
        }
        if (count_ == max_blocks) throw std::bad_alloc();
        const std::size_t last = count_ == 0 ? 0 : blocks_[count_ - 1].size;
        blocks_[count_] =
            zg::detail::this_thread_object<detail::block_pool>().take(std::max(bytes, 2 * last));
        current_ = count_++;
        used_ = 0;
    }

    detail::block_pool::block blocks_[max_blocks]; // the first count_ are set: no cost to clear
    std::size_t count_ = 0, current_ = 0, used_ = 0;
    bool callers_first_ = false;
};

} // namespace zg::expr
