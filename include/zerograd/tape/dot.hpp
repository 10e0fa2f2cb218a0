// zerograd/tape/dot.hpp: zg::to_dot, a Graphviz picture of the graph behind a variable.
#pragma once

#include "zerograd/core/rules.hpp"
#include "zerograd/tape/var.hpp"

#include <cstdint>
#include <cstdio> // snprintf: fixed four-decimal labels, as micrograd draws them
#include <string>
#include <vector>

namespace zg::tape {

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
    char label[160];
    for (std::uint32_t i = 0; i <= root; ++i) {
        if (!reached[i]) continue;
        std::snprintf(label, sizeof label, "  n%u [label=\"{ %s | data %.4f | grad %.4f }\"];\n",
                      unsigned(i), std::string(name_of(tape.op(i))).c_str(),
                      zg::detail::primal(tape.value(i)), zg::detail::primal(tape.adjoint(i)));
        dot += label;
        for (auto k = first[i]; k < first[i + 1]; ++k)
            dot += "  n" + std::to_string(tape.operand(k)) + " -> n" + std::to_string(i) + ";\n";
    }
    return dot + "}\n";
}

} // namespace zg::tape

namespace zg {
using tape::to_dot;
} // namespace zg
