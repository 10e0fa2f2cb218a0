// Counts every operator new of the program and the bytes asked for, so that tests can prove a loop
// allocates nothing and the benchmark suite can report what a gradient allocates.
#include "allocation_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> allocations{0};
std::atomic<long> bytes{0};
std::atomic<bool> counting{true};
} // namespace

long test::allocation_count() { return allocations.load(); }
long test::allocated_bytes() { return bytes.load(); }
void test::count_allocations(bool on) { counting.store(on); }

void* operator new(std::size_t size) {
    if (counting.load(std::memory_order_relaxed)) {
        ++allocations;
        bytes += static_cast<long>(size);
    }
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
