// zerograd/tape/pinned.hpp: pinned_array, an array that grows without moving, for the values and
// adjoints of a tape's nodes: a reference from data() or grad() stays valid however many nodes
// are recorded after it.
#pragma once

#include "zerograd/core/error.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <new> // bad_alloc
#include <string>

namespace zg::tape::detail {

/// What pinned_array::grow throws past its reservation; the tape turns it into a zg::error that
/// says what it holds.
struct pinned_array_full : error {
    using error::error;
};

/// An array of up to `most` elements of T at an address that never changes. The first use
/// reserves address space for all of them (inaccessible, so it costs neither memory nor commit
/// charge); growing makes more of its pages readable and writable in place, where realloc
/// would copy or remap. If the system will not reserve that much (a `ulimit -v`), the
/// reservation is halved until it will, and growing past it is a zg::error.
template <class T>
class pinned_array {
public:
    explicit pinned_array(std::size_t most) : most_(most) {}
    pinned_array(const pinned_array&) = delete;
    pinned_array& operator=(const pinned_array&) = delete;
    ~pinned_array() { release(); }

    T* data() const { return data_; }

    /// Makes the first `wanted` elements usable, or as many as the reservation holds if that is
    /// at least `needed`, and returns how many are (zero the first time each page is touched);
    /// those already usable keep their values and their addresses.
    std::size_t grow(std::size_t wanted, std::size_t needed) {
        if (data_ == nullptr) reserve(needed);
        if (needed > reserved_)
            throw pinned_array_full("its reserved address space holds " +
                                    std::to_string(reserved_) + " nodes at most");
        const std::size_t count = std::min(wanted, reserved_);
        const std::size_t bytes = round_up(count * sizeof(T));
        if (bytes <= usable_bytes_) return count;
        if (::mprotect(reinterpret_cast<char*>(data_) + usable_bytes_, bytes - usable_bytes_,
                       PROT_READ | PROT_WRITE) != 0)
            throw std::bad_alloc();
        usable_bytes_ = bytes;
        return count;
    }

    /// Returns every page to the system; the next grow() reserves again.
    void release() {
        if (data_ != nullptr) ::munmap(data_, reserved_bytes_);
        data_ = nullptr;
        reserved_ = reserved_bytes_ = usable_bytes_ = 0;
    }

private:
    static std::size_t round_up(std::size_t bytes) {
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        return (bytes + page - 1) / page * page;
    }

    void reserve(std::size_t needed) {
        // Under an address-space limit (ulimit -v), an eighth of it: the other arrays of the
        // tape, and the program, need the rest.
        std::size_t most = most_;
        if (rlimit limit{}; ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
            most = std::min<std::size_t>(most, limit.rlim_cur / 8 / sizeof(T));
        for (std::size_t count = most;; count /= 2) {
            count = std::max(count, needed);
            const std::size_t bytes = round_up(count * sizeof(T));
            void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                             -1, 0);
            if (p != MAP_FAILED) {
                data_ = static_cast<T*>(p);
                reserved_ = count;
                reserved_bytes_ = bytes;
                return;
            }
            if (count == needed) throw std::bad_alloc();
        }
    }

    T* data_ = nullptr;
    std::size_t most_;
    std::size_t reserved_ = 0;       // elements the reservation holds
    std::size_t reserved_bytes_ = 0; // its length
    std::size_t usable_bytes_ = 0;   // the readable and writable part, from its start
};

} // namespace zg::tape::detail
