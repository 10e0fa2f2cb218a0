// zerograd/expr/tree/describe.hpp: a tree described node by node, with its values and local
// partials: what zg::expr::to_text prints. A shared node keeps a pointer to its tree's describe, since the
// expressions that use it do not name its type.
#pragma once

#include "zerograd/core/scalar.hpp"
#include "zerograd/expr/tree/expression.hpp"

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace zg::expr {

/// One node of a described tree.
struct described_node {
    std::string label;
    std::string value;
    int leaf = -1;                                        // scalar argument number, for a leaf
    const void* shared = nullptr;                         // the shared node, for a use of one
    bool constant = false;                                // a constant: no adjoint
    std::vector<std::pair<std::size_t, double>> children; // index in the description, partial
};
using description = std::vector<described_node>;

namespace detail {

inline std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", x);
    return text;
}

} // namespace detail

/// Describes the node whose slots start at `values` into `out`, operands first; returns its
/// index.
template <class Node, class T>
std::size_t describe(const Node& node, const T* values, description& out) {
    using zg::detail::primal;
    constexpr node_kind kind = kind_of<Node>;
    if constexpr (kind == node_kind::held) {
        return describe(*node.tree, values, out); // the tree it holds, as if copied here
    } else {
        described_node d;
        if constexpr (kind == node_kind::binary) {
            const T* r_values = values + slot_count<decltype(node.l)>;
            const T& l = value_at(node.l, values);
            const T& r = value_at(node.r, r_values);
            const T& y = r_values[slot_count<decltype(node.r)>];
            d.label = std::string(node.op.name);
            const std::size_t left = describe(node.l, values, out);
            const std::size_t right = describe(node.r, r_values, out);
            d.children = {{left, primal(node.op.dl(l, r, y))},
                          {right, primal(node.op.dr(l, r, y))}};
        } else if constexpr (kind == node_kind::known_unary) {
            d.label = std::string(node.op.name);
            d.children = {{describe(node.a, values, out), primal(node.known_partial)}};
        } else if constexpr (kind == node_kind::unary) {
            d.label = std::string(node.op.name);
            d.children = {{describe(node.a, values, out), primal(unary_partial(node, values))}};
        } else if constexpr (kind == node_kind::select) {
            d.label = node.first ? "select (first)" : "select (second)";
            const std::size_t a = describe(node.a, values, out);
            const std::size_t b = describe(node.b, values + slot_count<decltype(node.a)>, out);
            d.children = {{a, node.first ? 1.0 : 0.0}, {b, node.first ? 0.0 : 1.0}};
        } else if constexpr (!is_operation<Node>) {
            describe_end(node, d);
        } else {
            static_assert(unhandled_kind<Node>, "zg::expr::describe: an unhandled operation");
        }
        d.value = detail::number(primal(value_at(node, values)));
        out.push_back(std::move(d));
        return out.size() - 1;
    }
}

template <std::size_t I, class T, class F>
void describe_end(const leaf_expr<I, T, F>&, described_node& d) {
    d.label = "x" + std::to_string(I);
    d.leaf = int(I);
}
template <class T, class F>
void describe_end(const argument_expr<T, F>& a, described_node& d) {
    d.label = "x" + std::to_string(a.index);
    d.leaf = int(a.index);
}
template <class T>
void describe_end(const constant_expr<T>& c, described_node& d) {
    d.label = detail::number(zg::detail::primal(c.value));
    d.constant = true;
}
template <std::size_t I, class T, class F>
void describe_end(const element_expr<I, T, F>& e, described_node& d) {
    d.label = "x" + std::to_string(I) + "[" + std::to_string(e.index) + "]";
}
template <class Node>
void describe_end(const Node&, described_node& d) {
    static_assert(kind_of<Node> == node_kind::reduction,
                  "zg::expr::describe: an end of a kind it does not describe");
    d.label = std::string(Node::name);
}

} // namespace zg::expr
