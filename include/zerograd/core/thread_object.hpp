// zerograd/core/thread_object.hpp: one object of a type per thread (a tape, expression mode's call
// context), made on first use. A call context is destroyed when its thread ends; a tape, which
// handles may still name afterwards, is retired and kept for the next thread.
#pragma once

#include "zerograd/core/config.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace zg::detail {

/// Makes the calling thread's T, out of line (once per thread). Only this cold path touches a
/// thread_local with a destructor: the pointer that this_thread_object reads is trivially
/// destructible, so reading it needs no initialization guard.
template <class T>
[[gnu::noinline]] T* make_thread_object() {
    static thread_local std::unique_ptr<T> owner;
    owner = std::make_unique<T>();
    return owner.get();
}

/// Gives the calling thread a T that outlives it: when the thread ends, T::retire() reclaims what
/// the thread left on it (handles naming that report it) and the object waits for the next
/// thread, which calls T::adopt(). A T is never destroyed, so no handle points to freed memory,
/// and there are never more of them than threads alive at once. Out of line: once per thread.
template <class T>
[[gnu::noinline]] T* adopt_thread_object() {
    struct pool_type {
        std::mutex mutex;
        std::vector<T*> retired;
    };
    static pool_type& pool = *new pool_type; // never destroyed: a thread may end after statics
    struct lease {
        T* object = nullptr;
        ~lease() {
            object->retire();
            const std::lock_guard lock(pool.mutex);
            pool.retired.push_back(object);
        }
    };
    static thread_local lease held;
    {
        const std::lock_guard lock(pool.mutex);
        if (!pool.retired.empty()) {
            held.object = pool.retired.back();
            pool.retired.pop_back();
        }
    }
    if (held.object == nullptr)
        held.object = new T();
    else
        held.object->adopt();
    return held.object;
}

template <class T>
inline thread_local T* thread_object = nullptr;

/// An address of the calling thread's own, telling threads apart for the price of an address
/// computation: a tape keeps its thread's, and each operation compares it with the caller's.
inline thread_local const char this_thread_marker = 0;
inline const void* this_thread_id() { return &this_thread_marker; }

/// The calling thread's T.
template <class T>
T& this_thread_object() {
    if (thread_object<T> == nullptr) [[unlikely]]
        thread_object<T> = make_thread_object<T>();
    return *thread_object<T>;
}

/// The calling thread's T, a T that outlives the thread (see adopt_thread_object).
template <class T>
T& this_thread_lasting_object() {
    if (thread_object<T> == nullptr) [[unlikely]]
        thread_object<T> = adopt_thread_object<T>();
    return *thread_object<T>;
}

} // namespace zg::detail
