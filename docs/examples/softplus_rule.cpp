// A rule of your own: softplus(z) = log(1 + e^z), written once with its derivative and used as
// the loss of a logistic regression in expression mode, tape mode and on tensors. Each mode
// gives the same gradient; so do the library's operations doing the same math. (zerograd has a
// softplus of its own, stable at any magnitude; this one shows how a rule is written.)
#include <zerograd/zerograd.hpp>

#include <cmath>
#include <cstdio>
#include <ranges>
#include <span>
#include <string_view>
#include <vector>

struct softplus_rule {
    static constexpr std::string_view name = "softplus";
    template <class T>
    T value(const T& z) const {
        using std::exp, std::log1p;
        return log1p(exp(z));
    }
    template <class T>
    T dx(const T& z, const T&) const { // the logistic function
        using std::exp;
        return 1 / (1 + exp(-z));
    }
};
inline constexpr zg::function<softplus_rule> softplus{};

// Eight points in the plane, labelled +1 or -1.
const std::vector<double> u{0.5, 1.5, -0.3, 2.0, -1.2, 0.1, -2.0, 1.0};
const std::vector<double> v{1.0, -0.5, 0.8, 1.2, -1.0, -1.5, 0.4, 2.2};
const std::vector<double> label{1, 1, -1, 1, -1, -1, -1, 1};
const int n = 8;

// The negative log-likelihood of p(label | point) = logistic(label (a u + b v + c)).
void print(const char* mode, double loss, double da, double db, double dc) {
    std::printf("%-28s loss %.10f  gradient %+.10f %+.10f %+.10f\n", mode, loss, da, db, dc);
}

int main() {
    const double a = 0.2, b = -0.1, c = 0.05;

    // Expression mode: a sum over the points' indices, the parameters as leaves.
    const auto expr = zg::value_and_grad(
        [](auto pa, auto pb, auto pc) {
            return zg::sum(zg::range(n), [&](int i) {
                return softplus(-label[i] * (pa * u[i] + pb * v[i] + pc));
            });
        },
        a, b, c);
    print("expression mode", expr.value, expr.grad[0], expr.grad[1], expr.grad[2]);

    // Tape mode: a loop, as in plain C++.
    const auto tape = zg::tape::value_and_grad(
        [](zg::var pa, zg::var pb, zg::var pc) {
            zg::var total = 0.0;
            for (int i = 0; i < n; ++i)
                total += softplus(-label[i] * (pa * u[i] + pb * v[i] + pc));
            return total;
        },
        a, b, c);
    print("tape mode", tape.value, tape.grad[0], tape.grad[1], tape.grad[2]);

    // Tensors: the points as an 8 x 2 matrix, softplus per element.
    std::vector<double> points;
    for (int i = 0; i < n; ++i)
        points.insert(points.end(), {u[i], v[i]});
    const auto x = zg::tensor::from(points, {8, 2});
    const auto y = zg::tensor::from(label, {8, 1});
    auto weights = zg::tensor::from({a, b}, {2, 1}, true);
    auto bias = zg::tensor::from({c}, {1}, true);
    auto loss = zg::sum(softplus(-y * (matmul(x, weights) + bias)));
    loss.backward();
    print("tensors", loss.data()[0], weights.grad()[0], weights.grad()[1], bias.grad()[0]);

    // The same loss from the library's operations: log1p(exp(z)), two nodes instead of one.
    const auto builtin = zg::tape::value_and_grad(
        [](zg::var pa, zg::var pb, zg::var pc) {
            zg::var total = 0.0;
            for (int i = 0; i < n; ++i)
                total += log1p(exp(-label[i] * (pa * u[i] + pb * v[i] + pc)));
            return total;
        },
        a, b, c);
    print("log1p(exp(z)), tape mode", builtin.value, builtin.grad[0], builtin.grad[1],
          builtin.grad[2]);

    // Its name in the recorded graph.
    zg::var z = 0.5;
    zg::var s = softplus(2 * z);
    std::printf("tape node: %s\n", zg::tape::this_thread_tape().label(s.index()).c_str());
    std::printf("softplus(1) = %.10f\n", softplus(1.0));
}
