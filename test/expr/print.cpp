// An expression's tree as text and DOT, with the values and adjoints of the sweep.
#include <zerograd/expr.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

TEST_CASE("text shows every node with its value and adjoint") {
    const auto e = zg::expr::build([](auto a, auto b) { return a * b + sin(a); }, 2.0, 3.0);
    const std::string text = zg::expr::to_text(e);
    CHECK(text.starts_with("+  value 6.909  adjoint 1\n"));
    CHECK(text.find("├── *  value 6  adjoint 1\n") != std::string::npos);
    CHECK(text.find("│   ├── x0  value 2  adjoint 3\n") != std::string::npos);
    CHECK(text.find("    └── x0  value 2  adjoint -0.4161\n") != std::string::npos);
}

TEST_CASE("shared nodes are printed once, with the adjoint their uses gathered") {
    const auto e = zg::expr::build(
        [](auto x) {
            const auto s = zg::let(x * x);
            return s * s;
        },
        3.0);
    const std::string text = zg::expr::to_text(e);
    CHECK(text.find("├── s0  value 9  adjoint 9\n") != std::string::npos);
    CHECK(text.find("s0 = *  value 9  adjoint 18\n") != std::string::npos);
    const std::string dot = zg::expr::to_dot(e);
    CHECK(dot.find("x0 [label=\"{ x0 | value 3 | adjoint 108 }\"]") != std::string::npos);
    // The uses are edges from the shared node's own record, which appears once.
    CHECK(dot.find("[label=\"{ s0 = * | value 9 | adjoint 18 }\"]") != std::string::npos);
    CHECK(dot.find("{ s0 | value") == std::string::npos);
}
