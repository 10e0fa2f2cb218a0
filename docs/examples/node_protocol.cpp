// Expression mode's node protocol, seen from the tree a lambda builds: every node states its kind,
// operands_of lists its operands, and each walk over trees (here: slot counts, the arguments a
// sweep reaches, a tree without a frame) is a fold over those lists. A contributor adding a node
// kind checks it the same way: docs/expression-mode.md, "Adding a node kind".
#include <zerograd/zerograd.hpp>

#include <cstddef>
#include <cstdio>
#include <string>

namespace ex = zg::expr;

template <class Node>
constexpr const char* kind_name() {
    switch (ex::kind_of<Node>) {
    case ex::node_kind::argument: return "argument";
    case ex::node_kind::constant: return "constant";
    case ex::node_kind::end: return "end";
    case ex::node_kind::shared: return "shared";
    case ex::node_kind::unary: return "unary";
    case ex::node_kind::known_unary: return "known_unary";
    case ex::node_kind::binary: return "binary";
    case ex::node_kind::select: return "select";
    case ex::node_kind::reduction: return "reduction";
    case ex::node_kind::vector: return "vector";
    case ex::node_kind::held: return "held";
    }
    return "?";
}

/// One line per node, operands indented below it: its kind, and the slots of the values array
/// the node and its operands take.
template <class Node>
void show(int depth) {
    std::printf("%*s%-12s %zu slot(s)\n", 2 * depth, "", kind_name<Node>(), ex::slot_count<Node>);
    [depth]<class... Operands>(ex::operand_list<Operands...>) {
        (show<Operands>(depth + 1), ...);
    }(ex::operands_of<Node>{});
}

int main() {
    auto f = [](auto x, auto y) { return x * y + sin(x); };
    const auto built = ex::build(f, 2.0, 3.0);
    using tree = ex::tree_of<decltype(built.expression)>;
    show<tree>(0);

    // What the type says before anything runs.
    static_assert(ex::kind_of<tree> == ex::node_kind::binary);
    static_assert(ex::slot_count<tree> == 3); // x * y, sin(x), the sum
    static_assert(ex::static_tree<tree>);     // arguments and operations only: no frame
    static_assert(ex::leaves_of<tree>.scalars == 0b11);
    std::printf("value %.6f\n", built.value());
    std::array<double, 2> gradient{};
    ex::sweep(built, gradient);
    std::printf("gradient %.6f %.6f\n", gradient[0], gradient[1]);
}
