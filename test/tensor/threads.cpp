// Each thread records tensors on its own tape: eight threads training at once get, bit for bit,
// what one thread gets alone.
#include <zerograd/tensor.hpp>

#include <doctest/doctest.h>

#include <array>
#include <thread>
#include <vector>

namespace {
/// Ten gradient steps of a 4-16-3 tanh network with cross-entropy on a batch of 32, from
/// weights drawn with `seed`; returns every parameter afterwards.
std::vector<double> train(std::uint64_t seed) {
    const auto x = zg::tensor::randn({32, 4}, seed);
    std::vector<int> labels(32);
    for (std::size_t i = 0; i < labels.size(); ++i)
        labels[i] = int((i * 7 + seed) % 3);
    auto w1 = zg::tensor::randn({4, 16}, seed + 1, true), w2 = zg::tensor::randn({16, 3}, seed + 2, true);
    auto b1 = zg::tensor::zeros({16}, true), b2 = zg::tensor::zeros({3}, true);
    for (int step = 0; step < 10; ++step) {
        zg::tensor::scope step_scope;
        const auto logits = matmul(tanh(matmul(x, w1) + b1), w2) + b2;
        const auto loss = zg::cross_entropy(logits, labels);
        loss.backward();
        for (const auto& p : {w1, w2, b1, b2}) {
            for (std::size_t k = 0; k < p.numel(); ++k)
                p.data()[k] -= 0.1 * p.grad()[k];
            p.zero_grad();
        }
    }
    std::vector<double> parameters;
    for (const auto& p : {w1, w2, b1, b2})
        parameters.insert(parameters.end(), p.data().begin(), p.data().end());
    return parameters;
}
} // namespace

TEST_CASE("eight threads training tensor networks at once match the single-threaded results") {
    std::array<std::vector<double>, 8> expected, actual;
    for (std::uint64_t t = 0; t < 8; ++t)
        expected[t] = train(t);
    std::vector<std::thread> threads;
    for (std::uint64_t t = 0; t < 8; ++t)
        threads.emplace_back([&, t] { actual[t] = train(t); });
    for (auto& thread : threads)
        thread.join();
    for (std::size_t t = 0; t < 8; ++t)
        CHECK(actual[t] == expected[t]);
    CHECK(expected[0] != expected[1]);
}

TEST_CASE("every operation on another live thread's tensor is an error naming it") {
    auto& main_tape = zg::detail::this_thread_tensor_tape();
    const auto w = zg::tensor::from({1.0, -2.0, 0.5, 3.0}, {2, 2}, true);
    const auto main_size = main_tape.size();
    std::thread([&] {
        using doctest::Contains;
        const auto x = zg::tensor::ones({3, 2});
        auto& own = zg::detail::this_thread_tensor_tape();
        const auto own_size = own.size();
        CHECK_THROWS_WITH_AS(tanh(w),
                             "zg::tensor: operation tanh on a tensor of another thread's tape; "
                             "each thread records on its own tape: give each thread tensors made "
                             "there (from the values, data())",
                             zg::error);
        CHECK_THROWS_WITH_AS(w * 2.0, Contains("operation * on a tensor"), zg::error);
        CHECK_THROWS_WITH_AS(1.0 - w, Contains("operation - on a tensor"), zg::error);
        CHECK_THROWS_WITH_AS(matmul(x, w), Contains("operation matmul on"), zg::error);
        CHECK_THROWS_WITH_AS(x + w, Contains("operation + on"), zg::error);
        CHECK_THROWS_WITH_AS(sum(w), Contains("operation sum on"), zg::error);
        CHECK_THROWS_WITH_AS(mean(w, 0), Contains("operation mean on"), zg::error);
        CHECK_THROWS_WITH_AS(log_softmax(w), Contains("operation log_softmax on"), zg::error);
        CHECK_THROWS_AS(zg::cross_entropy(w, std::vector<int>{0, 1}), zg::error);
        CHECK_THROWS_AS(transpose(w), zg::error);
        CHECK_THROWS_AS(reshape(w, {4}), zg::error);
        CHECK_THROWS_AS(pow(w, 2), zg::error);
        auto copy = w;
        CHECK_THROWS_AS(copy += x, zg::error);
        CHECK(own.size() == own_size);
        // Values may be read, to make this thread's own tensors from them.
        const auto local = zg::tensor::from({w.data().begin(), w.data().end()}, {2, 2});
        CHECK(sum(matmul(x, local)).item() == 3 * (1.0 - 2.0 + 0.5 + 3.0));
    }).join();
    CHECK(main_tape.size() == main_size);
    sum(w * w).backward();
    CHECK(w.grad()[1] == -4.0);
}

TEST_CASE("eight threads training one tensor model made on the main thread are refused") {
    const auto w = zg::tensor::randn({4, 3}, 1, true);
    std::array<int, 8> refused{};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            const auto x = zg::tensor::randn({8, 4}, std::uint64_t(t));
            for (int step = 0; step < 50; ++step) {
                try {
                    zg::tensor::scope step_scope;
                    sum(tanh(matmul(x, w))).backward();
                } catch (const zg::error&) {
                    ++refused[t];
                }
            }
        });
    for (auto& thread : threads)
        thread.join();
    for (const int count : refused)
        CHECK(count == 50);
    for (const double g : w.grad())
        CHECK(g == 0.0);
}

TEST_CASE("a tensor that outlives its thread reports dangling_var") {
    zg::tensor left = zg::tensor::zeros({1});
    std::thread([&] { left = zg::tensor::ones({2, 2}, true) * 3.0; }).join();
    CHECK_THROWS_AS((void)left.data(), zg::dangling_var);
    std::thread([&] {
        // Likely on the retired tape, at the slot `left` named.
        const auto a = zg::tensor::from({1.0, 2.0}, {2}, true);
        const auto loss = sum(a * a);
        loss.backward();
        CHECK(a.grad()[1] == 4.0);
        CHECK_THROWS_AS((void)left.grad(), zg::dangling_var);
    }).join();
    CHECK_THROWS_AS((void)left.data(), zg::dangling_var);
}

TEST_CASE("a tensor scope ended on another thread is an error, and the tape is left as it was") {
    const auto a = zg::tensor::from({1.0, 2.0}, {2}, true);
    auto* step_scope = new zg::tensor::scope;
    const auto loss = sum(a * a);
    std::thread([&] {
        CHECK_THROWS_WITH_AS(delete step_scope, doctest::Contains("ended on a thread other than"),
                             zg::error);
    }).join();
    loss.backward();
    CHECK(a.grad()[1] == 4.0);
}

TEST_CASE("a tensor scope that outlives its thread is an error on the thread after it") {
    zg::tensor::scope* left = nullptr;
    std::thread([&] {
        left = new zg::tensor::scope;
        const auto t = zg::tensor::ones({2}, true) * 2.0;
        CHECK(t.data()[0] == 2.0);
    }).join();
    std::thread([&] {
        // A new thread may get the old one's thread-local addresses and its retired tape.
        const auto a = zg::tensor::from({1.0, 2.0}, {2}, true);
        const auto loss = sum(a * a);
        CHECK_THROWS_WITH_AS(delete left, doctest::Contains("ended on a thread other than"),
                             zg::error);
        loss.backward();
        CHECK(a.grad()[1] == 4.0);
    }).join();
}
