// The allocation counter of tern_no_heap_tests (test_no_heap.cc replaces malloc and friends): while
// g_counting is true every allocation adds one to g_allocations.
#pragma once

#include <atomic>
#include <cstddef>

extern std::atomic<bool> g_counting;
extern std::atomic<size_t> g_allocations;
