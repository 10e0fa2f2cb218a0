// Black-Scholes call price with its Greeks: delta and vega by reverse mode (one sweep), gamma by
// forward-over-reverse (zg::tape::hessian), each beside its closed form.
#include <zerograd/forward.hpp>
#include <zerograd/tape.hpp>

#include <cmath>
#include <cstdio>
#include <numbers>

namespace {

const double strike = 100, rate = 0.05, maturity = 1;

/// The standard normal distribution function, written once for double, zg::var and duals.
template <class T>
T normal_cdf(const T& x) {
    return 0.5 * (1 + erf(x / std::numbers::sqrt2));
}

/// The price of a European call on a stock at `spot` with volatility `sigma`.
const auto call_price = [](auto spot, auto sigma) {
    const auto sd = sigma * std::sqrt(maturity);
    const auto d1 = (log(spot / strike) + (rate + 0.5 * sigma * sigma) * maturity) / sd;
    const auto d2 = d1 - sd;
    return spot * normal_cdf(d1) - strike * std::exp(-rate * maturity) * normal_cdf(d2);
};

void print(const char* name, double automatic, double closed_form) {
    const double difference = automatic - closed_form;
    char text[32];
    if (std::abs(difference) < 1e-13)
        std::snprintf(text, sizeof text, "below 1e-13");
    else
        std::snprintf(text, sizeof text, "%.1e", difference);
    std::printf("%-6s %16.12f   closed form %16.12f   difference %s\n", name, automatic,
                closed_form, text);
}

} // namespace

int main() {
    const double spot = 100, sigma = 0.2;

    // Reverse mode: the price and both first-order Greeks from one recording and one sweep.
    const auto [price, greeks] = zg::tape::value_and_grad(call_price, spot, sigma);
    const auto [delta, vega] = greeks;
    // Forward-over-reverse: the tape records on duals, each sweep gives a Hessian column.
    const auto h = zg::tape::hessian([](auto x) { return call_price(x[0], x[1]); }, {spot, sigma});

    // Closed forms.
    const double sd = sigma * std::sqrt(maturity);
    const double d1 = (std::log(spot / strike) + (rate + 0.5 * sigma * sigma) * maturity) / sd;
    const double d2 = d1 - sd;
    const auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
    const double pdf_d1 = std::exp(-0.5 * d1 * d1) / std::sqrt(2 * std::numbers::pi);
    const double discount = std::exp(-rate * maturity);

    std::printf("European call: S = 100, K = 100, r = 0.05, sigma = 0.2, T = 1\n");
    print("price", price, spot * cdf(d1) - strike * discount * cdf(d2));
    print("delta", delta, cdf(d1));
    print("vega", vega, spot * pdf_d1 * std::sqrt(maturity));
    print("gamma", h[0][0], pdf_d1 / (spot * sd));
    // The rest of the Hessian comes with it: vanna (d2 price / dS dsigma) and volga.
    print("vanna", h[0][1], -pdf_d1 * d2 / sigma);
    print("volga", h[1][1], spot * pdf_d1 * std::sqrt(maturity) * d1 * d2 / sigma);
}
