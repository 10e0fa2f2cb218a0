// The micrograd lecture's worked example, step by step: e = a*b, d = e + c, L = d*f.
#include <zerograd/tape.hpp>

#include <cstdio>

int main() {
    zg::var a = 2.0, b = -3.0, c = 10.0, f = -2.0;
    zg::var e = a * b; // -6
    zg::var d = e + c; //  4
    zg::var L = d * f; // -8
    L.backward();
    for (auto [name, v] :
         {std::pair{"a", a}, {"b", b}, {"c", c}, {"f", f}, {"e", e}, {"d", d}, {"L", L}})
        std::printf("%s: data %6.2f  grad %6.2f\n", name, v.data(), v.grad());
    // a: grad 6, b: -4, c: -2, f: 4, the same numbers the lecture works out by hand.
}
