// zerograd/tape/scope.hpp: scopes, which reclaim what a thread recorded while they lived.
#pragma once

#include "zerograd/tape/tape.hpp"

#include <cstdint>

namespace zg::tape {

namespace detail {
/// A recording that zg::tape::scope reclaims beside the scalar tape: the calling thread's tensor
/// tape registers here when it is made. Until then it is empty, so a scope costs tape mode alone
/// one thread_local read.
struct scope_companion {
    std::uint32_t (*mark)() = nullptr;
    void (*rewind)(std::uint32_t) = nullptr;
};
inline thread_local scope_companion this_thread_scope_companion;
} // namespace detail

/// Reclaims, when it ends, every node the thread recorded on its tape for T since it began, and
/// the thread's tensors made meanwhile; variables made before it (a model's parameters) live on.
/// Every gradient call records inside one, so that it reclaims what its function recorded on
/// either tape.
template <class T>
class basic_scope {
public:
    basic_scope() : basic_scope(this_thread_tape<T>()) {}
    explicit basic_scope(basic_tape<T>& tape)
        : tape_(tape), mark_(tape.mark()), rewinds_(tape.rewinds()), adoption_(tape.adoption()),
          tensor_mark_(mark_tensors()) {
        tape.reserve_rewind();
    }
    basic_scope(const basic_scope&) = delete;
    basic_scope& operator=(const basic_scope&) = delete;
    /// Throws zg::error, leaving the tape as it was, if ended on a thread other than the tape's
    /// (unless an exception is already on its way: then it only leaves the tape alone).
    ~basic_scope() noexcept(false) {
        if (!on_its_thread()) [[unlikely]] {
            zg::detail::scope_ended_elsewhere("zg::tape::scope");
            return;
        }
        // Scopes ended out of order are handled: see rewind_since.
        tape_.rewind_since(mark_, rewinds_);
        // A thread whose tensor tape was made inside this scope rewinds it to its start, 0.
        if (const auto rewind = detail::this_thread_scope_companion.rewind) rewind(tensor_mark_);
    }

    /// The first node recorded inside this scope.
    typename basic_tape<T>::index_type first() const { return mark_.nodes; }

private:
    /// Whether the calling thread is the one that made this scope: it records on the tape, and
    /// has since the scope began (a thread that ended left the tape to another).
    bool on_its_thread() const { return tape_.on_this_thread() && tape_.adoption() == adoption_; }

    static std::uint32_t mark_tensors() {
        const auto mark = detail::this_thread_scope_companion.mark;
        return mark ? mark() : 0;
    }

    basic_tape<T>& tape_;
    typename basic_tape<T>::mark_type mark_;
    std::uint64_t rewinds_;
    std::uint64_t adoption_;
    std::uint32_t tensor_mark_;
};

/// Reclaims, when it ends, everything the thread recorded since it began: zg::var nodes and
/// zg::tensor nodes (as zg::tensor::scope does); variables and tensors made before it (a model's
/// parameters) live on. Use one per training step to keep memory flat.
///
///     zg::var w = 0.5;
///     for (int step = 0; step < 100; ++step) {
///         zg::tape::scope step_scope;
///         zg::var loss = square(w * 3.0 - 1.0);
///         loss.backward();
///         w.data() -= 0.01 * w.grad();
///         w.grad() = 0;
///     } // loss's nodes are reclaimed here; using `loss` afterwards throws zg::dangling_var
class scope : public basic_scope<double> {
public:
    using basic_scope::basic_scope;
};

} // namespace zg::tape
