// Tensors: factories, accessors, backward's contract, compound assignment, aliasing, misuse.
#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using zg::tensor;

TEST_CASE("factories make leaves of the given shape") {
    SUBCASE("from") {
        const tensor t = tensor::from({1, 2, 3, 4, 5, 6}, {2, 3});
        CHECK(t.shape() == std::vector<std::size_t>{2, 3});
        CHECK(t.rank() == 2);
        CHECK(t.numel() == 6);
        CHECK(t.data()[5] == 6.0);
        CHECK(!t.requires_grad());
        CHECK(t.op_name() == "leaf");
        const std::vector<std::size_t> shape = t.shape();
        CHECK(shape == std::vector<std::size_t>{2, 3});
        CHECK(t.shape().to_string() == "[2, 3]");
    }
    SUBCASE("zeros, ones, full") {
        CHECK(tensor::zeros({3}).data()[2] == 0.0);
        CHECK(tensor::ones({2, 2}).data()[3] == 1.0);
        CHECK(tensor::full({2}, 2.5).data()[1] == 2.5);
        const tensor w = tensor::zeros({2, 2}, true);
        CHECK(w.requires_grad());
        CHECK(w.grad().size() == 4);
        CHECK(w.grad()[0] == 0.0);
    }
    SUBCASE("a scalar has shape [] and one element") {
        const tensor s = tensor::from({4}, {});
        CHECK(s.rank() == 0);
        CHECK(s.item() == 4.0);
    }
    SUBCASE("randn is deterministic for a seed and roughly standard normal") {
        const tensor a = tensor::randn({1000}, 7), b = tensor::randn({1000}, 7);
        const tensor c = tensor::randn({1000}, 8);
        CHECK(std::equal(a.data().begin(), a.data().end(), b.data().begin()));
        CHECK(a.data()[0] != c.data()[0]);
        double mean = 0, square = 0;
        for (double x : a.data()) {
            mean += x / 1000;
            square += x * x / 1000;
        }
        CHECK(std::abs(mean) < 0.1);
        CHECK(std::abs(square - 1) < 0.15);
        CHECK(tensor::randn({3}, 1, true).requires_grad());
    }
}

TEST_CASE("misuse is reported with the shapes involved") {
    CHECK_THROWS_WITH_AS(tensor::from({1, 2, 3}, {2, 2}),
                         "zg::tensor::from: 3 values for shape [2, 2] of 4 elements",
                         zg::shape_error);
    const tensor w = tensor::from({1, 2, 3, 4}, {2, 2}, true);
    const tensor y = w * 2.0;
    CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("backward"), zg::shape_error);
    CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("[2, 2]"), zg::error);
    CHECK_THROWS_WITH_AS(y.item(), doctest::Contains("[2, 2]"), zg::shape_error);
    const tensor constant = tensor::ones({2});
    CHECK_THROWS_WITH_AS(constant.grad(), doctest::Contains("requires no gradient"), zg::error);
    CHECK_THROWS_WITH_AS(sum(constant).backward(), doctest::Contains("requires_grad"), zg::error);
    const tensor empty;
    CHECK(!empty.has_node());
    CHECK_THROWS_WITH_AS(empty.data(), doctest::Contains("empty"), zg::error);
    CHECK_THROWS_AS(empty + w, zg::error);
    CHECK_THROWS_WITH_AS(tensor::zeros({1, 1, 1, 1, 1, 1, 1, 1, 1}), doctest::Contains("at most 8"),
                         zg::shape_error);
}

