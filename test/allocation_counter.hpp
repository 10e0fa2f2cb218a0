// test/allocation_counter.hpp: how many times operator new ran in this test program. The
// replacement lives in its own translation unit (allocation_counter.cpp), linked into every test.
#pragma once

namespace test {
long allocation_count();
} // namespace test
