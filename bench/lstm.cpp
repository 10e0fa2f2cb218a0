// bench/lstm.cpp: ADBench's LSTM objective in the suite, 2 and 4 layers of b = 14 units over
// c = 1,024 characters: cases lstm_l<l>_c<c>, the gradient by (main, extra) in a row. Expression
// mode runs the objective as its users write it (a zg::scan per unit and layer,
// bench/models/lstm.hpp); tape mode and the peers run ADBench's loop over scalars.
#include "models/lstm.hpp"

#include <zerograd/expr.hpp>
#include <zerograd/tape.hpp>

#include "harness.hpp"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace bench {

namespace {

constexpr int units = 14, characters = 1024;

sized_case lstm_case(int l) {
    auto p =
        std::make_shared<const models::lstm::problem>(models::lstm::make(l, characters, units));
    const auto loop = [p](auto v, std::span<const double>) {
        return models::lstm::loop_objective(v, *p);
    };
    sized_case c{"lstm_l" + std::to_string(l) + "_c" + std::to_string(characters),
                 std::size_t(characters),
                 models::lstm::point(*p),
                 [loop](std::span<const double> x) { return loop(x, x); },
                 [p](std::span<const double> x, std::vector<double>& g) {
                     return models::lstm::gradient(x, g, *p);
                 },
                 {}};
    c.measure_memory = true;
    c.modes.push_back({"expr", [p](std::span<const double> x, std::vector<double>& g) {
                           const std::size_t main = p->main.size();
                           auto result = zg::value_and_grad(models::lstm::expression_objective(*p),
                                                            x.first(main), x.subspan(main));
                           return flatten(result, g, x.size());
                       }});
    add_tape_mode(c.modes, loop);
    add_peers(c.modes, loop);
    return c;
}

} // namespace

std::vector<sized_case> lstm_cases() { return {lstm_case(2), lstm_case(4)}; }

} // namespace bench
