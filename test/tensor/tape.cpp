// The tensor tape: gradients accumulate across sweeps and zero_grad clears them, scopes reclaim a
// step while parameters live on, dangling tensors are reported, a training loop allocates
// nothing after warm-up, and threads record on their own tapes.
#include "allocation_counter.hpp"

#include <zerograd/tape.hpp>
#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <span>
#include <thread>
#include <vector>

using zg::tensor;

TEST_CASE("gradients accumulate across backward calls until zero_grad") {
    const tensor w = tensor::from({1, 2}, {2}, true);
    const tensor loss = sum(w * w);
    loss.backward();
    CHECK(w.grad()[1] == 4.0);
    loss.backward(); // leaves accumulate; the intermediate w * w restarts from zero
    CHECK(w.grad()[0] == 4.0);
    CHECK(w.grad()[1] == 8.0);
    CHECK(loss.grad()[0] == 1.0);
    w.zero_grad();
    CHECK(w.grad()[1] == 0.0);
    sum(w * 3.0).backward();
    CHECK(w.grad()[1] == 3.0);
    w.zero_grad();
}

TEST_CASE("a sweep from one root leaves unrelated branches alone") {
    const tensor a = tensor::from({1}, {}, true);
    const tensor b = tensor::from({2}, {}, true);
    const tensor unrelated = b * 5.0;
    const tensor y = a * 3.0;
    y.backward();
    CHECK(a.grad()[0] == 3.0);
    CHECK(b.grad()[0] == 0.0);
    CHECK(unrelated.grad()[0] == 0.0);
}

TEST_CASE("intermediates hold the latest sweep's gradient, however they were recorded") {
    const tensor a = tensor::from({1, 2}, {2}, true);
    const tensor y = a * 3.0;
    const tensor first = sum(y);
    const tensor squares = y * y;
    const tensor second = sum(squares);
    second.backward();
    CHECK(squares.grad()[1] == 1.0);
    CHECK(y.grad()[1] == 2 * 6.0);
    first.backward(); // recorded before squares and second, which it does not reach
    CHECK(squares.grad()[1] == 0.0);
    CHECK(second.grad()[0] == 0.0);
    CHECK(y.grad()[1] == 1.0);
    CHECK(a.grad()[1] == 3 * 2 * 6.0 + 3.0); // leaves accumulate
}

TEST_CASE("a scope reclaims a step, parameters live on, dangling use throws") {
    const tensor w = tensor::from({0.5, -1}, {2}, true);
    const tensor outside = w * 2.0;
    tensor inside_copy;
    {
        tensor::scope step;
        const tensor loss = sum(square(w * 3.0 - 1.0) + outside);
        loss.backward();
        inside_copy = loss;
        CHECK(w.grad()[0] == 2 * (1.5 - 1.0) * 3.0 + 2.0);
    }
    CHECK(w.data()[0] == 0.5);
    CHECK(w.grad()[0] == 5.0); // what the step accumulated stays
    CHECK(outside.data()[1] == -2.0);
    CHECK_THROWS_AS(inside_copy.data(), zg::dangling_var);
    CHECK_THROWS_AS(inside_copy.grad(), zg::dangling_var);
    CHECK_THROWS_AS(inside_copy.backward(), zg::dangling_var);
    CHECK_THROWS_AS(inside_copy + 1.0, zg::dangling_var);
    CHECK_THROWS_WITH_AS(w * inside_copy, doctest::Contains("reclaimed"), zg::dangling_var);

    SUBCASE("a reused slot is still detected") {
        const tensor reused = w * 4.0; // lands where the step's first node was
        CHECK(reused.data()[0] == 2.0);
        CHECK_THROWS_AS(inside_copy.shape(), zg::dangling_var);
    }
    SUBCASE("after the error the tape is usable and correct") {
        w.zero_grad();
        sum(w * w).backward();
        CHECK(w.grad()[0] == 1.0);
    }
    w.zero_grad();
}

TEST_CASE("nested scopes") {
    const tensor x = tensor::ones({2});
    tensor::scope outer;
    const tensor a = x * 2.0;
    tensor b;
    {
        tensor::scope inner;
        b = a * 3.0;
        CHECK(b.data()[0] == 6.0);
    }
    CHECK(a.data()[0] == 2.0);
    CHECK_THROWS_AS(b.data(), zg::dangling_var);
}

TEST_CASE("zg::tape::scope reclaims tensors too") {
    zg::detail::tensor_tape& tape = zg::detail::this_thread_tensor_tape();
    const tensor w = zg::randn({3, 3}, 5, true);
    const auto kept = tape.size();
    tensor inside;
    for (int step = 0; step < 100; ++step) {
        const zg::tape::scope step_scope;
        inside = sum(square(matmul(w, zg::ones({3, 1}))));
        inside.backward();
    }
    CHECK(tape.size() == kept);
    CHECK_THROWS_AS(inside.data(), zg::dangling_var);
    CHECK(w.grad()[0] == doctest::Approx(100 * 2 * (w.data()[0] + w.data()[1] + w.data()[2])));
    w.zero_grad();

    SUBCASE("also on a thread whose tensor tape is made inside the scope") {
        std::size_t left = 1;
        std::thread([&] {
            {
                const zg::tape::scope step_scope;
                (void)sum(zg::zeros({4}) + 1.0);
            }
            left = zg::detail::this_thread_tensor_tape().size();
        }).join();
        CHECK(left == 0);
    }
}

