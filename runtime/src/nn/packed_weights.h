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
  /// The packed bytes and XNNPACK's seed for them (nullptr before packing): what the packed-weights cache
  /// file stores (nn/packed_cache.h).
  const void* data() const { return packed_ ? block_ : nullptr; }
  uint32_t seed() const { return seed_; }
  /// Makes a sealed block of packed weights that live elsewhere (a mapped cache file, which must outlive
  /// the block): operators created with it find them when XNNPACK's seed for the layer equals `seed`, and
  /// fail (no packing: the block is sealed) when it does not.
  void Adopt(const void* data, size_t size, uint32_t seed);
  /// True when the bytes are borrowed (Adopt), not packed into memory of the block's own.
  bool borrowed() const { return borrowed_; }

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
  bool packed_ = false, sealed_ = false, borrowed_ = false;
};

}  // namespace tern
