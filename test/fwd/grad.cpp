// zg::derivative, zg::fwd::grad and zg::fwd::value_and_grad: every argument shape of
// docs/api.md, and agreement with tape mode.
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <span>
#include <tuple>
#include <type_traits>
#include <vector>

TEST_CASE("zg::derivative") {
    SUBCASE("of a generic lambda") {
        CHECK(zg::derivative([](auto x) { return x * sin(x); }, 2.0) ==
              std::sin(2.0) + 2 * std::cos(2.0));
        CHECK(zg::derivative([](auto x) { return 3 * x + 1; }, 2) == 3.0); // an int argument
    }
    SUBCASE("of a function on zg::dual") {
        const auto g = [](zg::dual x) { return exp(-square(x)); };
        CHECK(zg::derivative(g, 0.5) == -2 * 0.5 * std::exp(-0.25));
        static_assert(std::is_same_v<decltype(zg::derivative(g, 0.5)), double>);
    }
    SUBCASE("of a constant") {
        CHECK(zg::derivative([](auto) { return 4.0; }, 1.0) == 0.0);
    }
    SUBCASE("nested, at the outer variable: higher derivatives") {
        const auto cube = [](auto y) { return y * y * y; };
        const auto first = [&](auto x) { return zg::derivative(cube, x); };
        CHECK(zg::derivative(first, 2.0) == 12.0); // (x^3)'' = 6x
        const auto second = [&](auto x) { return zg::derivative(first, x); };
        CHECK(zg::derivative(second, 2.0) == 6.0);
        // x * d/dy (x y) at y = x is x^2: derivative 2x, each perturbation kept apart.
        const auto outer = [](auto x) {
            return x * zg::derivative([&](auto y) { return x * y; }, x);
        };
        CHECK(zg::derivative(outer, 3.0) == 6.0);
        // At a constant, lifted to the enclosing variable's type: x * d/dy (x + y) is x.
        const auto lifted = [](auto x) {
            return x * zg::derivative([&](auto y) { return x + y; }, decltype(x)(1.0));
        };
        CHECK(zg::derivative(lifted, 3.0) == 1.0);
        const auto sine = [](auto x) { return zg::derivative([](auto y) { return sin(y); }, x); };
        CHECK(zg::derivative(sine, 0.7) == -std::sin(0.7));
        CHECK(zg::derivative([](auto x) { return zg::derivative([](auto) { return 4.0; }, x); },
                             1.0) == 0.0);
    }
}

TEST_CASE("numbers give std::array") {
    const auto f = [](auto x, auto y) { return x * y + sin(x); };
    const std::array<double, 2> g = zg::fwd::grad(f, 2.0, 3.0);
    CHECK(g[0] == 3.0 + std::cos(2.0));
    CHECK(g[1] == 2.0);
    const auto [v, g2] = zg::fwd::value_and_grad(f, 2.0, 3.0);
    CHECK(v == 6.0 + std::sin(2.0));
    CHECK(g2 == g);
    CHECK(zg::fwd::grad(f, 2, 3) == g); // integers are numbers too
    CHECK(zg::tape::grad(f, 2.0, 3.0) == g);
}

TEST_CASE("a single std::array is spread into leaves") {
    const auto rosenbrock = [](auto x, auto y) { return square(1 - x) + 100 * square(y - x * x); };
    const std::array<double, 2> g = zg::fwd::grad(rosenbrock, std::array{-1.2, 1.0});
    CHECK(g[0] == doctest::Approx(-2 * 2.2 - 400 * -1.2 * (1.0 - 1.44)).epsilon(1e-14));
    CHECK(g[1] == doctest::Approx(200 * (1.0 - 1.44)).epsilon(1e-14));
    CHECK(g == zg::tape::grad(rosenbrock, std::array{-1.2, 1.0}));
}

TEST_CASE("ranges become one vector leaf, seen as std::span<const zg::dual>") {
    const auto weighted = [](auto w, std::span<const zg::dual> x) {
        zg::dual total = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i)
            total += w * x[i] * x[i] * double(i + 1);
        return total;
    };
    const std::vector<double> x{1.0, 2.0, 3.0};
    const auto [value, grad] = zg::fwd::value_and_grad(weighted, 2.0, x);
    CHECK(value == 2.0 * (1 + 8 + 27));
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(grad)>,
                                 std::tuple<double, std::vector<double>>>);
    const auto& [dw, dx] = grad;
    CHECK(dw == 36.0);
    CHECK(dx == std::vector<double>{4.0, 16.0, 36.0});

    const std::span<const double> view(x);
    const std::tuple<std::vector<double>> only =
        zg::fwd::grad([](std::span<const zg::dual> v) { return v[0] * v[2]; }, view);
    CHECK(std::get<0>(only) == std::vector<double>{3.0, 0.0, 1.0});

    const auto three =
        zg::fwd::grad([](auto a, auto v, auto b) { return a * v[0] + b * v[1] * v[1]; }, 1.0, x, 3);
    CHECK(three == std::tuple{1.0, std::vector<double>{1.0, 12.0, 0.0}, 4.0});
}

TEST_CASE("an empty vector leaf has an empty gradient, and f still gives the value") {
    const std::vector<double> none;
    const auto [value, grad] = zg::fwd::value_and_grad(
        [](std::span<const zg::dual> v) { return zg::dual(double(v.size()) + 7); }, none);
    CHECK(value == 7.0);
    CHECK(std::get<0>(grad).empty());
}

TEST_CASE("a function that ignores its inputs has zero gradient") {
    const auto [v, g] = zg::fwd::value_and_grad([](auto) { return 4.0; }, 1.0);
    CHECK(v == 4.0);
    CHECK(g[0] == 0.0);
}

TEST_CASE("forward and reverse agree on a function with branches and loops") {
    const auto f = [](auto a, auto v) {
        auto total = a * 0.0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (v[i] > 0)
                total += a * log1p(v[i]);
            else
                total += tanh(v[i] * a);
        }
        return total / double(v.size()) + pow(a, 3);
    };
    const std::vector<double> v{0.5, -1.0, 2.0, -0.25};
    const auto forward = zg::fwd::value_and_grad(f, 1.3, v);
    const auto reverse = zg::tape::value_and_grad(f, 1.3, v);
    CHECK(forward.value == doctest::Approx(reverse.value).epsilon(1e-15));
    CHECK(std::get<0>(forward.grad) == doctest::Approx(std::get<0>(reverse.grad)).epsilon(1e-14));
    for (std::size_t i = 0; i < v.size(); ++i)
        CHECK(std::get<1>(forward.grad)[i] ==
              doctest::Approx(std::get<1>(reverse.grad)[i]).epsilon(1e-14));
}

TEST_CASE("norm: no overflow near 1e200, gradient 0 at the zero vector, as in reverse mode") {
    const auto norm_of = [](std::span<const zg::dual> x) { return zg::norm(x); };
    const auto large = std::get<0>(zg::fwd::grad(norm_of, std::vector<double>{3e200, 4e200}));
    CHECK(large[0] == doctest::Approx(0.6).epsilon(1e-15));
    CHECK(large[1] == doctest::Approx(0.8).epsilon(1e-15));
    CHECK(std::get<0>(zg::fwd::grad(norm_of, std::vector<double>{0.0, 0.0})) ==
          std::vector<double>{0.0, 0.0});
}
