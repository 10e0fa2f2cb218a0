// bench/models/ba.hpp: ADBench's bundle-adjustment residual (Srajer, Kukelova, Fitzgibbon, arXiv
// 1807.10129): the weighted reprojection error of one observation, 2 residuals of 15 inputs
// (11 camera parameters, 3 coordinates of the point, 1 weight), written once as a generic lambda
// with named intermediates (every mode, every peer), and its 2x15 Jacobian by hand.
//
// Camera: r (3, a Rodrigues rotation vector), C (3, the centre), f, x0 (2, the principal
// point), kappa (2, radial distortion). Xcam = rotate(r, X - C), p = Xcam[0:2] / Xcam[2],
// proj = p (1 + k1 |p|^2 + k2 |p|^4) f + x0, residuals = w (proj - feature).
#pragma once

#include "random.hpp"

#include <zerograd/expr.hpp> // zg::select for expressions, beside the one for numbers

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

namespace models::ba {

inline constexpr std::size_t inputs = 15; // camera 0-10, point 11-13, weight 14

/// One observation of a point by a camera: the inputs, and the feature seen.
struct observation {
    std::array<double, inputs> x;
    std::array<double, 2> feature;
};

/// count seeded observations: cameras about 10 units from points near the origin, looking at
/// them, with small distortion (random.hpp: the same numbers on every machine).
inline std::vector<observation> make(std::size_t count, std::uint64_t seed = 1) {
    uniform_numbers unit{seed};
    const auto uniform = [&](double low, double high) { return low + (high - low) * unit(); };
    std::vector<observation> made(count);
    for (observation& o : made) {
        auto& x = o.x;
        for (int i = 0; i < 3; ++i)
            x[i] = uniform(-0.3, 0.3); // rotation
        for (int i = 3; i < 6; ++i)
            x[i] = uniform(-1.0, 1.0); // centre ...
        x[5] += 10;                    // ... in front of the points
        x[6] = uniform(400, 600);      // focal length
        x[7] = uniform(-10, 10);       // principal point
        x[8] = uniform(-10, 10);
        x[9] = uniform(-0.1, 0.1); // distortion
        x[10] = uniform(-0.01, 0.01);
        for (int i = 11; i < 14; ++i)
            x[i] = uniform(-1.0, 1.0); // the point
        x[14] = uniform(0.5, 1.5);     // weight
        o.feature = {uniform(-50, 50), uniform(-50, 50)};
    }
    return made;
}

/// The two residuals as a user writes them: a generic lambda of the 15 inputs, with named
/// intermediates, the rotation by zg::select where its angle is 0 (as ADBench's torch code).
/// Every mode and peer calls it.
inline auto residuals(const std::array<double, 2>& feature) {
    return [&feature](auto r0, auto r1, auto r2, auto c0, auto c1, auto c2, auto f, auto u0,
                      auto v0, auto k1, auto k2, auto x0, auto x1, auto x2, auto w) {
        using std::cos, std::sin, std::sqrt;
        // The point relative to the camera, rotated by Rodrigues' formula.
        const auto d0 = x0 - c0;
        const auto d1 = x1 - c1;
        const auto d2 = x2 - c2;
        const auto squared_angle = r0 * r0 + r1 * r1 + r2 * r2;
        const auto angle = sqrt(squared_angle);
        const auto cosine = cos(angle);
        const auto sine = sin(angle);
        const auto inverse = 1.0 / angle;
        const auto w0 = r0 * inverse;
        const auto w1 = r1 * inverse;
        const auto w2 = r2 * inverse;
        const auto along = (w0 * d0 + w1 * d1 + w2 * d2) * (1.0 - cosine);
        const auto rotated0 = d0 * cosine + (w1 * d2 - w2 * d1) * sine + w0 * along;
        const auto rotated1 = d1 * cosine + (w2 * d0 - w0 * d2) * sine + w1 * along;
        const auto rotated2 = d2 * cosine + (w0 * d1 - w1 * d0) * sine + w2 * along;
        // At angle 0, the first-order rotation X + r x X.
        const bool turned = squared_angle != 0;
        const auto camera0 = zg::select(turned, rotated0, d0 + r1 * d2 - r2 * d1);
        const auto camera1 = zg::select(turned, rotated1, d1 + r2 * d0 - r0 * d2);
        const auto camera2 = zg::select(turned, rotated2, d2 + r0 * d1 - r1 * d0);
        // Projection, radial distortion, the principal point.
        const auto p0 = camera0 / camera2;
        const auto p1 = camera1 / camera2;
        const auto radius2 = p0 * p0 + p1 * p1;
        const auto distortion = 1.0 + k1 * radius2 + k2 * radius2 * radius2;
        const auto projected0 = p0 * distortion * f + u0;
        const auto projected1 = p1 * distortion * f + v0;
        return std::array{w * (projected0 - feature[0]), w * (projected1 - feature[1])};
    };
}

/// f called on the 15 inputs held in v (a span or array of any scalar type).
template <class F, class V>
auto call_on_inputs(F&& f, const V& v) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) { return f(v[I]...); }
    (std::make_index_sequence<inputs>{});
}

