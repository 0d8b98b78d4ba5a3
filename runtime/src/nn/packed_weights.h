// Packed weights shared by every Translator of a Model, through XNNPACK's weights-cache interface
// (xnn_weights_cache_provider in xnnpack.h): each PackedBlock is its own one-entry provider. The first
// operator created with it misses, XNNPACK packs into the block (reserve_space + look_up_or_insert),
// and Seal() ends packing; every later operator created with the same block hits and points its
// kernels at the block without reading, copying or packing the weights again. The key is the block
// itself (XNNPACK's seed, which depends on the kernel and the sizes, must match), not the weight
// pointer: fused and converted weights are packed from temporaries that do not outlive packing.
#pragma once

#include <cstddef>
#include <cstdint>

#include <xnnpack.h>

namespace tern {

class PackedBlock {
 public:
  PackedBlock();
  ~PackedBlock();
  PackedBlock(const PackedBlock&) = delete;
  PackedBlock& operator=(const PackedBlock&) = delete;

  /// The provider to pass as `weights_cache` to an xnn_create_* call.
  xnn_weights_cache_t cache() { return &provider_; }
  /// Ends packing: from now on the block is read-only, lookups are thread-safe and a miss fails (XNNPACK's
  /// reserve_space gets nullptr and the create call returns an error). True if something was packed.
  bool Seal();
  /// Bytes of packed weights held (0 before packing).
  size_t bytes() const { return packed_ ? size_ : 0; }

 private:
  static size_t LookUp(void* context, const xnn_weights_cache_look_up_key* key);
  static void* ReserveSpace(void* context, size_t n);
  static size_t LookUpOrInsert(void* context, const xnn_weights_cache_look_up_key* key, void* ptr, size_t size);
  static bool IsFinalized(void* context);
  static void* OffsetToAddr(void* context, size_t offset);
  static xnn_status DeleteCache(void* context);

  xnn_weights_cache_provider provider_;
  void* block_ = nullptr;  // 64-byte aligned, size_ bytes
  size_t size_ = 0;
  uint32_t seed_ = 0;
  bool packed_ = false, sealed_ = false;
};

}  // namespace tern