TEST_CASE("a gradient call reclaims the tensors its function made") {
    // A tape-mode function that uses tensors for its own arithmetic, with no scope of its own:
    // each call of zg::tape::grad (and the other drivers) reclaims them with its variables.
    zg::detail::tensor_tape& tape = zg::detail::this_thread_tensor_tape();
    const tensor kept = zg::ones({2, 2});
    const auto before = tape.size();
    const auto f = [](zg::var x) {
        const tensor t = zg::ones({8, 8}) * 2.0;
        return x * sum(t).data()[0];
    };
    for (int call = 0; call < 4500; ++call) {
        const auto g = zg::tape::grad(f, 1.5);
        REQUIRE(g[0] == 128.0);
        REQUIRE(tape.size() == before);
    }
    const auto h = zg::tape::hessian(
        [](auto x) {
            (void)(zg::ones({4}) + 1.0);
            return x[0] * x[0] * x[1];
        },
        std::vector<double>{2.0, 3.0});
    CHECK(h[0][1] == 4.0);
    CHECK(tape.size() == before);
    CHECK(kept.data()[3] == 1.0);
}

TEST_CASE("zg::zeros, zg::ones and zg::randn are tensor::zeros, ones and randn") {
    const tensor z = zg::zeros({2, 3}), o = zg::ones({2}, true), r = zg::randn({4}, 9);
    CHECK(z.shape() == zg::tensor_shape{2, 3});
    CHECK(z.data()[5] == 0.0);
    CHECK(o.data()[1] == 1.0);
    CHECK(o.grad().size() == 2);
    const tensor same = tensor::randn({4}, 9);
    for (std::size_t i = 0; i < 4; ++i) CHECK(r.data()[i] == same.data()[i]);
}

TEST_CASE("a training loop keeps memory flat and allocates nothing after warm-up") {
    // A 2-8-2 network on XOR as a two-class problem: matmul, broadcast bias, tanh,
    // cross_entropy, and an SGD step on the parameters' data.
    const tensor x = tensor::from({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2});
    const std::vector<int> labels = {0, 1, 1, 0};
    const tensor w1 = tensor::randn({2, 8}, 1, true), b1 = tensor::zeros({8}, true);
    const tensor w2 = tensor::randn({8, 2}, 2, true), b2 = tensor::zeros({2}, true);
    const std::vector<tensor> parameters = {w1, b1, w2, b2};
    zg::detail::tensor_tape& tape = zg::detail::this_thread_tensor_tape();
    const auto parameters_end = tape.size();
    double loss_value = 0;
    const auto step = [&] {
        tensor::scope step_scope;
        const tensor hidden = tanh(matmul(x, w1) + b1);
        const tensor loss = cross_entropy(matmul(hidden, w2) + b2, labels);
        loss.backward();
        loss_value = loss.item();
        for (const tensor& p : parameters) {
            const auto data = p.data();
            const auto grad = p.grad();
            for (std::size_t i = 0; i < data.size(); ++i)
                data[i] -= 0.5 * grad[i];
            p.zero_grad();
        }
    };
    step();
    const double first_loss = loss_value;
    for (int i = 0; i < 10; ++i)
        step(); // warm-up: the slots get their buffers
    const long allocations_before = test::allocation_count();
    const auto bytes_before = tape.capacity_bytes();
    for (int i = 0; i < 1000; ++i)
        step();
    CHECK(test::allocation_count() == allocations_before);
    CHECK(tape.capacity_bytes() == bytes_before);
    CHECK(tape.size() == parameters_end);
    CHECK(loss_value < 0.1 * first_loss);
}

TEST_CASE("each thread records on its own tape") {
    const auto work = [](double scale, double& result) {
        const tensor w = tensor::from({scale, 2 * scale}, {2}, true);
        for (int i = 0; i < 100; ++i) {
            tensor::scope step;
            sum(w * w).backward();
        }
        result = w.grad()[1];
    };
    double a = 0, b = 0;
    std::thread first(work, 1.0, std::ref(a)), second(work, 3.0, std::ref(b));
    first.join();
    second.join();
    CHECK(a == 100 * 4.0);
    CHECK(b == 100 * 12.0);

    const tensor here = tensor::ones({2});
    bool threw = false;
    std::thread other([&] {
        const tensor there = tensor::ones({2});
        try {
            (void)(here + there);
        } catch (const zg::error& e) {
            threw = std::string(e.what()).find("another thread's tape") != std::string::npos;
        }
    });
    other.join();
    CHECK(threw);
}
