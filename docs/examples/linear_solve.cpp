// A linear solve A x = b as a black box (zg::tape::external) whose adjoint is one more solve:
// with lambda = A^-T xbar, bbar = lambda and Abar = -lambda x^T. Checked against the tape
// differentiating the solver's own operations, whose recording grows as n^3 where the black
// box's holds its inputs and n outputs.
#include <zerograd/tape.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <span>
#include <tuple>
#include <vector>

namespace {

const std::size_t n = 6;

/// Solves A x = b (A row-major, n x n) by Gaussian elimination with partial pivoting. Generic:
/// the black box runs it on doubles; the tape can also record its every operation.
template <class T>
std::vector<T> solve(std::vector<T> a, std::vector<T> b) {
    using std::abs;
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (abs(a[r * n + c]) > abs(a[pivot * n + c])) pivot = r;
        for (std::size_t j = 0; j < n; ++j)
            std::swap(a[c * n + j], a[pivot * n + j]);
        std::swap(b[c], b[pivot]);
        for (std::size_t r = c + 1; r < n; ++r) {
            const T factor = a[r * n + c] / a[c * n + c];
            for (std::size_t j = c; j < n; ++j)
                a[r * n + j] = a[r * n + j] - factor * a[c * n + j];
            b[r] = b[r] - factor * b[c];
        }
    }
    std::vector<T> x(n, T(0.0));
    for (std::size_t r = n; r-- > 0;) {
        T total = b[r];
        for (std::size_t j = r + 1; j < n; ++j)
            total = total - a[r * n + j] * x[j];
        x[r] = total / a[r * n + r];
    }
    return x;
}

/// x = A^-1 b as one black box of n * n + n inputs (A, then b) and n outputs.
std::vector<zg::var> solve_black_box(std::span<const zg::var> a_and_b) {
    const auto value = [](std::span<const double> v) {
        return solve(std::vector(v.begin(), v.begin() + n * n),
                     std::vector(v.begin() + n * n, v.end()));
    };
    const auto vjp = [](std::span<const double> v, std::span<const double> x,
                        std::span<const double> xbar, std::span<double> vbar) {
        std::vector<double> a_transposed(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                a_transposed[j * n + i] = v[i * n + j];
        const auto lambda = solve(a_transposed, std::vector(xbar.begin(), xbar.end()));
        for (std::size_t i = 0; i < n; ++i) {
            vbar[n * n + i] += lambda[i];
            for (std::size_t j = 0; j < n; ++j)
                vbar[i * n + j] -= lambda[i] * x[j];
        }
    };
    return zg::tape::external(a_and_b, value, vjp);
}

/// A loss of the solution: sum_i (i + 1) x_i^2.
template <class T>
T loss_of(const std::vector<T>& x) {
    T total = 0.0 * x[0];
    for (std::size_t i = 0; i < n; ++i)
        total += double(i + 1) * x[i] * x[i];
    return total;
}

} // namespace

int main() {
    // A diagonally dominant A and a b, then A's entries and b's as one input vector.
    std::vector<double> inputs(n * n + n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            inputs[i * n + j] = i == j ? 4.0 + double(i) : std::sin(double(3 * i + j));
        inputs[n * n + i] = std::cos(double(i));
    }
    std::size_t box_nodes = 0, plain_nodes = 0;
    const auto [box_value, box_grad] = zg::tape::value_and_grad(
        [&](std::span<const zg::var> v) {
            const auto x = solve_black_box(v);
            box_nodes = v[0].tape().size();
            return loss_of(x);
        },
        inputs);
    const auto [plain_value, plain_grad] = zg::tape::value_and_grad(
        [&](std::span<const zg::var> v) {
            const auto x = solve(std::vector<zg::var>(v.begin(), v.begin() + n * n),
                                 std::vector<zg::var>(v.begin() + n * n, v.end()));
            plain_nodes = v[0].tape().size();
            return loss_of(x);
        },
        inputs);
    double worst = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i)
        worst = std::max(worst, std::abs(std::get<0>(box_grad)[i] - std::get<0>(plain_grad)[i]));
    std::printf("A x = b with n = %zu: loss %.12f (black box) and %.12f (recorded solver)\n", n,
                box_value, plain_value);
    std::printf("nodes on the tape: %zu with the black box, %zu recording the solver\n", box_nodes,
                plain_nodes);
    std::printf("d loss / d b:");
    for (std::size_t i = 0; i < n; ++i)
        std::printf(" %.6f", std::get<0>(box_grad)[n * n + i]);
    std::printf("\nlargest difference from the recorded solver's gradient (%zu numbers): %s\n",
                inputs.size(), worst < 1e-12 ? "below 1e-12" : "TOO LARGE");
}
