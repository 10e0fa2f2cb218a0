// zg::grad with an argument that is neither a number nor a range of doubles.
#include <zerograd/expr.hpp>

#include <string>

int main() {
#ifdef ZG_ERROR
    (void)zg::grad([](auto x) { return x; }, std::string("2.0"));
#else
    (void)zg::grad([](auto x) { return x; }, 2.0);
#endif
}
