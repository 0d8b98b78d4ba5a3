// The arena plan: every buffer a Translator uses while translating, declared once with its element type,
// count, name and lifetime, placed by the MemoryPlanner (buffers whose lifetimes do not overlap share
// bytes) and bound to one block of memory. The plan is the only sizing path: Translator::Create,
// RequiredArenaBytes, DescribeArena and the memory budget all use its total (PlanArena in
// session/buffers.h), computed in 64 bits; `tern inspect` prints it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "memory/memory_planner.h"

namespace tern {

/// Lifetime phases of one translate call, in order.
enum class Phase : int {
  kEncoder = 0,  // embedding and encoder layers
  kCrossKV = 1,  // cross-attention K/V of the encoder output
  kDecoder = 2,  // the decoder steps and the search
};
const char* PhaseName(Phase p);

/// Untyped part of an arena array (what the plan binds).
class ArenaArrayBase {
 protected:
  void* data_ = nullptr;
  size_t size_ = 0;  // elements
  friend class ArenaPlan;
};

/// A typed view of one planned buffer: T[size()], valid after ArenaPlan::Bind (which a plan whose total does
/// not fit size_t never reaches).
template <typename T>
class ArenaArray : public ArenaArrayBase {
 public:
  T* data() const { return static_cast<T*>(data_); }
  size_t size() const { return size_; }
  operator T*() const { return data(); }  // NOLINT: kernels take raw pointers; a[i] indexes through it
};

/// One planned buffer, as `tern inspect` shows it.
struct PlannedBuffer {
  std::string name;
  uint64_t bytes = 0, offset = 0;
  Phase first = Phase::kEncoder, last = Phase::kEncoder;
};

class ArenaPlan {
 public:
  /// Declares `array` as `count` elements of T called `name`, live from phase `first` to `last`. Counts
  /// are computed by the caller in 64 bits.
  template <typename T>
  void Add(ArenaArray<T>* array, const char* name, uint64_t count, Phase first, Phase last) {
    AddRaw(array, name, count, count * sizeof(T), first, last);
  }
  /// Places every buffer (MemoryPlanner::Plan).
  void Plan();
  uint64_t total_bytes() const { return planner_.total_bytes(); }
  uint64_t unshared_bytes() const { return planner_.unshared_bytes(); }
  /// Points every declared array into [base, base + total_bytes()) (base 64-byte aligned; the caller
  /// checked total_bytes() <= SIZE_MAX and allocated it).
  void Bind(uint8_t* base) const;
  /// Every buffer with its placement, in declaration order (after Plan).
  std::vector<PlannedBuffer> Describe() const;

 private:
  void AddRaw(ArenaArrayBase* array, const char* name, uint64_t count, uint64_t bytes, Phase first, Phase last);
  struct Entry {
    ArenaArrayBase* array;
    const char* name;
    uint64_t count, bytes;
    int id;
    Phase first, last;
  };
  std::vector<Entry> entries_;
  MemoryPlanner planner_;
};

}  // namespace tern
