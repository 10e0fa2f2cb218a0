// bench/harness.hpp: what the suite's translation units share. A case at one size is a point, the
// plain function, a hand-written gradient and the modes compared with it; the harness checks each
// mode against the hand-written gradient and times it, one size at a time, smallest first, so
// that no mode is timed after a larger recording than its own (tools whose tapes keep what the
// largest recording left are measured as they run alone).
#pragma once

#include <zerograd/tape.hpp>

#include "suite_torch.hpp" // gradient_function

#ifdef ZG_HAVE_ADOLC
#include <adolc/adolc.h>
#endif
#ifdef ZG_HAVE_SACADO
#include <Sacado.hpp> // built with TRILINOS_NO_CONFIG_H, as Debian's headers need
#endif

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace bench {

/// One way of computing the gradient, checked against the hand-written one to `tolerance`.
struct mode {
    std::string name;
    gradient_function run;
    double tolerance = 1e-10;
};

/// A case at one size: benchmarks suite/<name>/<mode>/<n>. Every mode returns its gradient (or
/// flattened Jacobian) of `outputs` numbers in a new std::vector; the hand-written one is given
/// a vector of that size, as zg::grad's result is one allocation.
struct sized_case {
    std::string name;
    std::size_t n = 0;
    std::vector<double> x;
    std::function<double(std::span<const double>)> plain; // none: no `double` benchmark
    gradient_function hand;
    std::vector<mode> modes;
    std::size_t outputs = 0;     // 0: x.size()
    bool measure_memory = false; // each mode's peak resident memory, in a process of its own
};

/// Registers every case's benchmarks, ordered by n (smallest first, in the given order among
/// equal n). Each benchmark checks its mode against the hand-written gradient on its first run,
/// then counts what one call allocates, then times.
void register_cases(std::vector<sized_case> cases);

/// Checks every mode of every case against the hand-written gradient, smallest n first, without
/// timing: returns 0, or 1 after naming the first disagreement.
int check_cases(std::vector<sized_case> cases);

/// For suite/<case>/<mode>/<n>: runs the hand-written gradient once (making any data the case
/// makes on first use), then the mode once, and prints the growth of resident memory the mode
/// caused, in bytes: run in a process of its own, so that nothing else was resident before.
/// Returns 0, or 1 for an unknown benchmark.
int probe_memory(const std::vector<sized_case>& cases, const std::string& benchmark);

/// What the last tape-mode gradient recorded (read before its sweep): nodes, leaves included,
/// and the bytes they hold.
struct recording_size {
    std::size_t nodes = 0, bytes = 0;
};
extern recording_size last_recording;

/// zg::tape::value_and_grad, noting in last_recording what f recorded.
template <class F, class... Args>
auto recorded_value_and_grad(F f, const Args&... args) {
    auto& tape = zg::tape::this_thread_tape();
    const std::size_t nodes = tape.size(), bytes = tape.bytes_used();
    return zg::tape::value_and_grad(
        [&](const auto&... leaves) {
            auto result = f(leaves...);
            last_recording = {tape.size() - nodes, tape.bytes_used() - bytes};
            return result;
        },
        args...);
}

/// The peers' reverse modes from a case's loop form, `loop(std::span<const T> v, x)` (x: the point
/// as doubles) returning T (the value itself: a peer's expression type returned by value would
/// leave its recording behind):
/// ADOL-C records a trace and sweeps it; Sacado's Rad records and sweeps. Recording is inside
/// the timed call, as tape mode's is.
template <class Loop>
void add_peers(std::vector<mode>& modes, Loop loop) {
#ifdef ZG_HAVE_ADOLC
    modes.push_back({"adolc", [loop](std::span<const double> x, std::vector<double>& g) {
                         constexpr short tag = 1;
                         trace_on(tag);
                         std::vector<adouble> v(x.size());
                         for (std::size_t i = 0; i < x.size(); ++i)
                             v[i] <<= x[i];
                         adouble y = loop(std::span<const adouble>(v), x);
                         double value;
                         y >>= value;
                         trace_off();
                         g.resize(x.size());
                         gradient(tag, int(x.size()), x.data(), g.data());
                         return value;
                     }});
#endif
#ifdef ZG_HAVE_SACADO
    modes.push_back({"sacado", [loop](std::span<const double> x, std::vector<double>& g) {
                         using rad = Sacado::Rad::ADvar<double>;
                         std::vector<rad> v(x.begin(), x.end());
                         const rad y = loop(std::span<const rad>(v), x);
                         rad::Gradcomp(); // sweeps, then frees the recording
                         g.resize(x.size());
                         for (std::size_t i = 0; i < x.size(); ++i)
                             g[i] = v[i].adj();
                         return y.val();
                     }});
#endif
    (void)modes;
    (void)loop;
}

/// Moves a mode's gradient (a std::tuple holding one std::vector) into `out`.
template <class Result>
double unpack(Result&& result, std::vector<double>& out) {
    out = std::move(std::get<0>(result.grad));
    return result.value;
}

/// A mode's result whose gradient is a std::tuple of parts (vectors and numbers): the parts in a
/// row in g, in one allocation as the hand-written gradient's (`size` numbers); returns the
/// value.
template <class Result>
double flatten(const Result& result, std::vector<double>& g, std::size_t size) {
    g.clear();
    g.reserve(size);
    std::apply(
        [&](const auto&... parts) {
            (
                [&] {
                    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(parts)>>)
                        g.push_back(parts);
                    else
                        g.insert(g.end(), parts.begin(), parts.end());
                }(),
                ...);
        },
        result.grad);
    return result.value;
}

/// Tape mode from a case's loop form (see add_peers), its recording noted in last_recording.
template <class Loop>
void add_tape_mode(std::vector<mode>& modes, Loop loop) {
    modes.push_back({"tape", [loop](std::span<const double> x, std::vector<double>& g) {
                         return unpack(recorded_value_and_grad(
                                           [&](std::span<const zg::var> v) { return loop(v, x); },
                                           x),
                                       g);
                     }});
}

/// The models' cases, from their own translation units: ADBench's Gaussian mixture
/// (bench/gmm.cpp), bundle adjustment (bench/ba.cpp) and LSTM (bench/lstm.cpp).
std::vector<sized_case> gmm_cases();
std::vector<sized_case> ba_cases();
std::vector<sized_case> lstm_cases();
/// Everyday models (bench/everyday.cpp): a hierarchical model, a Kalman filter, a small network.
std::vector<sized_case> everyday_cases();

} // namespace bench
