// zg::tape::grad and zg::tape::value_and_grad: every argument shape of docs/api.md.
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <span>
#include <tuple>
#include <vector>

TEST_CASE("numbers give std::array") {
    const auto f = [](auto x, auto y) { return x * y + sin(x); };
    const std::array<double, 2> g = zg::tape::grad(f, 2.0, 3.0);
    CHECK(g[0] == 3.0 + std::cos(2.0));
    CHECK(g[1] == 2.0);
    const auto [v, g2] = zg::tape::value_and_grad(f, 2.0, 3.0);
    CHECK(v == 6.0 + std::sin(2.0));
    CHECK(g2 == g);
    CHECK(zg::tape::grad(f, 2, 3) == g); // integers are numbers too
}

TEST_CASE("a single std::array is spread into leaves") {
    const auto rosenbrock = [](auto x, auto y) { return square(1 - x) + 100 * square(y - x * x); };
    const std::array<double, 2> g = zg::tape::grad(rosenbrock, std::array{-1.2, 1.0});
    CHECK(g[0] == doctest::Approx(-2 * 2.2 - 400 * -1.2 * (1.0 - 1.44)).epsilon(1e-14));
    CHECK(g[1] == doctest::Approx(200 * (1.0 - 1.44)).epsilon(1e-14));
}

TEST_CASE("ranges become one vector leaf, seen as std::span<const zg::var>") {
    const auto weighted = [](auto w, std::span<const zg::var> x) {
        zg::var total = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i)
            total += w * x[i] * x[i] * double(i + 1);
        return total;
    };
    const std::vector<double> x{1.0, 2.0, 3.0};
    const auto [value, grad] = zg::tape::value_and_grad(weighted, 2.0, x);
    CHECK(value == 2.0 * (1 + 8 + 27));
    const auto& [dw, dx] = grad;
    CHECK(dw == 36.0);
    CHECK(dx == std::vector<double>{4.0, 16.0, 36.0});

    const std::span<const double> view(x);
    const std::tuple<std::vector<double>> only =
        zg::tape::grad([](std::span<const zg::var> v) { return v[0] * v[2]; }, view);
    CHECK(std::get<0>(only) == std::vector<double>{3.0, 0.0, 1.0});
}

TEST_CASE("a function that ignores its inputs has zero gradient") {
    const auto [v, g] = zg::tape::value_and_grad([](auto) { return 4.0; }, 1.0);
    CHECK(v == 4.0);
    CHECK(g[0] == 0.0);
}

TEST_CASE("nothing recorded by f stays on the tape") {
    zg::var parameter = 1.0;
    const auto before = zg::tape::this_thread_tape().size();
    const auto g =
        zg::tape::grad([&](auto x) { return x * parameter + exp(x); }, 0.5); // captures a var
    CHECK(g[0] == doctest::Approx(1.0 + std::exp(0.5)).epsilon(1e-15));
    CHECK(zg::tape::this_thread_tape().size() == before);
    CHECK(parameter.grad() == 0.0); // the sweep stops at f's own leaves
}

TEST_CASE("<zerograd/tape.hpp> alone gives zg::tape::hessian and zg::jacobian") {
    // docs/api.md lists both with tape mode; this file includes no other zerograd header.
    const auto hessian = zg::tape::hessian(
        [](auto x) { return x[0] * x[0] * x[1]; }, std::vector<double>{2.0, 3.0});
    CHECK(hessian == std::vector<std::vector<double>>{{6.0, 4.0}, {4.0, 0.0}});
    const auto jacobian = zg::jacobian(
        [](auto x) {
            return std::vector<typename decltype(x)::value_type>{x[0] * x[1], sin(x[0])};
        },
        std::vector<double>{2.0, 3.0});
    CHECK(jacobian == std::vector<std::vector<double>>{{3.0, 2.0}, {std::cos(2.0), 0.0}});
}

TEST_CASE("a captured variable is a constant: its grad() is left as it was") {
    zg::var weight = 3.0;
    weight.grad() = 0.25;
    const auto [value, grad] =
        zg::tape::value_and_grad([&](auto x) { return x * weight + square(weight); }, 2.0);
    CHECK(value == 15.0);
    CHECK(grad[0] == 3.0);
    CHECK(weight.grad() == 0.25);
}
