// test/allocation_counter.hpp: how many times operator new ran in this program, and for how many
// bytes. The replacement lives in its own translation unit (allocation_counter.cpp), linked into
// every test and into the benchmark suite.
#pragma once

namespace test {
long allocation_count();
/// The bytes those operator new calls asked for, in all.
long allocated_bytes();
/// Turns counting off (it is on from the start) or on again: the benchmark suite counts one call
/// and times the others without two locked additions per operator new.
void count_allocations(bool on);
} // namespace test
