// The arena planner: buffers live at the same time never overlap; others may share bytes.
#include <random>

#include "memory/memory_planner.h"
#include "test_util.h"

using tern::MemoryPlanner;

TEST_CASE("buffers with disjoint lifetimes share bytes") {
  MemoryPlanner p;
  const int a = p.AddBuffer(1000, 0, 0);
  const int b = p.AddBuffer(1000, 1, 1);
  const int c = p.AddBuffer(100, 0, 1);
  p.Plan();
  CHECK(p.offset(a) == p.offset(b));
  CHECK(p.offset(c) >= 1024);
  CHECK(p.total_bytes() == 1024 + 128);
  CHECK(p.unshared_bytes() == 1024 + 1024 + 128);
  for (int id : {a, b, c}) CHECK(p.offset(id) % MemoryPlanner::kAlignment == 0);
}

TEST_CASE("random plans: no two live buffers overlap, and the arena is no larger than the sum") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    MemoryPlanner p;
    struct B { size_t bytes; int first, last; };
    std::vector<B> bs;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      const int f = static_cast<int>(rng() % 6);
      B b{1 + rng() % 5000, f, f + static_cast<int>(rng() % 3)};
      bs.push_back(b);
      p.AddBuffer(b.bytes, b.first, b.last);
    }
    p.Plan();
    CHECK(p.total_bytes() <= p.unshared_bytes());
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const bool live_together = bs[i].first <= bs[j].last && bs[j].first <= bs[i].last;
        const bool overlap = p.offset(i) < p.offset(j) + bs[j].bytes && p.offset(j) < p.offset(i) + bs[i].bytes;
        if (live_together) REQUIRE_FALSE(overlap);
      }
  }
}
