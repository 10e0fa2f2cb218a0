// zerograd/expr/memory/frame.hpp: the call's frame, what one zg::grad call keeps beside the trees:
// the subexpressions its lambda uses several times (each kept once, swept once), the records of its
// reductions, and the bookkeeping of its vector arguments' gradients.
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/error.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/core/thread_object.hpp"
#include "zerograd/expr/memory/arena.hpp"
#include "zerograd/expr/memory/kept.hpp"
#include "zerograd/expr/tree/describe.hpp"
#include "zerograd/expr/tree/ends.hpp"
#include "zerograd/expr/tree/expression.hpp"
#include "zerograd/expr/tree/shape.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace zg::expr {

// ---- The frame ----------------------------------------------------------------------------------

/// What one zg::grad call keeps. Shared nodes made outside element functions (depth 0) live in
/// the persistent arena until the call ends; everything made inside element functions (depth
/// 1 and more) and the records of reductions live in the scoped arena, which a sum swept as it
/// is built rewinds after each element: its memory is the parameters and one element's
/// temporaries.
template <class T>
class frame {
public:
    /// A frame whose arenas start in `stack` (the caller's): a call whose nodes and records fit
    /// allocates nothing.
    frame(std::span<argument_state<T>> arguments, std::span<std::byte> stack, call_id call)
        : arguments_(arguments), persistent_(stack.data(), stack.size() / 2),
          scoped_(stack.data() + stack.size() / 2, stack.size() / 2), call_(call) {}
    /// A frame with no memory until something is kept in it.
    constexpr frame(std::span<argument_state<T>> arguments, call_id call)
        : arguments_(arguments), call_(call) {}
    frame(const frame&) = delete;
    frame& operator=(const frame&) = delete;
    constexpr ~frame() {
        if (held_spilled_ != nullptr) [[unlikely]]
            detail::release_held_memory(held_spilled_);
        if (std::is_constant_evaluated()) {
            for (shared_base<T>* node = persistent_last_; node != nullptr;) {
                shared_base<T>* previous = node->previous;
                node->destroy(node);
                node = previous;
            }
            for (held_base* box = held_last_; box != nullptr;) {
                held_base* previous = box->previous;
                box->destroy(box);
                box = previous;
            }
        }
    }

    /// Keeps a copy of `tree` for a held_expr, as long as expressions built now live: to the end
    /// of the call outside element functions, to the end of the element inside them.
    template <class Tree>
    constexpr const Tree* hold(const Tree& tree) {
        if (std::is_constant_evaluated()) {
            auto* box = new held_box<Tree>{{held_last_, nullptr}, tree};
            box->destroy = [](held_base* p) { delete static_cast<held_box<Tree>*>(p); };
            held_last_ = box;
            return &box->tree;
        }
        static_assert(std::is_trivially_destructible_v<Tree>);
        if (depth_ != 0 || held_end_ == nullptr)
            return ::new (held_frame_memory(sizeof(Tree))) Tree(tree);
        // A call that keeps no frame gave memory of its own (hold_on), the first of it on the
        // caller's stack: none of it needs the frame's address, which the compiler can then keep
        // out of memory, and with it the held trees of a call that it inlines whole.
        constexpr std::size_t bytes = (sizeof(Tree) + 15) & ~std::size_t(15);
        if (std::size_t(held_end_ - held_next_) < bytes) [[unlikely]] {
            held_spilled_ = detail::more_held_memory(bytes, held_spilled_);
            held_next_ = reinterpret_cast<std::byte*>(held_spilled_ + 1);
            held_end_ = held_spilled_->self.data + held_spilled_->self.size;
        }
        void* memory = held_next_;
        held_next_ += bytes;
        return ::new (memory) Tree(tree);
    }
    /// Memory on the caller's stack for the trees held at the top level (see hold).
    void hold_on(std::span<std::byte> stack) {
        held_next_ = stack.data();
        held_end_ = stack.data() + stack.size();
    }

    /// Keeps `tree` once, evaluated, for expressions built at `depth`.
    template <class Tree>
    constexpr shared_node<Tree>* share(const Tree& tree, std::uint32_t depth) {
        shared_node<Tree>* node;
        if (std::is_constant_evaluated()) {
            node = new shared_node<Tree>(tree);
            node->destroy = [](shared_base<T>* p) { delete static_cast<shared_node<Tree>*>(p); };
        } else {
            static_assert(std::is_trivially_destructible_v<shared_node<Tree>>);
            void* memory = depth == 0 ? persistent_.allocate(sizeof(shared_node<Tree>))
                                      : scoped_allocate(sizeof(shared_node<Tree>));
            node = ::new (memory) shared_node<Tree>(tree);
        }
        evaluate(tree, node->values.data());
        node->value = value_at(tree, node->values.data());
        node->sweep = &sweep_shared<Tree>;
        node->describe = [](const shared_base<T>& base, description& out) {
            const auto& n = static_cast<const shared_node<Tree>&>(base);
            return expr::describe(n.tree, n.values.data(), out);
        };
        node->persistent = depth == 0;
        shared_base<T>*& last = depth == 0 ? persistent_last_ : scoped_last_;
        node->previous = last;
        last = node;
        touch(leaves_of<Tree>.vectors);
        return node;
    }

