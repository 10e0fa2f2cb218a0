// zerograd/core/thread_object.hpp: one object of a type per thread (a tape, expression mode's call
// context), made on first use and destroyed when the thread ends.
#pragma once

#include <memory>

namespace zg::detail {

/// Makes the calling thread's T. Only this cold path touches a thread_local with a destructor:
/// the pointer that this_thread_object reads is trivially destructible, so reading it needs no
/// initialization guard.
template <class T>
[[gnu::noinline]] T* make_thread_object() {
    static thread_local std::unique_ptr<T> owner;
    owner = std::make_unique<T>();
    return owner.get();
}

template <class T>
inline thread_local T* thread_object = nullptr;

/// The calling thread's T.
template <class T>
T& this_thread_object() {
    if (thread_object<T> == nullptr) [[unlikely]]
        thread_object<T> = make_thread_object<T>();
    return *thread_object<T>;
}

} // namespace zg::detail
