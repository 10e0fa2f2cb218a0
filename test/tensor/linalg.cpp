// solve, inverse, cholesky and logdet: values against closed forms, gradients against central
// differences (single matrices, batches, broadcasting, vectors), and their errors.
#include "gradient_check.hpp"

#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using tensor_test::check_gradients;
using tensor_test::close;
using zg::tensor;

namespace {

// Symmetric positive definite: 3 x 3, and a batch of two 2 x 2.
const std::vector<double> spd3 = {4.0, 1.2, -0.6, 1.2, 3.0, 0.4, -0.6, 0.4, 2.5};
const std::vector<double> spd2x2 = {2.0, 0.3, 0.3, 1.5, 5.0, -1.0, -1.0, 0.8};
// General (non-symmetric, needs pivoting: a zero in the first place).
const std::vector<double> general3 = {0.0, 2.0, 1.0, 1.5, -1.0, 0.5, 0.7, 0.3, 3.0};

std::string error_of(const auto& call) {
    try {
        call();
    } catch (const zg::error& e) {
        return e.what();
    }
    return "no error";
}

// Makes the 3 x 3 input symmetric before the operation, so that finite differences move both
// triangles together, as a symmetric matrix's perturbation does.
tensor symmetrized(const tensor& a) { return 0.5 * (a + transpose(a)); }

} // namespace

TEST_CASE("solve, inverse, cholesky and logdet: values") {
    const tensor a = tensor::from({4, 2, 2, 3}, {2, 2});
    const tensor x = solve(a, tensor::from({2, 1}, {2}));
    CHECK(x.shape() == std::vector<std::size_t>{2});
    // [4 2; 2 3] x = [2, 1]: x = [0.5, 0]
    CHECK(close(x.data()[0], 0.5, 1e-15));
    CHECK(close(x.data()[1], 0.0, 1e-15));
    const tensor y = inverse(a); // [3 -2; -2 4] / 8
    const std::vector<double> inv = {0.375, -0.25, -0.25, 0.5};
    for (std::size_t i = 0; i < 4; ++i)
        CHECK(close(y.data()[i], inv[i], 1e-15));
    const tensor l = cholesky(a); // [2 0; 1 sqrt(2)]
    CHECK(close(l.data()[0], 2.0, 1e-15));
    CHECK(l.data()[1] == 0.0);
    CHECK(close(l.data()[2], 1.0, 1e-15));
    CHECK(close(l.data()[3], std::sqrt(2.0), 1e-15));
    const tensor d = logdet(a);
    CHECK(d.shape().rank() == 0);
    CHECK(close(d.item(), std::log(8.0), 1e-15));
    // A batch: one logdet per matrix.
    const tensor batch = logdet(tensor::from(spd2x2, {2, 2, 2}));
    CHECK(batch.shape() == std::vector<std::size_t>{2});
    CHECK(close(batch.data()[0], std::log(2.0 * 1.5 - 0.09), 1e-14));
    CHECK(close(batch.data()[1], std::log(5.0 * 0.8 - 1.0), 1e-14));
}

TEST_CASE("cholesky reads the lower triangle and its gradient is symmetric") {
    const tensor a = tensor::from({4, 99, 2, 3}, {2, 2}, true); // 99 is above the diagonal
    const tensor l = cholesky(a);
    CHECK(close(l.data()[2], 1.0, 1e-15));
    sum(l).backward();
    CHECK(close(a.grad()[1], a.grad()[2], 1e-15));
    // d/dA of logdet = A^-1, symmetric: [3 -2; -2 4] / 8.
    const tensor b = tensor::from({4, 2, 2, 3}, {2, 2}, true);
    logdet(b).backward();
    const std::vector<double> inv = {0.375, -0.25, -0.25, 0.5};
    for (std::size_t i = 0; i < 4; ++i)
        CHECK(close(b.grad()[i], inv[i], 1e-15));
    // A batch: each matrix's inverse, scaled by its weight.
    const tensor batch = tensor::from(spd2x2, {2, 2, 2}, true);
    sum(logdet(batch) * tensor::from({1.0, -2.0}, {2})).backward();
    const tensor inverses = inverse(tensor::from(spd2x2, {2, 2, 2}));
    for (std::size_t i = 0; i < 8; ++i)
        CHECK(close(batch.grad()[i], (i < 4 ? 1.0 : -2.0) * inverses.data()[i], 1e-14));
}

