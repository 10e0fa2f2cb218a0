// bench/models/random.hpp: the models' seeded numbers, splitmix64 to [0, 1): the same numbers on
// every machine and library, unlike std's distributions.
#pragma once

#include <cstdint>

namespace models {

struct uniform_numbers {
    std::uint64_t state;
    double operator()() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return double((z ^ (z >> 31)) >> 11) * 0x1p-53;
    }
};

} // namespace models
