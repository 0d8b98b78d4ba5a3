#include "memory/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace tern {

static uint64_t AlignUp(uint64_t n) { return (n + MemoryPlanner::kAlignment - 1) & ~uint64_t{MemoryPlanner::kAlignment - 1}; }

int MemoryPlanner::AddBuffer(uint64_t bytes, int first_use, int last_use) {
  buffers_.push_back({AlignUp(bytes), first_use, last_use, 0});
  return static_cast<int>(buffers_.size()) - 1;
}

uint64_t MemoryPlanner::unshared_bytes() const {
  uint64_t s = 0;
  for (const Buffer& b : buffers_) s += b.bytes;
  return s;
}

void MemoryPlanner::Plan() {
  std::vector<size_t> order(buffers_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return buffers_[a].bytes > buffers_[b].bytes; });
  std::vector<size_t> placed;
  total_ = 0;
  for (size_t i : order) {
    Buffer& b = buffers_[i];
    // Intervals already taken by buffers live at the same time, sorted by offset.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t j : placed) {
      const Buffer& o = buffers_[j];
      if (o.first <= b.last && b.first <= o.last) taken.emplace_back(o.offset, o.offset + o.bytes);
    }
    std::sort(taken.begin(), taken.end());
    uint64_t candidate = 0;
    for (const auto& [lo, hi] : taken) {
      if (candidate + b.bytes <= lo) break;
      candidate = std::max(candidate, hi);
    }
    b.offset = candidate;
    total_ = std::max(total_, candidate + b.bytes);
    placed.push_back(i);
  }
}

}  // namespace tern
