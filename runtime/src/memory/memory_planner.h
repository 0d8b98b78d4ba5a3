// Lifetime-based placement of activation buffers in one arena (after TensorFlow Lite Micro's
// GreedyMemoryPlanner): each buffer has a size and the first and last step that use it; buffers whose
// lifetimes do not overlap may share bytes. Sizes and offsets are 64-bit on every target, so a plan for
// limits that do not fit a 32-bit address space is computed exactly and then refused, never wrapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tern {

class MemoryPlanner {
 public:
  static constexpr size_t kAlignment = 64;  // every offset is a multiple of this (bytes)

  /// Registers a buffer of `bytes` live from step `first_use` to `last_use` inclusive; returns its id.
  int AddBuffer(uint64_t bytes, int first_use, int last_use);

  /// Places every buffer: largest first, each at the lowest aligned offset that overlaps no already
  /// placed buffer with an intersecting lifetime. Deterministic.
  void Plan();

  /// Offset in bytes of buffer `id` from the arena start (after Plan).
  uint64_t offset(int id) const { return buffers_[id].offset; }
  /// Bytes of buffer `id` as placed (its size rounded up to kAlignment).
  uint64_t bytes(int id) const { return buffers_[id].bytes; }
  /// Arena bytes the plan needs (after Plan).
  uint64_t total_bytes() const { return total_; }
  /// Sum of all buffer sizes: what the arena would need without sharing.
  uint64_t unshared_bytes() const;

 private:
  struct Buffer {
    uint64_t bytes;
    int first, last;
    uint64_t offset;
  };
  std::vector<Buffer> buffers_;
  uint64_t total_ = 0;
};

}  // namespace tern
