// zg::tape::grad with an argument that is neither a number nor a range of doubles.
#include <zerograd/tape.hpp>

#include <vector>

int main() {
#ifdef ZG_ERROR
    (void)zg::tape::grad([](auto x) { return zg::sum(x); }, std::vector<int>{1});
#else
    (void)zg::tape::grad([](auto x) { return zg::sum(x); }, std::vector<double>{1.0});
#endif
}