    /// Memory for a node kept in this frame at the current depth (a reduction's record), which
    /// keep() links once it is built.
    template <class Record>
    Record* place() {
        static_assert(std::is_trivially_destructible_v<Record>);
        return static_cast<Record*>(depth_ == 0 ? persistent_.allocate(sizeof(Record))
                                                : scoped_allocate(sizeof(Record)));
    }

    /// Links a node built in place() memory into the list of the current depth, after the nodes
    /// it made while it was built. Its uses gather its adjoint; the list's sweep passes the
    /// adjoint to `record.template sweep_with<Strong>(adjoint, context)`, Strong where the
    /// adjoint may be infinite.
    template <class Record>
    void keep(Record* record) {
        if constexpr (requires { &Record::sweep_node; }) {
            record->sweep = &Record::sweep_node; // adjoints of its own (a zg::scan's states)
        } else {
            record->sweep = [](shared_base<T>& base, sweep_context<T>& context) {
                auto& self = static_cast<Record&>(base);
                const T adjoint = std::exchange(self.adjoint, T(0));
                if (zg::detail::is_zero(adjoint)) return; // nothing depends on it
                if (zg::detail::is_finite(adjoint))
                    self.template sweep_with<false>(adjoint, context);
                else
                    self.template sweep_with<true>(adjoint, context);
            };
        }
        record->describe = [](const shared_base<T>& base, description& out) {
            described_node node;
            node.label = std::string(Record::name);
            node.value = detail::number(zg::detail::primal(base.value));
            out.push_back(std::move(node));
            return out.size() - 1;
        };
        record->persistent = depth_ == 0;
        shared_base<T>*& last = depth_ == 0 ? persistent_last_ : scoped_last_;
        record->previous = last;
        last = record;
    }

    /// The call this frame belongs to (see call_id).
    constexpr call_id call() const { return call_; }

    // -- depth: element functions being built --

    constexpr std::uint32_t depth() const { return depth_; }

    /// Entered while a reduction calls its element function: nodes built there belong to it.
    /// `immediate`: the reduction sweeps each element as it is built, into a record of its own.
    struct element_scope {
        frame& owner;
        immediate_target* previous;
        element_scope(frame& f, immediate_target* immediate) : owner(f), previous(f.immediate_) {
            ++owner.depth_;
            if (immediate != nullptr) owner.immediate_ = immediate;
        }
        element_scope(const element_scope&) = delete;
        element_scope& operator=(const element_scope&) = delete;
        ~element_scope() {
            --owner.depth_;
            owner.immediate_ = previous;
        }
    };

    /// Calls body, which calls element functions: an exception from them marks the frame
    /// abandoned on its way out. (A handler costs nothing until something is thrown.)
    template <class Body>
    ZG_INLINE decltype(auto) guarded(Body&& body) {
        try {
            return body();
        } catch (...) {
            abandoned_ = true;
            throw;
        }
    }
    /// Whether an exception left an element function (of zg::sum(range, fn), zg::log_sum_exp(range,
    /// fn), zg::scan) during the call. The elements differentiated before it cannot be taken
    /// back: if f caught it and returned, the call reports it (see check_not_abandoned).
    bool abandoned() const { return abandoned_; }

    // -- the scoped arena and list --

    struct scoped_mark {
        arena::mark memory;
        shared_base<T>* last;
    };
    scoped_mark scoped_position() const { return {scoped_.position(), scoped_last_}; }
    void rewind(const scoped_mark& m) {
        scoped_.rewind(m.memory);
        scoped_last_ = m.last;
    }
    shared_base<T>* scoped_last() const { return scoped_last_; }
    /// Whether anything was made in the scoped arena since the mark.
    bool scoped_changed(const scoped_mark& m) const {
        const arena::mark now = scoped_.position();
        return now.block != m.memory.block || now.used != m.memory.used || scoped_last_ != m.last;
    }
    constexpr shared_base<T>* persistent_last() const { return persistent_last_; }

    /// n values of U from the scoped arena, uninitialized, or zeroed.
    template <class U>
    U* scratch(std::size_t n) {
        static_assert(std::is_trivially_destructible_v<U>);
        return static_cast<U*>(scoped_allocate(bytes_of<U>(n)));
    }
    /// n values of U, uninitialized, that last as long as nodes built now: to the end of the call
    /// outside element functions, to the end of the element inside them.
    template <class U>
    U* scratch_lasting(std::size_t n) {
        static_assert(std::is_trivially_destructible_v<U>);
        return static_cast<U*>(depth_ == 0 ? persistent_.allocate(bytes_of<U>(n))
                                           : scoped_allocate(bytes_of<U>(n)));
    }
    template <class U>
    U* zeroed(std::size_t n) {
        U* p = scratch<U>(n);
        std::fill_n(p, n, U{});
        return p;
    }
    /// Memory that lives to the end of the call whatever the depth.
    template <class U>
    U* lasting(std::size_t n) {
        return static_cast<U*>(persistent_.allocate(bytes_of<U>(n)));
    }