TEST_CASE("a shape whose element count overflows is a shape_error") {
    const std::size_t n = 0, big = std::size_t{1} << 40;
    CHECK_THROWS_WITH_AS(tensor::zeros({n - 1, n - 1}),
                         "zg::tensor: shape [18446744073709551615, 18446744073709551615] has more "
                         "than 1152921504606846975 elements",
                         zg::shape_error);
    CHECK_THROWS_AS(tensor::from({}, {std::size_t{1} << 63, 2}), zg::shape_error);
    CHECK_THROWS_AS(tensor::zeros({0, std::size_t{1} << 63, 2}), zg::shape_error);
    CHECK_THROWS_AS(tensor::zeros({std::size_t{1} << 61}), zg::shape_error);
    // Shapes with no elements are fine, until broadcasting would make too many.
    const tensor tall = tensor::zeros({0, big, 1}), wide = tensor::zeros({0, 1, big});
    CHECK(tall.numel() == 0);
    CHECK_THROWS_WITH_AS(tall + wide, doctest::Contains("[0, 1099511627776, 1099511627776]"),
                         zg::shape_error);
    CHECK(sum(tall, 1).shape() == std::vector<std::size_t>{0, 1});
    CHECK(transpose(tensor::zeros({0, big})).shape() == std::vector<std::size_t>{big, 0});
}

TEST_CASE("in-place operators keep the left side's shape, as NumPy's do") {
    const tensor u = tensor::from({1, 2, 3, 4, 5, 6}, {3, 2});
    tensor t = tensor::from({10, 20}, {2}, true);
    const tensor before = t;
    CHECK_THROWS_WITH_AS(t += u,
                         "zg::operator+=: shape [3, 2] does not broadcast to the left side's "
                         "shape [2]",
                         zg::shape_error);
    CHECK_THROWS_WITH_AS(t *= tensor::ones({3}), doctest::Contains("operator*=: shape [3]"),
                         zg::shape_error);
    CHECK(t.shape() == std::vector<std::size_t>{2}); // t still names its leaf
    CHECK(t.data()[1] == 20.0);
    CHECK(t.op_name() == before.op_name());
    tensor rows = tensor::zeros({3, 2});
    rows += tensor::from({1, 2}, {2}); // the right side broadcasts: allowed
    CHECK(rows.data()[5] == 2.0);
    t -= tensor::from({1}, {1});
    sum(t).backward();
    CHECK(before.grad()[0] == 1.0);
}

TEST_CASE("backward seeds a one-element tensor of any rank") {
    const tensor w = tensor::from({3}, {1, 1}, true);
    const tensor y = w * w; // shape [1, 1]
    y.backward();
    CHECK(w.grad()[0] == 6.0);
    CHECK(y.grad()[0] == 1.0);
}

TEST_CASE("compound assignment rebinds the left side to the new node") {
    const tensor x = tensor::from({1, 2}, {2}, true);
    tensor y = x;
    y += 1;
    y *= 2.0;
    y -= x;
    y /= 2;
    y += tensor::from({10}, {1});
    CHECK(y.data()[0] == ((1 + 1) * 2.0 - 1) / 2 + 10);
    CHECK(y.op_name() == "+");
    CHECK(x.data()[0] == 1.0); // x still names its leaf
    sum(y).backward();
    CHECK(x.grad()[0] == 0.5);
    CHECK(x.grad()[1] == 0.5);
}

TEST_CASE("aliasing: a tensor used on many paths collects every contribution") {
    tensor x = tensor::from({2, -1}, {2}, true);
    const tensor leaf = x;
    x = x + 3 * x; // x now names 4 * leaf
    sum(x * leaf).backward();
    CHECK(leaf.grad()[0] == 8 * 2.0);
    CHECK(leaf.grad()[1] == 8 * -1.0);
    const tensor z = tensor::from({3}, {}, true);
    (z * z * z).backward();
    CHECK(z.grad()[0] == 27.0);
}

TEST_CASE("integer literals and doubles mix on either side") {
    const tensor x = tensor::from({4}, {}, true);
    const tensor y = 2 * x + 1 - x / 4 + 3 - (1 - x) * 2 + pow(x, 3) + pow(2, x) + pow(x, 0.5);
    y.backward();
    CHECK(x.grad()[0] == doctest::Approx(2 - 0.25 + 2 + 48 + std::log(2.0) * 16 + 0.25));
    CHECK(pow(x, 3).op_name() == "pow");
}

TEST_CASE("tensors print their shape and values") {
    std::ostringstream out;
    out << tensor::from({1, 2.5}, {2});
    CHECK(out.str() == "tensor(shape=[2], data=[1, 2.5])");
}
