// zerograd/tape/lifetimes.hpp: node_lifetimes, which tells a tape's live nodes from those a rewind
// (or the end of a thread) reclaimed, and which thread records on the tape.
#pragma once

#include "zerograd/core/thread_object.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace zg::tape::detail {

/// A variable carries the tape's stamp (its count of rewinds) from when its node was recorded,
/// and the tape remembers how far back the rewinds since then reached, so a variable that names
/// a reclaimed (and maybe reused) slot is detected instead of read. Nodes carry no stamp: that
/// is one store and 4 bytes less per node.
class node_lifetimes {
public:
    using index_type = std::uint32_t;

    /// The stamp of nodes recorded now: the number of rewinds so far, modulo 2^32.
    std::uint32_t stamp() const { return static_cast<std::uint32_t>(rewinds_); }

    /// Whether node i, recorded under `stamp`, is still one of the `size` nodes recorded: no
    /// rewind since reclaimed it. (A handle older than 2^32 rewinds is taken for a younger one.)
    bool holds(index_type i, std::uint32_t stamp, index_type size) const {
        // Recorded by a thread that ended, before this tape's thread adopted it: gone.
        if (std::uint32_t(this->stamp() - stamp) > rewinds_ - adopted_) return false;
        // Below every mark rewound to, as a model's parameters usually are: never reclaimed.
        // (reaches_ rises, so its first entry holds the lowest mark of all rewinds.)
        if (reaches_.empty() || i < reaches_.front().nodes) return i < size;
        return holds_after_rewinds(i, stamp, size);
    }

    /// Notes a rewind to `nodes` nodes and `operands` operand entries.
    void rewound(index_type nodes, std::size_t operands) {
        // A node recorded before rewind k is gone if any rewind from k on reached back to it:
        // only the lowest of those marks matters, so a rewind replaces the later ones that went
        // back no further. reaches_ then rises in both fields; a loop that rewinds to one mark
        // keeps one entry.
        while (!reaches_.empty() && reaches_.back().nodes >= nodes)
            reaches_.pop_back();
        reaches_.push_back({rewinds_, nodes, operands});
        ++rewinds_;
    }
    /// The number of rewinds so far.
    std::uint64_t rewinds() const { return rewinds_; }
    /// The lowest point that a rewind from the `first`-th on went back to, if there was one:
    /// `nodes` nodes and `operands` operand entries.
    template <class Mark>
    std::optional<Mark> lowest_rewind_since(std::uint64_t first) const {
        if (first == rewinds_) return std::nullopt; // none since, as usual: no search
        const auto since = first_kept_since(first);
        if (since == reaches_.end()) return std::nullopt;
        return Mark{since->nodes, since->operands};
    }
    /// Makes room for one more rewind's record, so that a rewind at the end of a scope made now
    /// does not allocate (scopes end in destructors).
    void reserve_rewind() { reaches_.reserve(reaches_.size() + 1); }

    /// The thread recording on the tape.
    const void* owner() const { return owner_; }
    /// Which thread's turn on the tape this is: it changes when a thread adopts it.
    std::uint64_t adoption() const { return adopted_; }
    /// Its thread ended: every node is gone.
    void retire() {
        ++rewinds_;
        reaches_ = {};
    }
    /// A new thread takes the tape over: what was recorded before is gone.
    void adopt() {
        adopted_ = rewinds_;
        owner_ = zg::detail::this_thread_id();
    }

private:
    /// holds() for a node at or above a mark rewound to, out of line: every operation checks its
    /// operands, and carries a call instead of this search.
    [[gnu::noinline]] bool holds_after_rewinds(index_type i, std::uint32_t stamp,
                                               index_type size) const {
        if (i >= size) return false;
        const auto since = first_kept_since(rewinds_ - std::uint32_t(this->stamp() - stamp));
        return since == reaches_.end() || i < since->nodes;
    }

    struct reach {
        std::uint64_t rewind; // its number: it took the stamp from `rewind` to `rewind` + 1
        index_type nodes;     // the mark it went back to
        std::size_t operands; // and the operand entries kept there
    };

    /// The first rewind kept from the `first`-th on, which went back furthest of all since
    /// (see rewound).
    std::vector<reach>::const_iterator first_kept_since(std::uint64_t first) const {
        return std::lower_bound(
            reaches_.begin(), reaches_.end(), first,
            [](const reach& r, std::uint64_t rewind) { return r.rewind < rewind; });
    }
    std::uint64_t rewinds_ = 0;
    std::vector<reach> reaches_; // see rewound()
    std::uint64_t adopted_ = 0;  // rewinds_ when this tape's thread adopted it (see retire())
    const void* owner_ = zg::detail::this_thread_id();
};

} // namespace zg::tape::detail