TEST_CASE("logdet's gradient is the inverse for matrices of several column blocks") {
    // 150 x 150: the inverse from the Cholesky factor works in blocks of 64 columns.
    const std::size_t n = 150;
    std::vector<double> values(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            values[i * n + j] = (i == j ? 3.0 : 0.0) + 1.0 / (1.0 + double(i > j ? i - j : j - i));
    const tensor a = tensor::from(values, {n, n}, true);
    logdet(a).backward();
    const tensor expected = inverse(tensor::from(values, {n, n}));
    double worst = 0.0;
    for (std::size_t i = 0; i < n * n; ++i)
        worst = std::max(worst, std::abs(a.grad()[i] - expected.data()[i]));
    CHECK(worst < 1e-14);
}

TEST_CASE("solve gradients match finite differences") {
    const auto f = [](const std::vector<tensor>& in) { return solve(in[0], in[1]); };
    const std::vector<double> six = {0.4, -1.3, 2.2, 0.9, -0.6, 1.7};
    check_gradients(f, {{general3, {3, 3}}, {{0.3, -0.2, 1.1}, {3}}});          // a vector
    check_gradients(f, {{general3, {3, 3}}, {six, {3, 2}}});                    // a matrix
    check_gradients(f, {{spd2x2, {2, 2, 2}}, {{1.0, 2.0, -1.0, 0.5}, {2, 2}}}); // vectors
    check_gradients(f, {{spd2x2, {2, 2, 2}}, {{1.0, 2.0}, {2, 1}}});            // broadcast B
    check_gradients(
        f, {{spd3, {3, 3}},
            {{six[0], six[1], six[2], six[3], six[4], six[5], 0.1, 0.2, 0.3, 0.4, 0.5, 0.6},
             {2, 3, 2}}}); // broadcast A
}

TEST_CASE("inverse, cholesky and logdet gradients match finite differences") {
    check_gradients([](const std::vector<tensor>& in) { return inverse(in[0]); },
                    {{general3, {3, 3}}});
    check_gradients([](const std::vector<tensor>& in) { return inverse(in[0]); },
                    {{spd2x2, {2, 2, 2}}});
    check_gradients([](const std::vector<tensor>& in) { return cholesky(symmetrized(in[0])); },
                    {{spd3, {3, 3}}});
    check_gradients([](const std::vector<tensor>& in) { return logdet(symmetrized(in[0])); },
                    {{spd3, {3, 3}}});
    // A chain of them: log det of the Cholesky factor times its transpose, solved against.
    check_gradients(
        [](const std::vector<tensor>& in) {
            const tensor l = cholesky(symmetrized(in[0]));
            return solve(inverse(matmul(l, transpose(l))), in[1]) + logdet(symmetrized(in[0]));
        },
        {{spd3, {3, 3}}, {{1.0, -2.0, 0.5}, {3}}});
}

TEST_CASE("linear algebra errors name the operation and the shapes or the matrix") {
    const tensor square = tensor::from(spd3, {3, 3});
    CHECK(error_of([&] { solve(square, tensor::ones({2})); }) ==
          "zg::solve: shapes [3, 3] and [2] do not match (A is [..., n, n], B is [..., n, k] or "
          "[..., n])");
    CHECK(error_of([&] {
              inverse(tensor::ones({2, 3}));
          }) ==
          "zg::inverse: needs a square matrix or a batch of them (shape [..., n, n]), not shape "
          "[2, 3]");
    CHECK(error_of([&] { logdet(tensor::ones({3})); }).starts_with("zg::logdet: needs a square"));
    CHECK(error_of([&] {
              cholesky(tensor::from({1, 2, 2, 1}, {2, 2}));
          }) == "zg::cholesky: the matrix of shape [2, 2] is not positive definite");
    CHECK(error_of([&] {
              logdet(tensor::from({1, 0, 0, 1, 1, 2, 2, 1}, {2, 2, 2}));
          }) == "zg::logdet: matrix 1 of the batch of shape [2, 2, 2] is not positive definite");
    CHECK(error_of([&] {
              solve(tensor::from({1, 2, 2, 4}, {2, 2}), tensor::ones({2}));
          }) == "zg::solve: the matrix of shape [2, 2] is singular");
    CHECK(error_of([&] {
              inverse(tensor::zeros({2, 2}));
          }) == "zg::inverse: the matrix of shape [2, 2] is singular");
    CHECK_THROWS_AS(cholesky(tensor::ones({2, 2})), zg::domain_error);
}

TEST_CASE("linear algebra refuses NaN and infinity in the entries it reads") {
    const double nan = std::nan(""), inf = INFINITY;
    CHECK(error_of([&] {
              inverse(tensor::from({1, 0, nan, 1}, {2, 2}));
          }) == "zg::inverse: the matrix of shape [2, 2] has an entry that is NaN or infinite");
    CHECK(error_of([&] {
              solve(tensor::from({1, 0, 0, 1, 1, 0, 0, inf}, {2, 2, 2}), tensor::ones({2, 2}));
          }) == "zg::solve: matrix 1 of the batch of shape [2, 2, 2] has an entry that is NaN or "
                "infinite");
    CHECK(error_of([&] {
              cholesky(tensor::from({inf, 0, 0, 1}, {2, 2}));
          }) == "zg::cholesky: the matrix of shape [2, 2] has an entry that is NaN or infinite");
    CHECK(error_of([&] {
              logdet(tensor::from({2, 0, nan, 2}, {2, 2}));
          }) == "zg::logdet: the matrix of shape [2, 2] has an entry that is NaN or infinite");
    // Above the diagonal is not read by cholesky and logdet: a NaN there is not A's.
    const tensor upper_nan = logdet(tensor::from({2, nan, 0, 2}, {2, 2}));
    CHECK(close(upper_nan.item(), 2.0 * std::log(2.0), 1e-15));
}

TEST_CASE("after each operation's error the tape is as it was, and still differentiates") {
    const tensor a = tensor::from({4, 2, 2, 3}, {2, 2}, true);
    const tensor singular = tensor::from({1, 2, 2, 4}, {2, 2}, true);
    const tensor b = tensor::ones({2}, true);
    const std::size_t before = a.tape().size();
    CHECK_THROWS_AS(solve(singular, b), zg::domain_error);
    CHECK_THROWS_AS(inverse(singular), zg::domain_error);
    CHECK_THROWS_AS(cholesky(singular), zg::domain_error);
    CHECK_THROWS_AS(logdet(singular), zg::domain_error);
    CHECK_THROWS_AS(solve(a, tensor::ones({3})), zg::shape_error);
    CHECK(a.tape().size() == before + 1); // the ones({3}) leaf only
    // d/dA log det A = A^-1 = [[3, -2], [-2, 4]] / 8.
    logdet(a).backward();
    CHECK(close(a.grad()[0], 0.375, 1e-15));
    CHECK(close(a.grad()[1], -0.25, 1e-15));
    CHECK(close(a.grad()[3], 0.5, 1e-15));
    CHECK(singular.grad()[0] == 0.0);
}
