// bench/models/lstm.hpp: ADBench's LSTM objective (Srajer, Kukelova, Fitzgibbon, arXiv
// 1807.10129): l stacked layers of b diagonal LSTM cells run over c characters of a sequence, each
// step predicting the next character; the loss is the mean log-softmax of the targets. Written as
// a user writes it in expression mode (a zg::scan over time per unit and layer, the state a
// (hidden, cell) tuple), as a loop for the scalar modes, and its gradient by hand.
//
// Parameters: main (2 l 4 b): per layer, the weights of the four gates (forget, input, output,
// change; b each) and then their biases; extra (3 b): the input's scale, the output's scale and
// the output's offset. Data: the initial state (per layer b hidden, then b cell values) and the
// sequence (c b). A layer's input is the layer below's new hidden state, the first layer's the
// character scaled by extra:
//
//   forget = sigmoid(x w_f + b_f)    input = sigmoid(h w_i + b_i)
//   output = sigmoid(x w_o + b_o)    change = tanh(h w_c + b_c)
//   cell' = cell forget + input change,   hidden' = output tanh(cell')
//   y_t = hidden'_top extra_scale + extra_offset
//   loss = -sum_t sum_i gold_{t+1,i} (y_{t,i} - log(sum_j exp(y_{t,j}) + 2)) / ((c - 1) b)
#pragma once

#include "random.hpp"

#include <zerograd/expr.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <tuple>
#include <vector>

namespace models::lstm {

/// A problem: layers l, characters c, units b; data and a point at which to differentiate.
struct problem {
    int l = 0, c = 0, b = 0;
    std::vector<double> state;    // 2 l b: per layer, hidden then cell
    std::vector<double> sequence; // c b
    std::vector<double> main, extra;

