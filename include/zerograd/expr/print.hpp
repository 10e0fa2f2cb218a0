// zerograd/expr/print.hpp: an expression's type tree as readable text and as Graphviz DOT, with
// each node's value and the adjoint the reverse sweep gives it.
#pragma once

#include "zerograd/core/scalar.hpp"
#include "zerograd/expr/expression.hpp"
#include "zerograd/expr/sweep.hpp"
#include "zerograd/expr/vector.hpp"

#include <boost/hana/for_each.hpp>
#include <boost/hana/range.hpp>

#include <array>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace zg::expr {

namespace detail {

inline std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", x);
    return text;
}

/// One node of the printed tree: its label, value, adjoint and children.
struct printed_node {
    std::string label;
    std::string value;    // empty for vector nodes
    std::string adjoint;  // empty where a node has no single adjoint (vector nodes)
    std::vector<std::size_t> children;
    int leaf = -1;            // argument number, for leaves
    double adjoint_value = 0; // unrounded, to sum a leaf's uses
};

/// Walks a tree from the root down, the way the sweep does, recording each node with the
/// adjoint the sweep gives it.
template <class Bindings>
struct tree_printer {
    std::vector<printed_node> nodes;
    std::array<double, binding_count<Bindings>> binding_adjoints{};

    template <class Node>
    std::size_t visit(const Node& node, double adjoint) {
        const std::size_t at = nodes.size();
        nodes.push_back({});
        printed_node out;
        if constexpr (vector_node<Node>) {
            out = visit_vector(node);
        } else {
            out.value = number(zg::detail::primal(node.value));
            out.adjoint = number(adjoint);
            out.adjoint_value = adjoint;
            if constexpr (requires { node.l; }) {
                out.label = std::string(node.op.name);
                const double v = zg::detail::primal(node.value);
                const double l = zg::detail::primal(node.l.value);
                const double r = zg::detail::primal(node.r.value);
                out.children = {visit(node.l, adjoint * node.op.dl(l, r, v)),
                                visit(node.r, adjoint * node.op.dr(l, r, v))};
            } else if constexpr (requires { node.a; }) {
                out.label = std::string(node.op.name);
                const double a = zg::detail::primal(node.a.value);
                out.children = {
                    visit(node.a, adjoint * node.op.dx(a, zg::detail::primal(node.value)))};
            } else if constexpr (requires { node.v; }) {
                out.label = std::string(Node::name);
                out.children = {visit(node.v, adjoint)};
            } else {
                out.label = end_label(node, adjoint, out);
            }
        }
        nodes[at] = out;
        return at;
    }

    template <std::size_t I, class T>
    std::string end_label(const leaf_expr<I, T>&, double, printed_node& out) {
        out.leaf = int(I);
        return "x" + std::to_string(I);
    }
    template <class T>
    std::string end_label(const constant_expr<T>& c, double, printed_node& out) {
        out.adjoint.clear();
        return number(zg::detail::primal(c.value));
    }
    template <class Id, class T>
    std::string end_label(const bound_expr<Id, T>&, double adjoint, printed_node&) {
        constexpr std::size_t k = binding_index<Id, Bindings>::value;
        binding_adjoints[k] += adjoint;
        return "let " + std::to_string(k);
    }
    template <class Node>
    std::string end_label(const Node&, double, printed_node&) {
        return "?";
    }

    template <class Node>
    printed_node visit_vector(const Node& node) {
        printed_node out;
        if constexpr (requires { node.values; }) {
            out.label = (requires { Node::argument; } ? "x" : "constant") +
                        std::string("[") + std::to_string(node.size()) + "]";
            if constexpr (requires { Node::argument; }) out.leaf = int(Node::argument);
        } else if constexpr (requires { node.l; }) {
            out.label = std::string(node.op.name) + " (elementwise)";
            out.children = {visit_operand(node.l), visit_operand(node.r)};
        } else {
            out.label = std::string(node.op.name) + " (elementwise)";
            out.children = {visit_operand(node.v)};
        }
        return out;
    }
    template <class Node>
    std::size_t visit_operand(const Node& node) {
        if constexpr (vector_node<Node>) {
            const std::size_t at = nodes.size();
            nodes.push_back({});
            nodes[at] = visit_vector(node);
            return at;
        } else {
            return visit(node, 0.0); // a broadcast scalar: its adjoint is a sum over elements
        }
    }
};

