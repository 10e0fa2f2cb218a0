// test/fuzz/tensor.cpp: a libFuzzer target. Bytes decode into a tensor program: leaves of random
// shapes (rank 0 to 4, empty dimensions included) holding any double, every elementwise operation
// with NumPy broadcasting (tensor with tensor, or with a constant on either side), compound
// assignment, matmul, transpose, reshapes, sums and means (whole and by axis), log_softmax,
// cross_entropy with any labels, backward sweeps, gradient reads, zeroing, scopes opened and
// closed (so tensors dangle), and shapes whose element counts overflow. What may happen:
// zg::error (shapes that do not fit, dangling tensors, zg::domain_error in checked builds). What
// may not: a crash, a sanitizer report, another exception, a failed operation that left a node
// on the tape, an in-place operator that changed its left side's shape, a scope that did not
// rewind to its mark.
#include "reader.hpp"

#include <zerograd/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <vector>

namespace {

using zg::tensor;

using fuzz::broken;
using fuzz::pick;
using fuzz::reader;
using fuzz::sink;

/// A small shape: rank 0 to 4, each dimension 0 to 4 (1 and 2 most often, so that broadcasting
/// and matmul meet shapes that fit).
zg::tensor_shape small_shape(reader& in) {
    static constexpr std::size_t dims[] = {1, 2, 1, 2, 3, 0, 4, 2};
    zg::tensor_shape shape;
    for (std::size_t rank = in.byte() % 5; rank > 0; --rank)
        shape.push_back(dims[in.byte() % std::size(dims)]);
    return shape;
}

/// Any shape, huge dimensions included: most overflow.
std::vector<std::size_t> any_dims(reader& in) {
    static constexpr std::size_t dims[] = {0, 1, 3, std::size_t{1} << 31, std::size_t{1} << 32,
                                           std::size_t{1} << 62, std::size_t{1} << 63,
                                           ~std::size_t{0}};
    std::vector<std::size_t> shape;
    for (std::size_t rank = in.byte() % 10; rank > 0; --rank)
        shape.push_back(dims[in.byte() % std::size(dims)]);
    return shape;
}

int any_axis(reader& in) { return int(in.byte() % 9) - 4; }

using ops = fuzz::operations<tensor>;
using assign_fn = void (*)(tensor&, const tensor&);
const fuzz::entry<assign_fn> assign[] = {
#define ZG_FUZZ_OPERATOR(fn, symbol) {#fn, [](tensor& l, const tensor& r) { l symbol## = r; }},
    ZG_BINARY_OPERATORS(ZG_FUZZ_OPERATOR)
#undef ZG_FUZZ_OPERATOR
};

tensor leaf(reader& in) {
    const zg::tensor_shape shape = small_shape(in);
    const bool requires_grad = in.byte() % 2 == 0;
    switch (in.byte() % 4) {
    case 0: {
        std::vector<double> values(shape.numel());
        for (double& v : values)
            v = in.number();
        return tensor::from(values, shape, requires_grad);
    }
    case 1:
        return tensor::full(shape, in.number(), requires_grad);
    case 2:
        return tensor::randn(shape, in.byte(), requires_grad);
    default:
        return tensor::zeros(shape, requires_grad);
    }
}

void run(reader& in) {
    auto& tape = zg::detail::this_thread_tensor_tape();
    // Scopes are heap objects so that closing one is explicit; each remembers the tape's size.
    std::vector<std::pair<std::unique_ptr<tensor::scope>, std::uint32_t>> scopes;
    std::vector<tensor> tensors{tensor::ones({2}, true)};
    const auto any = [&]() -> tensor& { return tensors[in.byte() % tensors.size()]; };
    const auto keep = [&](tensor t) {
        if (tensors.size() < 64)
            tensors.push_back(t);
        else
            tensors[in.byte() % tensors.size()] = t;
    };

    for (int step = 0; step < 256 && !in.done(); ++step) {
        const auto size_before = tape.size();
        try {
            switch (in.byte() % 18) {
            case 0:
                keep(leaf(in));
                break;
            case 1:
                keep(pick(ops::unary, in)(any()));
                break;
            case 2: {
                const tensor& l = any();
                keep(pick(ops::binary, in)(l, any()));
                break;
            }
            case 3: {
                const double c = in.number();
                keep(pick(ops::with_constant_right, in)(any(), c));
                break;
            }
            case 4: {
                const double c = in.number();
                keep(pick(ops::with_constant_left, in)(c, any()));
                break;
            }
            case 5:
                keep(pow(any(), int(in.byte() % 9) - 4));
                break;
            case 6: {
                tensor& target = any();
                const tensor& source = any();
                const assign_fn& op = pick(assign, in);
                const zg::tensor_shape shape = target.shape();
                const auto index = target.index();
                try {
                    op(target, source);
                } catch (const zg::error&) {
                    if (target.index() != index) broken("a failed += rebound its left side");
                    throw;
                }
                if (!(target.shape() == shape)) broken("an in-place operator changed a shape");
                break;
            }
            case 7: {
                const tensor& l = any();
                keep(matmul(l, any()));
                break;
            }
            case 8:
                keep(transpose(any()));
                break;
            case 9: {
                const tensor& x = any();
                if (in.byte() % 2 == 0)
                    keep(reshape(x, {x.numel()}));
                else
                    keep(reshape(x, small_shape(in)));
                break;
            }
            case 10:
                switch (in.byte() % 4) {
                case 0:
                    keep(sum(any()));
                    break;
                case 1:
                    keep(mean(any()));
                    break;
                case 2:
                    keep(sum(any(), any_axis(in)));
                    break;
                default:
                    keep(mean(any(), any_axis(in)));
                    break;
                }
                break;
            case 11:
                keep(log_softmax(any(), any_axis(in)));
                break;
            case 12: {
                const tensor& logits = any();
                std::vector<int> labels(in.byte() % 5);
                for (int& label : labels)
                    label = int(in.byte() % 6) - 1;
                keep(cross_entropy(logits, labels));
                break;
            }
            case 13:
                any().backward();
                break;
            case 14: {
                const tensor& t = any();
                double total = t.numel() == 1 ? t.item() : 0.0;
                for (const double v : t.data())
                    total += v;
                if (t.requires_grad())
                    for (const double g : t.grad())
                        total += g;
                sink = total;
                break;
            }
            case 15:
                any().zero_grad();
                break;
            case 16:
                if (in.byte() % 2 == 0 && scopes.size() < 8) {
                    scopes.emplace_back(std::make_unique<tensor::scope>(), tape.size());
                } else if (!scopes.empty()) {
                    const auto mark = scopes.back().second;
                    scopes.pop_back();
                    if (tape.size() != mark) broken("a scope did not rewind to its mark");
                }
                break;
            case 17: {
                // A shape given by numbers: an overflowing element count is a shape_error,
                // before anything is allocated. Results are not kept: reducing an empty axis of
                // [0, 2^31] would make 2^31 elements.
                const std::vector<std::size_t> dims = any_dims(in);
                switch (in.byte() % 3) {
                case 0:
                    sink = double(tensor::from({}, dims).numel());
                    break;
                case 1:
                    sink = double(reshape(any(), dims).numel());
                    break;
                default: {
                    const zg::tensor_shape shape(dims);
                    if (shape.numel() > zg::tensor_shape::max_numel) broken("an element count");
                    break;
                }
                }
                break;
            }
            }
        } catch (const zg::error&) {
            // A shape that does not fit, a dangling tensor or, in checked builds, a domain
            // error: the operation recorded nothing, and everything else stays usable.
            if (tape.size() != size_before) broken("a failed operation left a node behind");
        }
    }
    while (!scopes.empty())
        scopes.pop_back();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const tensor::scope input_scope;
    reader in(data, size);
    run(in);
    return 0;
}
