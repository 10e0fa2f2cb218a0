// Generic code, written once as function templates over the scalar type the way ADBench's
// objectives and the peers' examples are, instantiated with double, zg::var and zg::dual: a
// user's own function of a name zerograd also defines (`template <class T> T sigmoid(T)`),
// std:: qualified calls, the forms a formula takes (auto, a conditional, class template argument
// deduction, a user's template of another name). Gradients against each other and finite
// differences; built by clang++ 14 too (bench/'s models, which use std::views, are in
// generic_models.cpp).
#include "generic_check.hpp"

#include <zerograd/zerograd.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

// A user's own elementary functions, of names zerograd defines too, at namespace scope as a
// user's header has them: argument-dependent lookup finds zerograd's beside them, which partial
// ordering prefers for zerograd's scalars.
template <class T>
T sigmoid(T x) {
    return 1 / (1 + std::exp(-x));
}
template <class T>
T relu(const T& x) {
    return x > 0 ? x : T(0);
}
template <class T>
T square(T x) {
    return x * x;
}
template <class T>
T max(T a, T b) {
    return a < b ? b : a;
}
template <class T>
T min(const T& a, const T& b) {
    return b < a ? b : a;
}
// And one of a name zerograd does not define: a formula is what it deduces.
template <class T>
T logistic(T x) {
    return 1 / (1 + exp(-x));
}

namespace {

/// log(sum_i exp(v_i) + 2), as ADBench's LSTM normalizes its predictions.
template <class T>
T log_sum_exp_plus_two(const T* v, int n) {
    T total = 0.0;
    for (int i = 0; i < n; ++i)
        total += std::exp(v[i]);
    total += 2;
    return log(total);
}

/// A one-layer LSTM over a sequence, written as ADBench writes its objective: pointers to T, a
/// user's sigmoid template, std::exp, += in loops. Parameters: 4 gates' weights and biases per
/// unit (8 b), then the output's scale and offset (2 b).
template <class T>
T lstm_loss(const T* parameters, int units, const std::vector<double>& sequence) {
    const int steps = int(sequence.size()) / units - 1;
    const T* weight = parameters;
    const T* bias = parameters + 4 * units;
    const T* scale = parameters + 8 * units;
    const T* offset = parameters + 9 * units;
    std::vector<T> hidden(std::size_t(units), T(0.0)), cell(std::size_t(units), T(0.0));
    std::vector<T> prediction(std::size_t(units), T(0.0));
    T total = 0.0;
    for (int t = 0; t < steps; ++t) {
        for (int i = 0; i < units; ++i) {
            const double input = sequence[std::size_t(t * units + i)];
            T forget = sigmoid(input * weight[i] + bias[i]);
            T in = sigmoid(hidden[std::size_t(i)] * weight[units + i] + bias[units + i]);
            T out = sigmoid(input * weight[2 * units + i] + bias[2 * units + i]);
            T change = tanh(hidden[std::size_t(i)] * weight[3 * units + i] + bias[3 * units + i]);
            cell[std::size_t(i)] = cell[std::size_t(i)] * forget + in * change;
            hidden[std::size_t(i)] = out * std::tanh(cell[std::size_t(i)]);
            prediction[std::size_t(i)] = hidden[std::size_t(i)] * scale[i] + offset[i];
        }
        const T normalizer = log_sum_exp_plus_two(prediction.data(), units);
        for (int i = 0; i < units; ++i)
            total += sequence[std::size_t((t + 1) * units + i)] *
                     (prediction[std::size_t(i)] - normalizer);
    }
    return -total / (steps * units);
}

/// Every form of the user's templates and of std:: calls in one function.
template <class T>
T everyday(const T* x) {
    T a = sigmoid(x[0] * x[1] + x[2]);             // a user's template, zerograd's name
    T b = relu(x[0] - 2.0 * x[1]) + square(x[2]);  // both forms of argument
    T c = max(x[0], x[1]) + std::max(x[1], x[2]);  // binary, both ways
    T d = logistic(x[2] * 0.5);                    // a name of the user's only
    auto e = x[0] * x[2];                          // a formula named with auto
    T f = x[1] > 0 ? e : T(0.0);                   // a conditional, one side T
    T g = std::pow(x[0], 2) + std::sqrt(std::abs(x[1])) + std::atan2(x[0], x[2]);
    return a * b + c * d + f * g + sigmoid(e) + std::exp(-square(x[1]));
}

} // namespace

