// test/tensor/matmul_cases.hpp: matmul, transpose and reshape, included by matmul.cpp (Eigen's
// kernels) and matmul_loops.cpp (the plain loops, ZG_NO_EIGEN), so both kernels pass one suite.
#pragma once

#include "gradient_check.hpp"

#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <vector>

using tensor_test::check_gradients;
using zg::tensor;

TEST_CASE("matmul of matrices: value, dA = G B^T, dB = A^T G") {
    const tensor a = tensor::from({1, 2, 3, 4, 5, 6}, {2, 3}, true);
    const tensor b = tensor::from({7, 8, 9, 10, 11, 12}, {3, 2}, true);
    const tensor c = matmul(a, b);
    CHECK(c.shape() == std::vector<std::size_t>{2, 2});
    CHECK(c.data()[0] == 58.0);
    CHECK(c.data()[1] == 64.0);
    CHECK(c.data()[2] == 139.0);
    CHECK(c.data()[3] == 154.0);
    const tensor g = tensor::from({1, -1, 2, 0.5}, {2, 2});
    sum(c * g).backward();
    // dA = G B^T: row i of G dotted with row p of B.
    const std::vector<double> da = {7 - 8, 9 - 10, 11 - 12, 14 + 4, 18 + 5, 22 + 6};
    // dB = A^T G: column p of A dotted with column j of G.
    const std::vector<double> db = {1 + 8, -1 + 2, 2 + 10, -2 + 2.5, 3 + 12, -3 + 3};
    for (std::size_t i = 0; i < 6; ++i) {
        CHECK(a.grad()[i] == da[i]);
        CHECK(b.grad()[i] == db[i]);
    }
}

TEST_CASE("matmul gradients match finite differences in every supported form") {
    const auto f = [](const std::vector<tensor>& in) { return matmul(in[0], in[1]); };
    const std::vector<double> six = {0.4, -1.3, 2.2, 0.9, -0.6, 1.7};
    const std::vector<double> twelve = {0.1, 0.5,  -0.3, 1.2, -1.1, 0.8,
                                        0.2, -0.4, 0.9,  1.5, -0.7, 0.6};
    check_gradients(f, {{six, {2, 3}}, {twelve, {3, 4}}});                  // [2, 3] x [3, 4]
    check_gradients(f, {{{0.3, -0.2, 1.1}, {3}}, {twelve, {3, 4}}});        // [3] x [3, 4] -> [4]
    check_gradients(f, {{twelve, {4, 3}}, {{0.3, -0.2, 1.1}, {3}}});        // [4, 3] x [3] -> [4]
    check_gradients(f, {{{0.3, -0.2, 1.1}, {3}}, {{1.0, 0.5, -2.0}, {3}}}); // dot -> []
    check_gradients(f, {{twelve, {2, 2, 3}}, {six, {3, 2}}});               // batch x matrix
    check_gradients(f, {{six, {2, 3}}, {twelve, {2, 3, 2}}});               // matrix x batch
    check_gradients(f, {{twelve, {2, 1, 2, 3}}, {twelve, {2, 3, 2}}});      // batches broadcast
}

TEST_CASE("matmul shapes") {
    const auto shape = [](zg::tensor_shape a, zg::tensor_shape b) {
        return matmul(tensor::ones(a), tensor::ones(b)).shape().to_string();
    };
    CHECK(shape({2, 3}, {3, 4}) == "[2, 4]");
    CHECK(shape({3}, {3, 4}) == "[4]");
    CHECK(shape({2, 3}, {3}) == "[2]");
    CHECK(shape({3}, {3}) == "[]");
    CHECK(shape({5, 2, 3}, {3, 4}) == "[5, 2, 4]");
    CHECK(shape({5, 1, 2, 3}, {6, 3, 4}) == "[5, 6, 2, 4]");
    CHECK(matmul(tensor::ones({2, 3}), tensor::ones({3, 4})).data()[7] == 3.0);
}

TEST_CASE("matmul shape errors name both shapes") {
    CHECK_THROWS_WITH_AS(matmul(tensor::zeros({2, 3}), tensor::zeros({4, 5})),
                         "zg::matmul: shapes [2, 3] and [4, 5] do not match", zg::shape_error);
    CHECK_THROWS_WITH_AS(matmul(tensor::zeros({3}), tensor::zeros({2})),
                         "zg::matmul: shapes [3] and [2] do not match", zg::shape_error);
    CHECK_THROWS_WITH_AS(matmul(tensor::zeros({}), tensor::zeros({2})),
                         "zg::matmul: shapes [] and [2] do not match", zg::shape_error);
    CHECK_THROWS_WITH_AS(matmul(tensor::zeros({2, 2, 3}), tensor::zeros({3, 3, 4})),
                         "zg::matmul: shapes [2, 2, 3] and [3, 3, 4] do not match",
                         zg::shape_error);
}

TEST_CASE("transpose reverses the axes") {
    const tensor a = tensor::from({1, 2, 3, 4, 5, 6}, {2, 3}, true);
    const tensor t = transpose(a);
    CHECK(t.shape() == std::vector<std::size_t>{3, 2});
    CHECK(t.data()[1] == 4.0);
    CHECK(t.data()[2] == 2.0);
    CHECK(transpose(tensor::zeros({2, 3, 4})).shape().to_string() == "[4, 3, 2]");
    CHECK(transpose(tensor::ones({3})).shape().to_string() == "[3]");
    const auto f = [](const std::vector<tensor>& in) { return transpose(in[0]); };
    check_gradients(f, {{{0.4, -1.3, 2.2, 0.9, -0.6, 1.7}, {2, 3}}});
    check_gradients(
        f, {{{0.1, 0.5, -0.3, 1.2, -1.1, 0.8, 0.2, -0.4, 0.9, 1.5, -0.7, 0.6}, {2, 3, 2}}});
    // matmul(a, transpose(a)) uses a on both sides: 2 a per entry of sum's gradient.
    check_gradients([](const std::vector<tensor>& in) { return matmul(in[0], transpose(in[0])); },
                    {{{0.4, -1.3, 2.2, 0.9, -0.6, 1.7}, {2, 3}}});
}

TEST_CASE("reshape keeps the values and routes gradients back") {
    const tensor a = tensor::from({1, 2, 3, 4, 5, 6}, {2, 3}, true);
    const tensor r = reshape(a, {3, 2});
    CHECK(r.shape().to_string() == "[3, 2]");
    CHECK(r.data()[5] == 6.0);
    check_gradients([](const std::vector<tensor>& in) { return reshape(in[0], {6}) * 2.0; },
                    {{{0.4, -1.3, 2.2, 0.9, -0.6, 1.7}, {2, 3}}});
    CHECK_THROWS_WITH_AS(reshape(a, {4}),
                         "zg::reshape: shapes [2, 3] and [4] have different numbers of elements",
                         zg::shape_error);
}
