// zerograd/expr/entry/print.hpp: an expression's tree as readable text and as Graphviz DOT, with
// each node's value and the adjoint the reverse sweep gives it.
#pragma once

#include "zerograd/expr/entry/grad.hpp"
#include "zerograd/expr/memory/frame.hpp"
#include "zerograd/expr/tree/describe.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace zg::expr {

namespace detail {

/// A built expression described for printing: the root's tree, then each shared node it reaches
/// once (latest made first, as the sweep goes), with the adjoint the sweep gives every node.
struct printed_tree {
    description nodes;
    std::vector<double> adjoints;
    std::vector<std::size_t> roots;
    std::map<const void*, std::size_t> shared_numbers; // s0, s1, ... in the order met

    /// The adjoints below `root`, which has `adjoint`: each child gets its parent's times the
    /// local partial (children come before parents in a description).
    void propagate(std::size_t first, std::size_t root, double adjoint,
                   std::map<const void*, double>& gathered) {
        adjoints.resize(nodes.size(), 0.0);
        for (std::size_t i = first; i <= root; ++i)
            if (nodes[i].shared != nullptr) {
                const auto [at, fresh] =
                    shared_numbers.try_emplace(nodes[i].shared, shared_numbers.size());
                nodes[i].label = "s" + std::to_string(at->second);
            }
        adjoints[root] = adjoint;
        for (std::size_t i = root + 1; i-- > first;) {
            for (const auto& [child, partial] : nodes[i].children)
                adjoints[child] += adjoints[i] * partial;
            if (nodes[i].shared != nullptr) gathered[nodes[i].shared] += adjoints[i];
        }
    }
};

template <class E, class F, std::size_t N>
printed_tree print_tree(const built_expression<E, F, N>& e) {
    printed_tree printed;
    std::map<const void*, double> gathered;
    if constexpr (Expression<E>) {
        const auto values = evaluated(e.expression.tree);
        const std::size_t root = describe(e.expression.tree, values.data(), printed.nodes);
        printed.propagate(0, root, 1.0, gathered);
        printed.roots.push_back(root);
    }
    for (const shared_base<double>* node = e.owner->call.persistent_last(); node != nullptr;
         node = node->previous) {
        const auto found = gathered.find(node);
        if (found == gathered.end() || node->describe == nullptr) continue;
        const std::size_t first = printed.nodes.size();
        const std::size_t root = node->describe(*node, printed.nodes);
        printed.propagate(first, root, found->second, gathered);
        printed.nodes[root].label =
            "s" + std::to_string(printed.shared_numbers[node]) + " = " + printed.nodes[root].label;
        printed.roots.push_back(root);
    }
    return printed;
}

} // namespace detail

/// The expression's tree as indented text, one node a line with its value and the adjoint the
/// reverse sweep gives it (for a leaf used twice, each use shows its own share). Shared nodes
/// (named intermediates used several times, let-bindings) are named s0, s1, ... where used, and
/// follow the main tree, each once, with the adjoint their uses gathered.
///
///     auto L = zg::expr::build([](auto a, auto b) { return a * b + b; }, 2.0, -3.0);
///     std::cout << zg::expr::to_text(L);
///     // +  value -9  adjoint 1
///     // ├── *  value -6  adjoint 1
///     // │   ├── x0  value 2  adjoint -3
///     // ...
template <class E, class F, std::size_t N>
std::string to_text(const built_expression<E, F, N>& e) {
    const auto printed = detail::print_tree(e);
    std::string text;
    const auto line = [&](const auto& self, std::size_t at, const std::string& prefix,
                          const std::string& child_prefix) -> void {
        const auto& node = printed.nodes[at];
        text += prefix + node.label + "  value " + node.value;
        if (!node.constant) text += "  adjoint " + detail::number(printed.adjoints[at]);
        text += '\n';
        for (std::size_t c = 0; c < node.children.size(); ++c) {
            const bool last = c + 1 == node.children.size();
            self(self, node.children[c].first, child_prefix + (last ? "└── " : "├── "),
                 child_prefix + (last ? "    " : "│   "));
        }
    };
    for (std::size_t root : printed.roots)
        line(line, root, "", "");
    return text;
}

/// The expression's tree as Graphviz DOT: a record `{ operation | value | adjoint }` per node,
/// one per argument and per shared node (its adjoint summed over its uses), edges from operands
/// to results. Render it with `dot -Tsvg`.
template <class E, class F, std::size_t N>
std::string to_dot(const built_expression<E, F, N>& e) {
    const auto printed = detail::print_tree(e);
    const auto& nodes = printed.nodes;
    std::map<int, double> leaf_adjoints;
    std::map<int, std::string> leaf_values;
    std::map<const void*, std::size_t> definitions; // a shared node's own record
    for (std::size_t at = 0; at < nodes.size(); ++at) {
        if (nodes[at].leaf >= 0) {
            leaf_adjoints[nodes[at].leaf] += printed.adjoints[at];
            leaf_values[nodes[at].leaf] = nodes[at].value;
        }
    }
    for (std::size_t root : printed.roots)
        for (const auto& [node, number] : printed.shared_numbers)
            if (nodes[root].label.starts_with("s" + std::to_string(number) + " = "))
                definitions[node] = root;
    const auto id = [&](std::size_t at) {
        if (nodes[at].leaf >= 0) return "x" + std::to_string(nodes[at].leaf);
        if (nodes[at].shared != nullptr) return "n" + std::to_string(definitions[nodes[at].shared]);
        return "n" + std::to_string(at);
    };
    std::string dot = "digraph zerograd {\n  rankdir=LR;\n  node [shape=record];\n";
    for (const auto& [leaf, adjoint] : leaf_adjoints)
        dot += "  x" + std::to_string(leaf) + " [label=\"{ x" + std::to_string(leaf) + " | value " +
               leaf_values[leaf] + " | adjoint " + detail::number(adjoint) + " }\"];\n";
    for (std::size_t at = 0; at < nodes.size(); ++at) {
        const auto& node = nodes[at];
        if (node.leaf < 0 && node.shared == nullptr) {
            dot +=
                "  n" + std::to_string(at) + " [label=\"{ " + node.label + " | value " + node.value;
            if (!node.constant) dot += " | adjoint " + detail::number(printed.adjoints[at]);
            dot += " }\"];\n";
        }
        for (const auto& [child, partial] : node.children)
            dot += "  " + id(child) + " -> n" + std::to_string(at) + ";\n";
    }
    return dot + "}\n";
}

} // namespace zg::expr