TEST_CASE("a user's templates and std:: calls in generic code, in every mode") {
    check_every_scalar([](auto x) { return everyday(x.data()); }, {0.7, -0.4, 1.3});
    check_every_scalar([](auto x) { return everyday(x.data()); }, {-0.9, 0.6, 0.2});
}

TEST_CASE("an LSTM written as ADBench writes it, in every mode") {
    const int units = 3;
    std::vector<double> parameters, sequence;
    for (int k = 0; k < 10 * units; ++k)
        parameters.push_back(std::sin(1.7 * k + 0.3) * 0.8);
    for (int k = 0; k < 6 * units; ++k)
        sequence.push_back(0.5 + 0.5 * std::cos(2.3 * k));
    check_every_scalar([&](auto x) { return lstm_loss(x.data(), units, sequence); }, parameters);
}

TEST_CASE("a user's template of zerograd's name is not ambiguous in expression mode either") {
    const auto f = [](auto w, auto b) {
        const auto z = w * 1.5 + b;
        return square(sigmoid(z) - 0.3) + sigmoid(w * b) + max(w, b);
    };
    const auto expr = zg::grad(f, 0.5, -0.2);
    const auto tape = zg::tape::grad(f, 0.5, -0.2);
    const auto fwd = zg::fwd::grad(f, 0.5, -0.2);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(expr[i] == doctest::Approx(tape[i]).epsilon(1e-15));
        CHECK(fwd[i] == doctest::Approx(tape[i]).epsilon(1e-15));
    }
    const double s = 1 / (1 + std::exp(-(0.5 * 1.5 - 0.2))), t = 1 / (1 + std::exp(0.1));
    CHECK(tape[0] == doctest::Approx(2 * (s - 0.3) * s * (1 - s) * 1.5 + t * (1 - t) * -0.2 + 1));
    CHECK(tape[1] == doctest::Approx(2 * (s - 0.3) * s * (1 - s) + t * (1 - t) * 0.5));
}

TEST_CASE("a user's binary template with two formulas of one shape") {
    // Each of zerograd's overloads for two formulas is more specialized than the user's
    // max(T, T) in one operand; those for one shape are in both.
    zg::tape::scope scope;
    const zg::var a = 0.5, b = 2.0;
    const auto p = a * b, q = b * a;
    const zg::var larger = max(a * 2.0, b * 2.0) + min(p, q); // min at a tie: half to each
    larger.backward();
    CHECK(a.grad() == 0.5 * b.data() + 0.5 * b.data());
    CHECK(b.grad() == 2.0 + 0.5 * a.data() + 0.5 * a.data());
    const auto g = zg::grad([](auto x) { return max(x * 2.0, x * 3.0) + min(x * x, x * x); }, 1.5);
    CHECK(g[0] == 3.0 + 3.0);
}

TEST_CASE("the forms a formula takes") {
    zg::tape::scope scope;
    const zg::var a = 0.5, b = 2.0;
    SUBCASE("named with auto, passed to a user's template, rebound") {
        auto t = a * b;                 // recorded when used by name
        auto u = logistic(a * b + 1.0); // a formula as T: converted back when returned
        auto w = sin(a);
        w += a;
        const zg::var s = t + u + w;
        s.backward();
        const double l = 1 / (1 + std::exp(-2.0));
        CHECK(a.grad() == doctest::Approx(b.data() + l * (1 - l) * 2.0 + std::cos(0.5) + 1));
        CHECK(b.grad() == doctest::Approx(0.5 + l * (1 - l) * 0.5));
    }
    SUBCASE("a conditional with zg::var or a number on one side, or one shape on both") {
        const zg::var c = a > b ? zg::var(a * b) : sin(a);
        const auto d = a < b ? a * b : b * b;
        const auto e = a < b ? a * b : 0.0;
        const zg::var s = c + d + e;
        s.backward();
        CHECK(a.grad() == doctest::Approx(std::cos(0.5) + 2 * 2.0));
    }
    SUBCASE("class template argument deduction of one shape") {
        std::vector products{a * b, b * a};
        const zg::var s = products[0] + products[1];
        s.backward();
        CHECK(a.grad() == 4.0);
    }
}
