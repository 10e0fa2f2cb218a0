// zerograd/expr/memory/accumulate.hpp: the record of a sum swept as it is built, whose partials
// for adjoint 1 are scaled by the adjoint that arrives (accumulator).
#pragma once

#include "zerograd/core/config.hpp"
#include "zerograd/core/scalar.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/memory/sinks.hpp"
#include "zerograd/expr/tree/sweep.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace zg::expr::detail {

/// What a sum swept as it is built keeps (reduce/map_reduce.hpp): the partials of its value by
/// everything its elements reached, for adjoint 1. By scalar argument in `totals`; by the elements
/// of each vector argument in `partials` (the argument's own gradient when the sum claimed it, see
/// argument_state); by the persistent shared nodes reached, in `gathered`. Its sweep scales them by
/// the adjoint that arrives: what a hand-written adjoint of the loop does.
template <class T>
struct accumulator : immediate_target {
    frame<T>* owner;
    T* totals;
    T** partials;
    std::uint64_t claimed = 0; // `reached` (immediate_target) holds the vectors with partials
    gathered_use<T>* gathered = nullptr;
    gathered_states<T>* gathered_states_ = nullptr;
    typename sweep_context<T>::gathering_type gathering;
    // Most functions have a few arguments: their partials are kept here, cleared by stores
    // (a call to memset for each array took as long as a small sum's loop).
    static constexpr std::size_t inline_arguments = 8;
    std::array<T, inline_arguments> inline_totals; // the first n cleared
    std::array<T*, inline_arguments> inline_partials;

    /// Partials for the scalar arguments and for the vector arguments in `reached_vectors`,
    /// claiming their gradients if no other node writes there.
    accumulator(frame<T>& f, std::uint64_t reached_vectors)
        : immediate_target{[](immediate_target& self, std::uint64_t vectors) {
                               static_cast<accumulator&>(self).ensure(vectors);
                           },
                           0},
          owner(&f), gathering{&f, f.next_gathering()} {
        const std::size_t n = f.arguments().size();
        if (n <= inline_arguments) {
            totals = inline_totals.data();
            partials = inline_partials.data();
            for (std::size_t i = 0; i < n; ++i) {
                totals[i] = T(0);
                partials[i] = nullptr;
            }
        } else {
            totals = f.template zeroed<T>(n);
            partials = f.template zeroed<T*>(n);
        }
        if (f.claim(reached_vectors)) {
            claimed = reached_vectors;
            for (std::uint64_t bits = reached_vectors; bits != 0; bits &= bits - 1) {
                const auto i = std::size_t(std::countr_zero(bits));
                partials[i] = f.arguments()[i].gradient;
            }
            this->reached = reached_vectors;
        } else {
            ensure(reached_vectors);
        }
    }

    /// Where the sweeps of its elements go.
    sweep_context<T> context() { return {totals, partials, &gathering}; }

    /// After the elements' sweeps: the persistent nodes they reached hand over the adjoints
    /// they gathered (this sum's partials by them), and the partials it did not write into a
    /// gradient it claimed are noted as written when it is swept.
    void collect() {
        for (gathered_use<T>* use = gathering.first; use != nullptr; use = use->next) {
            use->partial = use->node->adjoint;
            use->node->adjoint = T(0);
        }
        gathered = gathering.first;
        gathered_states_ = gathering.states;
        owner->touch(this->reached & ~claimed);
    }

    /// Partials for the vector arguments in `reached` that have none yet. Called while the
    /// elements are swept too, whose memory is reused element after element: so from memory
    /// that lasts.
    void ensure(std::uint64_t wanted) {
        for (std::uint64_t bits = wanted & ~this->reached; bits != 0; bits &= bits - 1) {
            const auto i = std::size_t(std::countr_zero(bits));
            const std::size_t length = owner->arguments()[i].length;
            partials[i] = owner->template lasting<T>(length);
            std::fill_n(partials[i], length, T(0));
        }
        this->reached |= wanted;
    }

    /// The sweep: adjoint times every partial, into the sink.
    template <bool Strong, class Sink>
    void pass(const T& adjoint, Sink& sink) const {
        const std::size_t n = owner->arguments().size();
        for (std::size_t i = 0; i < n; ++i)
            if (!zg::detail::is_zero(totals[i]))
                sink.add_scalar(i, times<Strong>(adjoint, totals[i]));
        for (std::uint64_t bits = this->reached; bits != 0; bits &= bits - 1) {
            const auto i = std::size_t(std::countr_zero(bits));
            argument_state<T>& argument = owner->arguments()[i];
            if (claimed >> i & 1) {
                argument.scale += adjoint;
                argument.strong |= !zg::detail::is_finite(adjoint);
            } else {
                for (std::size_t k = 0; k < argument.length; ++k)
                    sink.add_element(i, k, times<Strong>(adjoint, partials[i][k]));
            }
        }
        for (const gathered_use<T>* use = gathered; use != nullptr; use = use->next)
            sink.shared(*use->node, times<Strong>(adjoint, use->partial));
        for (const gathered_states<T>* use = gathered_states_; use != nullptr; use = use->next)
            for (std::size_t k = 0; k < use->block->length; ++k)
                use->block->adjoints[k] += times<Strong>(adjoint, use->partials[k]);
    }
};

} // namespace zg::expr::detail
