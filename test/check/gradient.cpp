// zg::check::gradient: correct gradients report errors near rounding, in every mode and argument
// shape; a wrong gradient is found at the right place.
#include <zerograd/check.hpp>
#include <zerograd/forward.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <span>
#include <sstream>
#include <tuple>
#include <vector>

namespace {

// Calls square, relu, sigmoid, min and max unqualified: they exist for zerograd's scalars only,
// so the finite differences must evaluate f on one of them.
const auto mixed = [](auto x, auto y) {
    return square(x) * sigmoid(y) + relu(x - y) + min(x, y) * max(x, 2 * y) + exp(x / 3) * y;
};

const auto weighted = [](auto w, auto v) {
    auto total = w * 0.0;
    for (std::size_t i = 0; i < v.size(); ++i)
        total += w * sin(v[i] * double(i + 1)) + log1p(square(v[i]));
    return total;
};

} // namespace

TEST_CASE("correct gradients give small errors") {
    SUBCASE("numbers, tape mode by default") {
        const auto report = zg::check::gradient(mixed, 1.3, -0.4);
        INFO(report);
        CHECK(report.max_relative_error < 1e-8);
        CHECK(report < 1e-8); // a report converts to its largest relative error
        CHECK(report.coordinates == 2);
    }
    SUBCASE("forward mode") {
        const auto report = zg::check::gradient(zg::check::forward_mode, mixed, 1.3, -0.4);
        INFO(report);
        CHECK(report < 1e-8);
    }
    SUBCASE("a spread std::array") {
        const auto report = zg::check::gradient(mixed, std::array{1.3, -0.4});
        INFO(report);
        CHECK(report < 1e-8);
        CHECK(report.coordinates == 2);
    }
    SUBCASE("a number and a vector, both modes") {
        const std::vector<double> v{0.3, -1.2, 2.5, 0.8, -0.05};
        const auto tape = zg::check::gradient(weighted, 0.7, v);
        const auto forward = zg::check::gradient(zg::check::forward_mode, weighted, 0.7, v);
        INFO(tape, "\n", forward);
        CHECK(tape < 1e-8);
        CHECK(forward < 1e-8);
        CHECK(tape.coordinates == 6);
    }
    SUBCASE("large coordinates: the step grows with the magnitude") {
        const auto report = zg::check::gradient([](auto x) { return log(x) * sqrt(x); }, 1e6);
        INFO(report);
        CHECK(report < 1e-8);
    }
    SUBCASE("a function written for zg::var only is evaluated on zg::var") {
        const auto f = [](std::span<const zg::var> v) { return v[0] * exp(v[1]); };
        const auto report = zg::check::gradient(f, std::vector{1.5, 0.5});
        INFO(report);
        CHECK(report < 1e-8);
    }
}

TEST_CASE("a wrong gradient is found where it is wrong") {
    SUBCASE("in a vector argument") {
        const std::vector<double> v{0.3, -1.2, 2.5, 0.8, -0.05};
        // A mode whose gradient is wrong in element 3 of argument 1.
        const auto broken = zg::check::mode([](auto& f, auto w, const auto& x) {
            auto g = zg::tape::grad(f, w, x);
            std::get<1>(g)[3] += 0.01;
            return g;
        });
        const auto report = zg::check::gradient(broken, weighted, 0.7, v);
        INFO(report);
        CHECK(report.argument == 1);
        CHECK(report.element == 3);
        CHECK(report.max_relative_error > 1e-3);
        CHECK(report.analytic - report.numeric == doctest::Approx(0.01).epsilon(1e-6));
        const double expected = 0.7 * 4 * std::cos(0.8 * 4) + 2 * 0.8 / (1 + 0.64);
        CHECK(report.numeric == doctest::Approx(expected).epsilon(1e-9));
    }
    SUBCASE("in a number, by a relative error where the partial is large") {
        const auto broken = zg::check::mode([](auto& f, auto... x) {
            auto g = zg::fwd::grad(f, x...);
            g[1] *= 1.001;
            return g;
        });
        const auto report = zg::check::gradient(
            broken, [](auto x, auto y) { return x * exp(y); }, 2.0, 5.0);
        INFO(report);
        CHECK(report.argument == 1);
        CHECK(report.element == 0);
        CHECK(report.max_relative_error == doctest::Approx(0.001 / 1.001).epsilon(1e-6));
    }
    SUBCASE("a NaN partial is the worst") {
        const auto broken = zg::check::mode([](auto& f, auto... x) {
            auto g = zg::fwd::grad(f, x...);
            g[0] = std::nan("");
            g[2] += 1;
            return g;
        });
        const auto report = zg::check::gradient(
            broken, [](auto x, auto y, auto z) { return x * y * z; }, 1.0, 2.0, 3.0);
        CHECK(std::isnan(report.max_relative_error));
        CHECK(report.argument == 0);
    }
    SUBCASE("a gradient of the wrong length is an error") {
        const auto broken = zg::check::mode([](auto& f, const auto& x) {
            auto g = zg::tape::grad(f, x);
            std::get<0>(g).pop_back();
            return g;
        });
        CHECK_THROWS_AS(zg::check::gradient(
                            broken, [](auto v) { return v[0] * v[1]; }, std::vector{1.0, 2.0}),
                        zg::error);
    }
}

TEST_CASE("a report prints where it found the largest error") {
    const zg::check::gradient_report report{0.25, 1, 3, 2.5, 2.0, 6};
    std::ostringstream out;
    out << report;
    CHECK(out.str() == "largest relative error 0.25 at argument 1, element 3: analytic 2.5, "
                       "numeric 2");
}

namespace {
/// Forward mode's gradient and checks of it in one function, as a user's test has them: g++ 12.2
/// at -O1 and -O2 once dropped the stores seeding forward mode's leaves here (see ZG_NO_IPA).
template <class F>
void forward_gradient_beside_checks(F f, double x, double y, double dx, double dy) {
    const auto forward = zg::fwd::grad(f, x, y);
    CHECK(forward[0] == doctest::Approx(dx).epsilon(1e-14));
    CHECK(forward[1] == doctest::Approx(dy).epsilon(1e-14));
    CHECK(zg::check::gradient(zg::check::forward_mode, f, x, y) < 1e-8);
    CHECK(zg::check::gradient(f, x, y) < 1e-8);
}
} // namespace

TEST_CASE("forward mode beside zg::check::gradient in one function") {
    forward_gradient_beside_checks(
        [](auto a, auto b) { return 2 * a + 1 - b / 3 + 4 / b - (-a); }, 0.37, 1.9, 3.0,
        -1.0 / 3 - 4 / (1.9 * 1.9));
    forward_gradient_beside_checks(
        [](auto a, auto b) {
            return relu(a - b) + relu(b) + abs(a - b) + min(a, b) + max(a, b) + min(a, 0.1) +
                   max(2, b);
        },
        0.37, 1.9, -1.0 + 1, 1.0 + 1 + 1); // abs and min by a; relu, abs and max by b
}