    std::size_t steps() const { return std::size_t(c - 1); }
    /// Where gate g's weight (bias: second = true) of unit i of layer k is in main.
    std::size_t weight(int k, int g, int i, bool bias = false) const {
        return std::size_t(8 * b * k + (bias ? 4 * b : 0) + g * b + i);
    }
    double character(std::size_t t, int i) const { return sequence[t * std::size_t(b) + i]; }
};

/// A seeded problem: parameters and state in [-0.5, 0.5), characters in [0, 1) (random.hpp: the
/// same numbers on every machine).
inline problem make(int l, int c, int b, std::uint64_t seed = 1) {
    uniform_numbers uniform{seed};
    problem p{l, c, b, {}, {}, {}, {}};
    for (int e = 0; e < 8 * l * b; ++e)
        p.main.push_back(uniform() - 0.5);
    for (int e = 0; e < 3 * b; ++e)
        p.extra.push_back(uniform() - 0.5);
    for (int e = 0; e < 2 * l * b; ++e)
        p.state.push_back(uniform() - 0.5);
    for (int e = 0; e < c * b; ++e)
        p.sequence.push_back(uniform());
    return p;
}

/// The objective as a user writes it in expression mode. The units of a layer do not mix, so
/// each unit's layers are zg::scans over time, the state (hidden, cell) a std::tuple; the top
/// layer's hidden states give the predictions, which a log-sum-exp over the units mixes.
inline auto expression_objective(const problem& p) {
    return [&p](auto main, auto extra) {
        const int b = p.b;
        const std::size_t steps = p.steps();
        const auto sigmoid = [](const auto& x) { return 1 / (1 + exp(-x)); };
        // Unit i of layer k as a step: the next (hidden, cell) from the previous and the input.
        const auto cell = [&](int k, int i) {
            return [&, k, i](const auto& previous, const auto& x) {
                const auto w = [&](int g) { return main[p.weight(k, g, i)]; };
                const auto bias = [&](int g) { return main[p.weight(k, g, i, true)]; };
                const auto& [hidden, memory] = previous;
                auto forget = sigmoid(x * w(0) + bias(0));
                auto input = sigmoid(hidden * w(1) + bias(1));
                auto output = sigmoid(x * w(2) + bias(2));
                auto change = tanh(hidden * w(3) + bias(3));
                auto next = memory * forget + input * change;
                return std::tuple{output * tanh(next), next};
            };
        };
        const auto start = [&](int k, int i) {
            return std::tuple{p.state[std::size_t(2 * k * b + i)],
                              p.state[std::size_t((2 * k + 1) * b + i)]};
        };
        // Unit i's predictions over time: its first layer reads the characters, each layer
        // above the hidden states of the one below.
        const auto predictions = [&](int i) {
            const auto character = [&, i](std::size_t t) { return p.character(t, i) * extra[i]; };
            auto [hidden, memory] = zg::scan(
                std::views::iota(std::size_t{0}, steps),
                [&](std::size_t t) { return cell(0, i)(start(0, i), character(t)); },
                [&](const auto& previous, std::size_t t) {
                    return cell(0, i)(previous, character(t));
                });
            auto top = hidden;
            for (int k = 1; k < p.l; ++k) {
                auto [above, above_memory] = zg::scan(
                    top, [&](const auto& x) { return cell(k, i)(start(k, i), x); }, cell(k, i));
                top = above;
            }
            return top * extra[std::size_t(b + i)] + extra[std::size_t(2 * b + i)];
        };
        std::vector<decltype(predictions(0))> y;
        for (int i = 0; i < b; ++i)
            y.push_back(predictions(i));
        const auto units = std::views::iota(0, b);
        const auto total = zg::sum(std::views::iota(std::size_t{0}, steps), [&](std::size_t t) {
            const auto normalizer =
                log(zg::sum(units, [&](int i) { return exp(y[std::size_t(i)][t]); }) + 2);
            return zg::sum(units, [&](int i) {
                return p.character(t + 1, i) * (y[std::size_t(i)][t] - normalizer);
            });
        });
        return -total / double(steps * std::size_t(b));
    };
}

/// The same as ADBench's loop over scalars of any mode (double, zg::var, the peers'): v holds
/// main and extra in a row.
template <class T>
T loop_objective(std::span<const T> v, const problem& p) {
    using std::exp, std::log, std::tanh;
    const int b = p.b;
    const T* main = v.data();
    const T* extra = main + 8 * p.l * b;
    const auto sigmoid = [](const T& x) { return T(1.0 / (1.0 + exp(-x))); };
    std::vector<T> state(p.state.begin(), p.state.end()), x(std::size_t(b), T(0.0));
    std::vector<T> y(std::size_t(b), T(0.0));
    T total = 0.0;
    for (std::size_t t = 0; t < p.steps(); ++t) {
        for (int i = 0; i < b; ++i)
            x[std::size_t(i)] = p.character(t, i) * extra[i];
        for (int k = 0; k < p.l; ++k) {
            T* hidden = state.data() + 2 * k * b;
            T* memory = hidden + b;
            for (int i = 0; i < b; ++i) {
                const auto w = [&](int g) { return main[p.weight(k, g, i)]; };
                const auto bias = [&](int g) { return main[p.weight(k, g, i, true)]; };
                const T& input_x = x[std::size_t(i)];
                const T forget = sigmoid(input_x * w(0) + bias(0));
                const T input = sigmoid(hidden[i] * w(1) + bias(1));
                const T output = sigmoid(input_x * w(2) + bias(2));
                const T change = tanh(hidden[i] * w(3) + bias(3));
                memory[i] = memory[i] * forget + input * change;
                hidden[i] = output * tanh(memory[i]);
                x[std::size_t(i)] = hidden[i]; // the next layer's input
            }
        }
        T sum_exp = 0.0;
        for (int i = 0; i < b; ++i) {
            y[std::size_t(i)] = x[std::size_t(i)] * extra[b + i] + extra[2 * b + i];
            sum_exp += exp(y[std::size_t(i)]);
        }
        const T normalizer = log(sum_exp + 2.0);
        for (int i = 0; i < b; ++i)
            total += p.character(t + 1, i) * (y[std::size_t(i)] - normalizer);
    }
    return T(-total / double(p.steps() * std::size_t(b)));
}

/// The gradient by hand: the forward pass keeps each cell's gates and states; the backward pass
/// walks time backwards with each layer's (hidden, cell) adjoints, as a hand-written
/// backpropagation through time does. g has the layout of v (main, then extra).
inline double gradient(std::span<const double> v, std::span<double> g, const problem& p) {
    const int b = p.b, l = p.l;
    const std::size_t steps = p.steps(), units = std::size_t(l * b);
    const double* main = v.data();
    const double* extra = main + 8 * l * b;
    double* g_main = g.data();
    double* g_extra = g_main + 8 * l * b;
    std::fill(g.begin(), g.end(), 0.0);
    const auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
    // Per step and unit (layer k, unit i at k b + i): the gates, the new cell's tanh, the
    // input, and the state before the step.
    struct kept {
        double forget, input, output, change, tanh_cell, x, hidden, memory;
    };
    std::vector<kept> cells(steps * units);
    const std::size_t width = std::size_t(b);
    std::vector<double> state(p.state), y(width), softmax(steps * width);
    double total = 0;
    for (std::size_t t = 0; t < steps; ++t) {
        for (int i = 0; i < b; ++i) {
            double x = p.character(t, i) * extra[i];
            for (int k = 0; k < l; ++k) {
                const auto w = [&](int gate) { return main[p.weight(k, gate, i)]; };
                const auto bias = [&](int gate) { return main[p.weight(k, gate, i, true)]; };
                double& hidden = state[std::size_t(2 * k * b + i)];
                double& memory = state[std::size_t((2 * k + 1) * b + i)];
                kept& c = cells[t * units + std::size_t(k * b + i)];
                c = {sigmoid(x * w(0) + bias(0)), sigmoid(hidden * w(1) + bias(1)),
                     sigmoid(x * w(2) + bias(2)), std::tanh(hidden * w(3) + bias(3)), 0, x,
                     hidden, memory};
                memory = memory * c.forget + c.input * c.change;
                c.tanh_cell = std::tanh(memory);
                hidden = c.output * c.tanh_cell;
                x = hidden;
            }
            y[std::size_t(i)] = x * extra[b + i] + extra[2 * b + i];
        }
        double sum_exp = 0;
        for (int i = 0; i < b; ++i)
            sum_exp += std::exp(y[std::size_t(i)]);
        const double normalizer = std::log(sum_exp + 2);
        for (int i = 0; i < b; ++i) {
            total += p.character(t + 1, i) * (y[std::size_t(i)] - normalizer);
            softmax[t * width + std::size_t(i)] = std::exp(y[std::size_t(i)]) / (sum_exp + 2);
        }
    }
    const double scale = -1.0 / double(steps * std::size_t(b));
    // Adjoints of each layer's (hidden, cell) state, carried from step t + 1 back to step t.
    std::vector<double> a_hidden(units, 0.0), a_memory(units, 0.0);
    for (std::size_t t = steps; t-- > 0;) {
        double gold = 0;
        for (int i = 0; i < b; ++i)
            gold += p.character(t + 1, i);
        for (int i = 0; i < b; ++i) {
            const double a_y =
                scale * (p.character(t + 1, i) - gold * softmax[t * width + std::size_t(i)]);
            const kept& top = cells[t * units + std::size_t((l - 1) * b + i)];
            const double top_hidden = top.output * top.tanh_cell;
            g_extra[b + i] += a_y * top_hidden;
            g_extra[2 * b + i] += a_y;
            double a_x = a_y * extra[b + i]; // the adjoint of the layer's new hidden state
            for (int k = l; k-- > 0;) {
                const std::size_t u = std::size_t(k * b + i);
                const kept& c = cells[t * units + u];
                const auto w = [&](int gate) { return main[p.weight(k, gate, i)]; };
                const double a_h = a_x + a_hidden[u];
                const double a_output = a_h * c.tanh_cell;
                const double a_cell =
                    a_memory[u] + a_h * c.output * (1 - c.tanh_cell * c.tanh_cell);
                const double z_forget = a_cell * c.memory * c.forget * (1 - c.forget);
                const double z_input = a_cell * c.change * c.input * (1 - c.input);
                const double z_output = a_output * c.output * (1 - c.output);
                const double z_change = a_cell * c.input * (1 - c.change * c.change);
                const double z[4] = {z_forget, z_input, z_output, z_change};
                const double from[4] = {c.x, c.hidden, c.x, c.hidden};
                for (int gate = 0; gate < 4; ++gate) {
                    g_main[p.weight(k, gate, i)] += z[gate] * from[gate];
                    g_main[p.weight(k, gate, i, true)] += z[gate];
                }
                a_memory[u] = a_cell * c.forget;
                a_hidden[u] = z_input * w(1) + z_change * w(3);
                a_x = z_forget * w(0) + z_output * w(2); // to the layer below's new hidden
            }
            g_extra[i] += a_x * p.character(t, i);
        }
    }
    return -total / double(steps * std::size_t(b));
}

/// The point as one vector: main, extra.
inline std::vector<double> point(const problem& p) {
    std::vector<double> v(p.main);
    v.insert(v.end(), p.extra.begin(), p.extra.end());
    return v;
}

} // namespace models::lstm