/// The residuals for a tool whose intermediates must be held as its scalar type T (ADOL-C's
/// adouble, Sacado's Fad: their expression types refer to temporaries), as users of those tools
/// write them.
template <class T>
std::array<T, 2> typed_residuals(const T* x, const std::array<double, 2>& feature) {
    using std::cos, std::sin, std::sqrt;
    const T d0 = x[11] - x[3], d1 = x[12] - x[4], d2 = x[13] - x[5];
    const T squared_angle = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    T camera0, camera1, camera2;
    if (squared_angle != 0) {
        const T angle = sqrt(squared_angle);
        const T cosine = cos(angle), sine = sin(angle);
        const T inverse = 1.0 / angle;
        const T w0 = x[0] * inverse, w1 = x[1] * inverse, w2 = x[2] * inverse;
        const T along = (w0 * d0 + w1 * d1 + w2 * d2) * (1.0 - cosine);
        camera0 = d0 * cosine + (w1 * d2 - w2 * d1) * sine + w0 * along;
        camera1 = d1 * cosine + (w2 * d0 - w0 * d2) * sine + w1 * along;
        camera2 = d2 * cosine + (w0 * d1 - w1 * d0) * sine + w2 * along;
    } else {
        camera0 = d0 + x[1] * d2 - x[2] * d1;
        camera1 = d1 + x[2] * d0 - x[0] * d2;
        camera2 = d2 + x[0] * d1 - x[1] * d0;
    }
    const T p0 = camera0 / camera2, p1 = camera1 / camera2;
    const T radius2 = p0 * p0 + p1 * p1;
    const T distortion = 1.0 + x[9] * radius2 + x[10] * radius2 * radius2;
    return {T(x[14] * (p0 * distortion * x[6] + x[7] - feature[0])),
            T(x[14] * (p1 * distortion * x[6] + x[8] - feature[1]))};
}

/// The residuals of an observation at doubles.
inline std::array<double, 2> value(const observation& o) {
    return call_on_inputs(residuals(o.feature), o.x);
}

