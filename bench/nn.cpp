// bench/nn.cpp: one training step (forward, cross-entropy, backward, SGD update) of an MLP, in
// float64: zerograd's tensors, zerograd's scalar tape MLP (the small case), and libtorch's C++
// API when it was found (ZG_HAVE_LIBTORCH). Benchmarks are named nn/<case>/<mode>/<batch>:
// `moons` is batch 100 through 2-16-16-2, `mnist` batch 256 through 784-256-256-10, both relu.
// Before timing, the first step's loss of every mode is compared with zerograd's tensors given
// the same weights and data (relative 1e-10); a mismatch stops the run.
#include <zerograd/nn.hpp>
#include <zerograd/tape.hpp>
#include <zerograd/tensor.hpp>

#include <benchmark/benchmark.h>

#ifdef ZG_HAVE_LIBTORCH
#include <torch/torch.h>
#endif

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr double learning_rate = 0.01;

/// A network's shape and the batch it trains on, made deterministically.
struct problem {
    std::string name;
    std::size_t batch;
    std::vector<std::size_t> sizes; // inputs, hidden..., classes
    std::vector<double> x;          // [batch, inputs], row-major
    std::vector<int> labels;

    problem(std::string name_, std::size_t batch_, std::vector<std::size_t> sizes_)
        : name(std::move(name_)), batch(batch_), sizes(std::move(sizes_)), x(batch * sizes.front()),
          labels(batch) {
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = std::sin(0.37 * double(i) + 0.1);
        for (std::size_t b = 0; b < batch; ++b)
            labels[b] = int(b % sizes.back());
    }
    std::vector<std::size_t> layer_sizes() const { return {sizes.begin() + 1, sizes.end()}; }
};

const problem& moons() {
    static const problem p("moons", 100, {2, 16, 16, 2});
    return p;
}
const problem& mnist() {
    static const problem p("mnist", 256, {784, 256, 256, 10});
    return p;
}

void fail(const std::string& what) {
    std::fprintf(stderr, "nn benchmark: %s\n", what.c_str());
    std::exit(1);
}

void check_loss(const problem& p, const char* mode, double loss, double expected) {
    if (std::abs(loss - expected) > 1e-10 * std::abs(expected))
        fail(p.name + "/" + mode + ": first loss " + std::to_string(loss) + ", tensors give " +
             std::to_string(expected));
}

// ---- zerograd tensors --------------------------------------------------------------------------

struct tensor_model {
    zg::tensor x;
    zg::nn::mlp_t<zg::tensor> model;
    zg::nn::sgd_t<zg::tensor> optimizer;
    const problem& p;

    explicit tensor_model(const problem& p_)
        : x(zg::tensor::from(p_.x, {p_.batch, p_.sizes.front()})),
          model(p_.sizes.front(), p_.layer_sizes(), zg::nn::activation::relu, 1),
          optimizer(model.parameters(), {.learning_rate = learning_rate}), p(p_) {}

    double step() {
        zg::tensor::scope step_scope;
        const zg::tensor loss = zg::nn::cross_entropy(model(x), p.labels);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        return loss.item();
    }
};

/// The first loss of the tensor model, the reference for every mode.
double reference_loss(const problem& p) {
    tensor_model m(p);
    return m.step();
}

void zerograd_tensor(benchmark::State& state, const problem& p) {
    tensor_model m(p);
    for (auto _ : state)
        benchmark::DoNotOptimize(m.step());
}

// ---- zerograd scalar tape (micrograd's MLP), the same weights --------------------------------

struct scalar_model {
    zg::nn::mlp model;
    zg::nn::sgd optimizer;
    const problem& p;

    explicit scalar_model(const problem& p_)
        : model(p_.sizes.front(), p_.layer_sizes(), zg::nn::activation::relu, 1),
          optimizer(model.parameters(), {.learning_rate = learning_rate}), p(p_) {
        // The tensor model's weights: column j of W and element j of b are neuron j's.
        const tensor_model reference(p);
        for (std::size_t l = 0; l < model.layers().size(); ++l) {
            const zg::nn::linear& layer = reference.model.layers()[l];
            const auto neurons = model.layers()[l].neurons();
            for (std::size_t j = 0; j < neurons.size(); ++j) {
                for (std::size_t i = 0; i < layer.inputs(); ++i)
                    neurons[j].weights()[i].data() = layer.weight().data()[i * layer.outputs() + j];
                neurons[j].bias().data() = layer.bias().data()[j];
            }
        }
    }

