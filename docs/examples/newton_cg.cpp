// Newton-CG on the 1,000-dimensional Rosenbrock function: each Newton step solves H p = -g by
// conjugate gradients, which needs only Hessian-vector products (zg::tape::hvp, forward-over-
// reverse). The 1,000 x 1,000 Hessian is never formed.
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <span>
#include <tuple>
#include <vector>

namespace {

using vector = std::vector<double>;

double square(double a) { return a * a; } // zerograd's variables bring their own

/// sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2: generic, so the tape records it on zg::var for
/// gradients and on dual variables for Hessian-vector products.
const auto rosenbrock = [](auto x) {
    auto total = 0.0 * x[0];
    for (std::size_t i = 0; i + 1 < x.size(); ++i)
        total += 100 * square(x[i + 1] - x[i] * x[i]) + square(1 - x[i]);
    return total;
};

double dot(const vector& a, const vector& b) {
    double total = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        total += a[i] * b[i];
    return total;
}

/// a + t b
vector step(const vector& a, double t, const vector& b) {
    vector out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        out[i] = a[i] + t * b[i];
    return out;
}

/// An approximate solution of H p = -g by conjugate gradients, stopped at a residual of
/// `tolerance` or at a direction of negative curvature (then the steepest descent direction on
/// the first iteration, else what was found so far). Returns p and the products it took.
std::pair<vector, int> newton_direction(const vector& x, const vector& g, double tolerance) {
    vector p(x.size(), 0.0), r = step(vector(x.size(), 0.0), -1, g), d = r;
    double rr = dot(r, r);
    int products = 0;
    while (std::sqrt(rr) > tolerance && products < int(x.size())) {
        const vector hd = zg::tape::hvp(rosenbrock, x, d);
        ++products;
        const double curvature = dot(d, hd);
        if (curvature <= 0) {
            if (products == 1) p = d;
            break;
        }
        const double alpha = rr / curvature;
        p = step(p, alpha, d);
        r = step(r, -alpha, hd);
        const double rr_next = dot(r, r);
        d = step(r, rr_next / rr, d);
        rr = rr_next;
    }
    return {p, products};
}

} // namespace

int main() {
    const std::size_t n = 1000;
    const double pattern[] = {1.3, 0.7, 0.8, 1.9, 1.2};
    vector x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = pattern[i % 5];
    std::printf("Newton-CG on Rosenbrock, n = %zu, from (1.3, 0.7, 0.8, 1.9, 1.2, 1.3, ...)\n", n);
    std::printf("%9s %14s %12s %12s\n", "iteration", "f(x)", "|grad f|", "H v products");
    int iteration = 0, total_products = 0;
    while (true) {
        const auto [value, gradient] = zg::tape::value_and_grad(rosenbrock, x);
        const vector& g = std::get<0>(gradient);
        const double norm = std::sqrt(dot(g, g));
        if (norm < 1e-9 || iteration == 100) {
            std::printf(
                "stopped after %d iterations and %d Hessian-vector products: "
                "|grad f| %s 1e-9, x %s 1 to 1e-9\n",
                iteration, total_products, norm < 1e-9 ? "<" : ">=",
                std::all_of(x.begin(), x.end(), [](double xi) { return std::abs(xi - 1) < 1e-9; })
                    ? "within"
                    : "not within");
            break;
        }
        const auto [p, products] = newton_direction(x, g, std::min(0.5, std::sqrt(norm)) * norm);
        total_products += products;
        // Backtracking until the decrease is at least a 1e-4 fraction of the predicted one.
        double t = 1;
        const double slope = dot(g, p);
        vector next = step(x, t, p);
        while (rosenbrock(std::span<const double>(next)) > value + 1e-4 * t * slope) {
            t /= 2;
            next = step(x, t, p);
        }
        x = next;
        ++iteration;
        std::printf("%9d %14.3e %12.3e %12d\n", iteration, value, norm, products);
    }
}