    // -- the arguments' gradients --

    std::span<argument_state<T>> arguments() const { return arguments_; }

    /// Notes that nodes built now write into the gradients of the vector arguments `vectors`
    /// when swept. Inside a reduction swept as it is built, they write into its record instead,
    /// which must then hold partials for them.
    ZG_INLINE constexpr void touch(std::uint64_t vectors) {
        if (immediate_ != nullptr) {
            if ((vectors & ~immediate_->reached) != 0) immediate_->reach(*immediate_, vectors);
            return;
        }
        for (std::uint64_t bits = vectors; bits != 0; bits &= bits - 1) {
            argument_state<T>& a = arguments_[std::size_t(std::countr_zero(bits))];
            a.shared |= a.touched;
            a.touched = true;
        }
    }
    /// Whether a reduction built now may claim the gradients of `vectors` (see claim).
    bool claimable(std::uint64_t vectors) const {
        if (immediate_ != nullptr) return false;
        for (std::uint64_t bits = vectors; bits != 0; bits &= bits - 1)
            if (arguments_[std::size_t(std::countr_zero(bits))].touched) return false;
        return true;
    }
    /// Claims the gradients of `vectors` for a reduction built now, if no other node writes
    /// into them.
    bool claim(std::uint64_t vectors) {
        if (immediate_ != nullptr || vectors == 0) return false;
        for (std::uint64_t bits = vectors; bits != 0; bits &= bits - 1)
            if (arguments_[std::size_t(std::countr_zero(bits))].touched) return false;
        for (std::uint64_t bits = vectors; bits != 0; bits &= bits - 1) {
            argument_state<T>& a = arguments_[std::size_t(std::countr_zero(bits))];
            a.touched = a.claimed = true;
        }
        return true;
    }
    /// A new number for a gathering: the nodes it notes remember it.
    std::uint32_t next_gathering() { return ++gatherings_; }

private:
    ZG_INLINE void* scoped_allocate(std::size_t bytes) { return scoped_.allocate(bytes); }
    // Memory for a held tree in the frame's arenas, as for a shared node. Out of line, so that
    // a frame that keeps nothing (sweep_frameless) need not be in memory for it.
    [[gnu::noinline]] void* held_frame_memory(std::size_t bytes) {
        return depth_ == 0 ? persistent_.allocate(bytes) : scoped_allocate(bytes);
    }
    /// The bytes of n values of U; more than memory holds (a range whose size wrapped around)
    /// is std::bad_alloc, not a product that wraps around too.
    template <class U>
    static std::size_t bytes_of(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / (2 * sizeof(U))) throw std::bad_alloc();
        return n * sizeof(U);
    }

    template <class Tree>
    static constexpr void sweep_shared(shared_base<T>& base, sweep_context<T>& context);

    std::span<argument_state<T>> arguments_;
    arena persistent_, scoped_;
    call_id call_;
    shared_base<T>* persistent_last_ = nullptr;
    shared_base<T>* scoped_last_ = nullptr;
    // In constant evaluation, where held trees are new'd: the latest (see hold).
    struct held_base {
        held_base* previous;
        void (*destroy)(held_base*);
    };
    template <class Tree>
    struct held_box : held_base {
        Tree tree;
    };
    held_base* held_last_ = nullptr;
    std::byte* held_next_ = nullptr;
    std::byte* held_end_ = nullptr;
    detail::held_spill* held_spilled_ = nullptr; // the last block hold took, if any
    immediate_target* immediate_ = nullptr; // the innermost reduction swept as it is built
    std::uint32_t depth_ = 0, gatherings_ = 0;
    bool abandoned_ = false;
};

// Cold and out of line: the error path of every call that keeps a frame.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_abandoned(std::string_view call) {
    throw error("zg::" + std::string(call) +
                ": an exception from the element function of zg::sum(range, fn), "
                "zg::log_sum_exp(range, fn) or zg::scan was caught inside f, which then "
                "returned; the elements differentiated before it cannot be taken back. Let the "
                "exception leave f, or use tape mode");
}

/// Throws where f caught an exception from an element function and returned (frame::abandoned).
template <class T>
ZG_INLINE void check_not_abandoned(const frame<T>& f, const char* call) {
    if (f.abandoned()) [[unlikely]]
        throw_abandoned(call);
}

/// What an empty map-reduce stands for (a sum over c < r at r = 0): a node of value 0, or -inf
/// for a log-sum-exp, in no list, whose adjoint nothing reads (one per thread: uses add to it).
template <class T>
shared_base<T>* empty_reduction(bool log_sum_exp) {
    thread_local shared_base<T> sum{}, log_sum{T(-std::numeric_limits<double>::infinity())};
    return log_sum_exp ? &log_sum : &sum;
}

/// The frame of the zg::grad call in progress on this thread, for verbs with no expression to
/// find it from (zg::sum over a range of integers).
template <class T>
inline thread_local frame<T>* current_frame = nullptr;

} // namespace zg::expr