    double step() {
        zg::tape::scope step_scope;
        const std::size_t inputs = p.sizes.front();
        std::vector<std::vector<zg::var>> logits;
        logits.reserve(p.batch);
        for (std::size_t b = 0; b < p.batch; ++b)
            logits.push_back(model(std::span<const double>(p.x.data() + b * inputs, inputs)));
        const zg::var loss = zg::nn::cross_entropy(logits, p.labels);
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        return loss.data();
    }
};

void zerograd_scalar(benchmark::State& state, const problem& p) {
    scalar_model m(p);
    for (auto _ : state)
        benchmark::DoNotOptimize(m.step());
}

// ---- libtorch ----------------------------------------------------------------------------------

#ifdef ZG_HAVE_LIBTORCH
struct torch_model {
    torch::Tensor x, labels;
    std::vector<torch::Tensor> weights, biases; // W as [inputs, outputs], as zerograd's
    std::unique_ptr<torch::optim::SGD> optimizer;

    explicit torch_model(const problem& p) {
        const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
        x = torch::from_blob(const_cast<double*>(p.x.data()),
                             {std::int64_t(p.batch), std::int64_t(p.sizes.front())}, f64)
                .clone();
        std::vector<std::int64_t> l(p.labels.begin(), p.labels.end());
        labels = torch::tensor(l, torch::kInt64);
        const tensor_model reference(p);
        std::vector<torch::Tensor> parameters;
        for (const zg::nn::linear& layer : reference.model.layers()) {
            const auto in = std::int64_t(layer.inputs()), out = std::int64_t(layer.outputs());
            weights.push_back(
                torch::from_blob(layer.weight().data().data(), {in, out}, f64).clone());
            biases.push_back(torch::from_blob(layer.bias().data().data(), {out}, f64).clone());
            weights.back().set_requires_grad(true);
            biases.back().set_requires_grad(true);
            parameters.push_back(weights.back());
            parameters.push_back(biases.back());
        }
        optimizer = std::make_unique<torch::optim::SGD>(parameters,
                                                        torch::optim::SGDOptions(learning_rate));
    }

    double step() {
        torch::Tensor h = x;
        for (std::size_t l = 0; l < weights.size(); ++l) {
            if (l > 0) h = torch::relu(h);
            h = torch::addmm(biases[l], h, weights[l]);
        }
        const torch::Tensor loss = torch::nn::functional::cross_entropy(h, labels);
        optimizer->zero_grad();
        loss.backward();
        optimizer->step();
        return loss.item<double>();
    }
};

void libtorch(benchmark::State& state, const problem& p) {
    torch_model m(p);
    for (auto _ : state)
        benchmark::DoNotOptimize(m.step());
}
#endif

void check_all() {
    for (const problem* p : {&moons(), &mnist()}) {
        const double expected = reference_loss(*p);
        if (p == &moons()) check_loss(*p, "scalar", scalar_model(*p).step(), expected);
#ifdef ZG_HAVE_LIBTORCH
        check_loss(*p, "libtorch", torch_model(*p).step(), expected);
#endif
    }
}

void register_all() {
    for (const problem* p : {&moons(), &mnist()}) {
        const std::string prefix = "nn/" + p->name + "/";
        const std::string batch = "/" + std::to_string(p->batch);
        benchmark::RegisterBenchmark((prefix + "tensor" + batch).c_str(), zerograd_tensor,
                                     std::cref(*p));
        if (p == &moons())
            benchmark::RegisterBenchmark((prefix + "scalar" + batch).c_str(), zerograd_scalar,
                                         std::cref(*p));
#ifdef ZG_HAVE_LIBTORCH
        benchmark::RegisterBenchmark((prefix + "libtorch" + batch).c_str(), libtorch,
                                     std::cref(*p));
#endif
    }
}

} // namespace

int main(int argc, char** argv) {
#ifdef ZG_HAVE_LIBTORCH
    // One thread, as zerograd runs: the comparison is of the libraries, not of core counts.
    torch::set_num_threads(1);
#endif
    benchmark::Initialize(&argc, argv);
    check_all();
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