template <class Tree, class Bindings>
tree_printer<Bindings> print_tree(const expression<Tree, Bindings>& e,
                                  std::vector<std::size_t>& roots) {
    namespace hana = boost::hana;
    tree_printer<Bindings> printer;
    roots.push_back(printer.visit(e.tree, 1.0));
    constexpr std::size_t count = binding_count<Bindings>;
    if constexpr (count > 0) {
        // Latest binding first, as the sweep goes: each has gathered its uses' adjoints by then.
        hana::for_each(hana::make_range(hana::size_c<0>, hana::size_c<count>), [&](auto i) {
            constexpr std::size_t k = count - 1 - decltype(i)::value;
            const std::size_t at = printer.visit(e.bindings.template at<k>().tree,
                                                 printer.binding_adjoints[k]);
            printer.nodes[at].label = "let " + std::to_string(k) + " = " + printer.nodes[at].label;
            roots.push_back(at);
        });
    }
    return printer;
}

} // namespace detail

/// The expression's tree as indented text, one node a line with its value and the adjoint the
/// reverse sweep gives it (for a leaf used twice, each use shows its own share). Let-bindings
/// follow the main tree, each once.
///
///     auto L = zg::expr::build([](auto a, auto b) { return a * b + b; }, 2.0, -3.0);
///     std::cout << zg::expr::to_text(L);
///     // +  value -9  adjoint 1
///     // ├── *  value -6  adjoint 1
///     // │   ├── x0  value 2  adjoint -3
///     // ...
template <class Tree, class Bindings>
std::string to_text(const expression<Tree, Bindings>& e) {
    std::vector<std::size_t> roots;
    const auto printer = detail::print_tree(e, roots);
    std::string text;
    const auto line = [&](const auto& self, std::size_t at, const std::string& prefix,
                          const std::string& child_prefix) -> void {
        const auto& node = printer.nodes[at];
        text += prefix + node.label;
        if (!node.value.empty()) text += "  value " + node.value;
        if (!node.adjoint.empty()) text += "  adjoint " + node.adjoint;
        text += '\n';
        for (std::size_t c = 0; c < node.children.size(); ++c) {
            const bool last = c + 1 == node.children.size();
            self(self, node.children[c], child_prefix + (last ? "└── " : "├── "),
                 child_prefix + (last ? "    " : "│   "));
        }
    };
    for (std::size_t root : roots) line(line, root, "", "");
    return text;
}

/// The expression's tree as Graphviz DOT: a record `{ operation | value | adjoint }` per node,
/// one node per argument (its adjoint summed over its uses), edges from operands to results.
/// Render it with `dot -Tsvg`.
template <class Tree, class Bindings>
std::string to_dot(const expression<Tree, Bindings>& e) {
    std::vector<std::size_t> roots;
    const auto printer = detail::print_tree(e, roots);
    const auto& nodes = printer.nodes;
    std::map<int, double> leaf_adjoints;
    std::map<int, std::string> leaf_values;
    for (const auto& node : nodes)
        if (node.leaf >= 0 && !node.value.empty()) {
            leaf_adjoints[node.leaf] += node.adjoint_value;
            leaf_values[node.leaf] = node.value;
        }
    const auto id = [&](std::size_t at) {
        return nodes[at].leaf >= 0 && !nodes[at].value.empty() ? "x" + std::to_string(nodes[at].leaf)
                                                               : "n" + std::to_string(at);
    };
    std::string dot = "digraph zerograd {\n  rankdir=LR;\n  node [shape=record];\n";
    for (const auto& [leaf, adjoint] : leaf_adjoints)
        dot += "  x" + std::to_string(leaf) + " [label=\"{ x" + std::to_string(leaf) +
               " | value " + leaf_values[leaf] + " | adjoint " + detail::number(adjoint) +
               " }\"];\n";
    for (std::size_t at = 0; at < nodes.size(); ++at) {
        const auto& node = nodes[at];
        if (node.leaf < 0 || node.value.empty()) {
            dot += "  n" + std::to_string(at) + " [label=\"{ " + node.label;
            if (!node.value.empty()) dot += " | value " + node.value;
            if (!node.adjoint.empty()) dot += " | adjoint " + node.adjoint;
            dot += " }\"];\n";
        }
        for (std::size_t child : node.children)
            dot += "  " + id(child) + " -> n" + std::to_string(at) + ";\n";
    }
    return dot + "}\n";
}

} // namespace zg::expr
