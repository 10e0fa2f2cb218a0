#include <zerograd/zerograd.hpp>

double square_in_b(double x) {
    return zg::tape::grad([](auto v) { return v * v; }, x)[0];
}
