// zerograd/tape/dot.hpp: zg::to_dot, a Graphviz picture of the graph behind a variable.
#pragma once

#include "zerograd/core/rules.hpp"
#include "zerograd/tape/var.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace zg::tape {

namespace detail {

/// Four decimals, as micrograd draws them, where they show the number in a short label; other
/// magnitudes (1e150, 1e-7), infinities and NaN in exponent form.
inline std::string dot_number(double x) {
    char text[32];
    const double magnitude = std::abs(x);
    const bool fixed = magnitude == 0 || (magnitude >= 1e-3 && magnitude < 1e9);
    std::snprintf(text, sizeof text, fixed ? "%.4f" : "%.4e", x);
    return text;
}

} // namespace detail

/// Graphviz DOT text of every node `v` depends on, each drawn as a record
/// `{ operation | data | grad }`, with an edge from each operand to its result. Render it with
/// `dot -Tsvg`.
///
///     zg::var a = 2.0, b = -3.0;
///     zg::var e = a * b;
///     e.backward();
///     std::string text = zg::to_dot(e);   // three records: leaf, leaf and "* | data -6.0000"
template <class T>
std::string to_dot(const basic_var<T>& v) {
    auto& tape = v.tape();
    if (!tape.on_this_thread()) [[unlikely]]
        throw error("zg::to_dot: the variable is on another thread's tape; draw it on the thread "
                    "that recorded it");
    const auto root = v.index();
    std::vector<std::size_t> first(root + 2, 0); // where each node's operand entries start
    for (std::uint32_t i = 0; i <= root; ++i)
        first[i + 1] = first[i] + tape.arity(i);
    // Reverse recording order is topological, so one backward pass marks every ancestor.
    std::vector<bool> reached(root + 1, false);
    reached[root] = true;
    for (auto i = root + 1; i-- > 0;)
        if (reached[i])
            for (auto k = first[i]; k < first[i + 1]; ++k)
                reached[tape.operand(k)] = true;

    std::string dot = "digraph zerograd {\n  rankdir=LR;\n  node [shape=record];\n";
    for (std::uint32_t i = 0; i <= root; ++i) {
        if (!reached[i]) continue;
        dot += "  n" + std::to_string(i) + " [label=\"{ " + tape.label(i) +
               " | data " + detail::dot_number(zg::detail::primal(tape.value(i))) + " | grad " +
               detail::dot_number(zg::detail::primal(tape.adjoint(i))) + " }\"];\n";
        for (auto k = first[i]; k < first[i + 1]; ++k)
            dot += "  n" + std::to_string(tape.operand(k)) + " -> n" + std::to_string(i) + ";\n";
    }
    return dot + "}\n";
}

/// The graph behind a formula, recorded first.
template <class T, class Node>
std::string to_dot(const expression<T, Node>& formula) {
    return to_dot(formula.as_var());
}

} // namespace zg::tape

namespace zg {
using tape::to_dot;
} // namespace zg
