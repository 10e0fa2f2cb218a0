// zerograd/tape/move_only_function.hpp: a callable held by value that need not be copyable (C++23's
// std::move_only_function, for C++20), so that a black box's vector-Jacobian product may own what
// cannot be copied: a factorisation behind a std::unique_ptr.
#pragma once

#include <concepts>
#include <functional> // std::invoke
#include <type_traits>
#include <utility>

namespace zg::tape::detail {

template <class Signature>
class move_only_function;

/// Owns a callable of any type on the heap, through two function pointers (no virtual calls):
/// one calls it, one destroys it. Movable, not copyable.
template <class R, class... Args>
class move_only_function<R(Args...)> {
public:
    move_only_function() = default;
    template <class F>
        requires(!std::same_as<std::decay_t<F>, move_only_function> &&
                 std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
    move_only_function(F&& f) // NOLINT: converts as std::function does
        : object_(new std::decay_t<F>(std::forward<F>(f))), call_(&call<std::decay_t<F>>),
          destroy_(&destroy<std::decay_t<F>>) {}
    move_only_function(move_only_function&& other) noexcept
        : object_(std::exchange(other.object_, nullptr)), call_(other.call_),
          destroy_(other.destroy_) {}
    move_only_function& operator=(move_only_function&& other) noexcept {
        if (this != &other) {
            reset();
            object_ = std::exchange(other.object_, nullptr);
            call_ = other.call_;
            destroy_ = other.destroy_;
        }
        return *this;
    }
    move_only_function(const move_only_function&) = delete;
    move_only_function& operator=(const move_only_function&) = delete;
    ~move_only_function() { reset(); }

    explicit operator bool() const { return object_ != nullptr; }
    R operator()(Args... args) { return call_(object_, std::forward<Args>(args)...); }

private:
    template <class F>
    static R call(void* f, Args... args) {
        return std::invoke(*static_cast<F*>(f), std::forward<Args>(args)...);
    }
    template <class F>
    static void destroy(void* f) {
        delete static_cast<F*>(f);
    }
    void reset() {
        if (object_ != nullptr) destroy_(object_);
        object_ = nullptr;
    }

    void* object_ = nullptr;
    R (*call_)(void*, Args...) = nullptr;
    void (*destroy_)(void*) = nullptr;
};

} // namespace zg::tape::detail
