// zg::fwd::value_and_grad with an argument that is neither a number nor a range of doubles: one
// message, not a second about f's result.
#include <zerograd/forward.hpp>

#include <string>

int main() {
#ifdef ZG_ERROR
    (void)zg::fwd::value_and_grad([](auto x) { return x * 2.0; }, std::string("1"));
#else
    (void)zg::fwd::value_and_grad([](auto x) { return x * 2.0; }, 1.0);
#endif
}
