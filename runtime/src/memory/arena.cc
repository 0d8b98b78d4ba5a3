#include "memory/arena.h"

namespace tern {

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kEncoder: return "encoder";
    case Phase::kCrossKV: return "cross-kv";
    case Phase::kDecoder: return "decoder";
  }
  return "?";
}

void ArenaPlan::AddRaw(ArenaArrayBase* array, const char* name, uint64_t count, uint64_t bytes, Phase first, Phase last) {
  const int id = planner_.AddBuffer(bytes, static_cast<int>(first), static_cast<int>(last));
  entries_.push_back({array, name, count, bytes, id, first, last});
}

void ArenaPlan::Plan() { planner_.Plan(); }

void ArenaPlan::Bind(uint8_t* base) const {
  for (const Entry& e : entries_) {
    e.array->data_ = base + static_cast<size_t>(planner_.offset(e.id));
    e.array->size_ = static_cast<size_t>(e.count);
  }
}

std::vector<PlannedBuffer> ArenaPlan::Describe() const {
  std::vector<PlannedBuffer> out;
  for (const Entry& e : entries_) out.push_back({e.name, planner_.bytes(e.id), planner_.offset(e.id), e.first, e.last});
  return out;
}

}  // namespace tern
