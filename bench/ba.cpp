// bench/ba.cpp: ADBench's bundle adjustment in the suite: the 2x15 Jacobian of one observation's
// reprojection error (n = 1) and of each of a batch of observations (n = 10,000), flattened row
// by row, observation after observation. Every mode is given the residuals as its users write
// them (bench/models/ba.hpp): expression mode and tape and forward mode the generic lambda with
// named intermediates and no zg::let; ADOL-C (a trace and its jacobian driver per observation)
// and Sacado (forward mode over 15 directions) the loop typed in their scalar. A Jacobian has no
// single value: every mode returns 0 beside it.
#include "models/ba.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include "harness.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <vector>

namespace bench {

namespace {

using models::ba::inputs;
using jacobian_rows = std::array<std::array<double, inputs>, 2>;

/// The features seen, and each observation's inputs copied into x.
struct batch {
    std::vector<std::array<double, 2>> features;
    std::vector<double> x;
};

/// Writes each observation's Jacobian, found by `one(inputs, feature, J)`, into g.
template <class One>
gradient_function per_observation(std::shared_ptr<const batch> b, One one) {
    return [b, one](std::span<const double> x, std::vector<double>& g) {
        const std::size_t count = b->features.size();
        g.resize(2 * inputs * count);
        jacobian_rows J{};
        std::array<double, inputs> at{};
        for (std::size_t i = 0; i < count; ++i) {
            std::copy_n(x.begin() + std::ptrdiff_t(i * inputs), inputs, at.begin());
            one(at, b->features[i], J);
            std::copy(J[0].begin(), J[0].end(), g.begin() + std::ptrdiff_t(2 * inputs * i));
            std::copy(J[1].begin(), J[1].end(),
                      g.begin() + std::ptrdiff_t(2 * inputs * i + inputs));
        }
        return 0.0;
    };
}

/// Copies a std::vector<std::vector<double>> Jacobian (tape and forward mode's) into J.
void copy_rows(const std::vector<std::vector<double>>& rows, jacobian_rows& J) {
    for (std::size_t r = 0; r < 2; ++r)
        std::copy(rows[r].begin(), rows[r].end(), J[r].begin());
}

sized_case ba_case(std::size_t count) {
    auto b = std::make_shared<batch>();
    for (const auto& o : models::ba::make(count)) {
        b->features.push_back(o.feature);
        b->x.insert(b->x.end(), o.x.begin(), o.x.end());
    }
    sized_case c{"ba",
                 count,
                 b->x,
                 nullptr,
                 per_observation(b,
                                 [](const std::array<double, inputs>& x,
                                    const std::array<double, 2>& feature, jacobian_rows& J) {
                                     models::ba::jacobian({x, feature}, J);
                                 }),
                 {}};
    c.outputs = 2 * inputs * count;
    c.modes.push_back({"expr", per_observation(b, [](const auto& x, const auto& feature, auto& J) {
                           J = zg::jacobian(models::ba::residuals(feature), x);
                       })});
    const auto on_span = [](const std::array<double, 2>& feature) {
        return [&feature](auto v) {
            const auto r = models::ba::call_on_inputs(models::ba::residuals(feature), v);
            using T = typename decltype(v)::value_type;
            return std::vector<T>{r[0], r[1]};
        };
    };
    c.modes.push_back(
        {"tape", per_observation(b, [on_span](const auto& x, const auto& feature, auto& J) {
             copy_rows(zg::tape::jacobian(on_span(feature), std::span<const double>(x)), J);
         })});
    c.modes.push_back(
        {"forward", per_observation(b, [on_span](const auto& x, const auto& feature, auto& J) {
             copy_rows(zg::fwd::jacobian(on_span(feature), std::span<const double>(x)), J);
         })});
#ifdef ZG_HAVE_ADOLC
    c.modes.push_back({"adolc", per_observation(b, [](const auto& x, const auto& feature, auto& J) {
                           constexpr short tag = 2;
                           trace_on(tag);
                           std::array<adouble, inputs> v;
                           for (std::size_t j = 0; j < inputs; ++j)
                               v[j] <<= x[j];
                           std::array<adouble, 2> r =
                               models::ba::typed_residuals(v.data(), feature);
                           double y[2];
                           r[0] >>= y[0];
                           r[1] >>= y[1];
                           trace_off();
                           double* rows[2] = {J[0].data(), J[1].data()};
                           jacobian(tag, 2, int(inputs), x.data(), rows);
                       })});
#endif
#ifdef ZG_HAVE_SACADO
    c.modes.push_back(
        {"sacado", per_observation(b, [](const auto& x, const auto& feature, auto& J) {
             using fad = Sacado::Fad::SFad<double, int(inputs)>;
             std::array<fad, inputs> v;
             for (std::size_t j = 0; j < inputs; ++j)
                 v[j] = fad(int(inputs), int(j), x[j]);
             const std::array<fad, 2> r = models::ba::typed_residuals(v.data(), feature);
             for (std::size_t i = 0; i < 2; ++i)
                 for (std::size_t j = 0; j < inputs; ++j)
                     J[i][j] = r[i].dx(int(j));
         })});
#endif
    return c;
}

} // namespace

std::vector<sized_case> ba_cases() { return {ba_case(1), ba_case(10000)}; }

} // namespace bench