/// The 2x15 Jacobian by hand, through the chain of 3x3 and 2x3 blocks: the projection's
/// derivative by the camera-frame point, times Rodrigues' rotation (by the point and the
/// centre) and its derivative by the rotation vector. Returns the residuals.
inline std::array<double, 2> jacobian(const observation& o,
                                      std::array<std::array<double, inputs>, 2>& J) {
    const auto& x = o.x;
    const double r[3] = {x[0], x[1], x[2]};
    const double d[3] = {x[11] - x[3], x[12] - x[4], x[13] - x[5]};
    const double f = x[6], k1 = x[9], k2 = x[10], w = x[14];
    const double theta = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    const double c = std::cos(theta), s = std::sin(theta);
    const double u[3] = {r[0] / theta, r[1] / theta, r[2] / theta}; // the axis
    const double along = u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
    const double cross[3] = {u[1] * d[2] - u[2] * d[1], u[2] * d[0] - u[0] * d[2],
                             u[0] * d[1] - u[1] * d[0]};
    double cam[3], R[3][3], dcam_dr[3][3];
    for (int i = 0; i < 3; ++i) {
        cam[i] = d[i] * c + cross[i] * s + u[i] * along * (1 - c);
        // R = c I + s [u]x + (1 - c) u u^T, the derivative by d (and minus it, by the centre).
        for (int j = 0; j < 3; ++j)
            R[i][j] = (i == j ? c : 0) + (1 - c) * u[i] * u[j];
    }
    R[0][1] -= s * u[2];
    R[0][2] += s * u[1];
    R[1][0] += s * u[2];
    R[1][2] -= s * u[0];
    R[2][0] -= s * u[1];
    R[2][1] += s * u[0];
    // By the rotation vector: through theta (d theta / dr = u^T) and the axis
    // (du/dr = (I - u u^T) / theta).
    double by_theta[3], by_axis[3][3];
    for (int i = 0; i < 3; ++i) {
        by_theta[i] = -d[i] * s + cross[i] * c + u[i] * along * s;
        for (int j = 0; j < 3; ++j)
            by_axis[i][j] = (1 - c) * ((i == j ? along : 0) + u[i] * d[j]);
    }
    // d(u x d)/du = -[d]x
    by_axis[0][1] += s * d[2];
    by_axis[0][2] -= s * d[1];
    by_axis[1][0] -= s * d[2];
    by_axis[1][2] += s * d[0];
    by_axis[2][0] += s * d[1];
    by_axis[2][1] -= s * d[0];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double total = by_theta[i] * u[j];
            for (int l = 0; l < 3; ++l)
                total += by_axis[i][l] * ((l == j ? 1.0 : 0.0) - u[l] * u[j]) / theta;
            dcam_dr[i][j] = total;
        }
    // Projection and distortion: residual_i = w (p_i L f + x0_i - feature_i).
    const double p[2] = {cam[0] / cam[2], cam[1] / cam[2]};
    const double radius2 = p[0] * p[0] + p[1] * p[1];
    const double L = 1 + k1 * radius2 + k2 * radius2 * radius2;
    const double dL = 2 * (k1 + 2 * k2 * radius2); // dL/dp = dL p
    double by_cam[2][3];                           // d residual / d cam
    for (int i = 0; i < 2; ++i) {
        double by_p[2];
        for (int j = 0; j < 2; ++j)
            by_p[j] = w * f * ((i == j ? L : 0) + p[i] * dL * p[j]);
        by_cam[i][0] = by_p[0] / cam[2];
        by_cam[i][1] = by_p[1] / cam[2];
        by_cam[i][2] = -(by_p[0] * p[0] + by_p[1] * p[1]) / cam[2];
    }
    std::array<double, 2> residual{};
    for (int i = 0; i < 2; ++i) {
        auto& row = J[std::size_t(i)];
        for (int j = 0; j < 3; ++j) {
            double by_r = 0, by_d = 0;
            for (int l = 0; l < 3; ++l) {
                by_r += by_cam[i][l] * dcam_dr[l][j];
                by_d += by_cam[i][l] * R[l][j];
            }
            row[std::size_t(j)] = by_r;
            row[std::size_t(3 + j)] = -by_d;
            row[std::size_t(11 + j)] = by_d;
        }
        const double projected = p[i] * L * f + x[7 + i];
        row[6] = w * p[i] * L;
        row[7] = i == 0 ? w : 0;
        row[8] = i == 1 ? w : 0;
        row[9] = w * p[i] * f * radius2;
        row[10] = w * p[i] * f * radius2 * radius2;
        row[14] = projected - o.feature[std::size_t(i)];
        residual[std::size_t(i)] = w * row[14];
    }
    return residual;
}

} // namespace models::ba
