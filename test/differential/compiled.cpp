// test/differential/compiled.cpp: runs the generated programs (codegen.cpp writes them, Meson
// compiles them in PARTS parts, four or two) through expression, tape and forward mode.
#include "differential/compiled.hpp"

#include <cstdio>

int main() {
    differential::checker check;
    differential::run_part_0(check);
    differential::run_part_1(check);
#if PARTS > 2
    differential::run_part_2(check);
    differential::run_part_3(check);
#endif
    std::printf("compiled programs: %ld through expression, tape and forward mode; "
                "disagreements: %ld\n",
                check.programs, check.failures);
    return check.failures == 0 ? 0 : 1;
}
