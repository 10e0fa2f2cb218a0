// zg::to_dot draws every ancestor with its operation, data and grad.
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <string>

namespace {
int count(const std::string& text, const std::string& part) {
    int n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}
} // namespace

TEST_CASE("the graph of micrograd's worked example") {
    zg::var unrelated = 7.0;
    zg::var a = 2.0, b = -3.0, c = 10.0, f = -2.0;
    // One operation a statement, as micrograd writes it: a node each.
    zg::var e = a * b;
    zg::var d = e + c;
    zg::var L = d * f;
    L.backward();
    const std::string dot = zg::to_dot(L);
    CHECK(dot.starts_with("digraph zerograd {"));
    CHECK(count(dot, "[label=") == 7);
    CHECK(count(dot, " -> ") == 6);
    CHECK(count(dot, "{ leaf |") == 4);
    CHECK(dot.find("{ leaf | data 2.0000 | grad 6.0000 }") != std::string::npos);
    CHECK(dot.find("{ * | data -6.0000 | grad -2.0000 }") != std::string::npos);
    CHECK(dot.find("{ + | data 4.0000 | grad -2.0000 }") != std::string::npos);
    CHECK(dot.find("{ * | data -8.0000 | grad 1.0000 }") != std::string::npos);
    CHECK(dot.find("data 7.0000") == std::string::npos); // not an ancestor
    CHECK(unrelated.grad() == 0.0);
}

TEST_CASE("functions are labelled by name") {
    zg::var x = 0.0;
    zg::var t = tanh(x);
    zg::var y = t + pow(x, 2);
    const std::string dot = zg::to_dot(y);
    CHECK(dot.find("{ tanh |") != std::string::npos);
    CHECK(dot.find("{ x0 + pow(x1, n) |") != std::string::npos);
}

TEST_CASE("a statement of several operations is one record, labelled with its formula") {
    zg::var a = 2.0, b = -3.0, c = 10.0, f = -2.0;
    zg::var L = (a * b + c) * f;
    L.backward();
    const std::string dot = zg::to_dot(L);
    CHECK(count(dot, "[label=") == 5);
    CHECK(count(dot, " -> ") == 4);
    CHECK(dot.find("{ ((x0 * x1) + x2) * x3 | data -8.0000 | grad 1.0000 }") !=
          std::string::npos);
    CHECK(dot.find("{ leaf | data 2.0000 | grad 6.0000 }") != std::string::npos);
    zg::var g = 3.0 * exp(a) - 1.0;
    CHECK(zg::to_dot(g).find("{ (c * exp(x0)) - c |") != std::string::npos);
}

TEST_CASE("labels of very large and very small numbers stay whole") {
    zg::var a = 1e150, b = 2.0, c = 1e-7;
    zg::var product = a * b;
    zg::var y = product + c;
    y.backward();
    const std::string dot = zg::to_dot(y);
    CHECK(dot.find("{ leaf | data 1.0000e+150 | grad 2.0000 }") != std::string::npos);
    CHECK(dot.find("{ leaf | data 2.0000 | grad 1.0000e+150 }") != std::string::npos);
    CHECK(dot.find("{ leaf | data 1.0000e-07 | grad 1.0000 }") != std::string::npos);
    CHECK(dot.find("{ * | data 2.0000e+150 | grad 1.0000 }") != std::string::npos);
    // One node or edge a line: every line ends its statement.
    std::size_t lines = 0;
    for (std::size_t at = 0, end; (end = dot.find('\n', at)) != std::string::npos; at = end + 1) {
        const std::string line = dot.substr(at, end - at);
        ++lines;
        CHECK((line.ends_with(";") || line.ends_with("{") || line == "}"));
    }
    CHECK(lines == 4 + 5 + 4); // header lines, nodes, edges
}
