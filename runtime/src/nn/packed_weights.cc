#include "nn/packed_weights.h"

#include <cstdlib>

namespace tern {
namespace {

constexpr size_t kNotFound = SIZE_MAX;  // XNN_CACHE_NOT_FOUND (an internal XNNPACK macro)
constexpr size_t kAlignment = 64;       // >= XNN_ALLOCATION_ALIGNMENT on every architecture

PackedBlock& Self(void* context) { return *static_cast<PackedBlock*>(context); }

}  // namespace

PackedBlock::PackedBlock() {
  provider_.context = this;
  provider_.look_up = &PackedBlock::LookUp;
  provider_.reserve_space = &PackedBlock::ReserveSpace;
  provider_.look_up_or_insert = &PackedBlock::LookUpOrInsert;
  provider_.is_finalized = &PackedBlock::IsFinalized;
  provider_.offset_to_addr = &PackedBlock::OffsetToAddr;
  provider_.delete_cache = &PackedBlock::DeleteCache;
}

PackedBlock::~PackedBlock() {
  if (!borrowed_) std::free(block_);
}

void PackedBlock::Adopt(const void* data, size_t size, uint32_t seed) {
  if (!borrowed_) std::free(block_);
  block_ = const_cast<void*>(data);  // never written: XNNPACK only reads a block it finds
  size_ = size;
  seed_ = seed;
  packed_ = sealed_ = borrowed_ = true;
}

bool PackedBlock::Seal() {
  sealed_ = true;
  return packed_;
}

size_t PackedBlock::LookUp(void* context, const xnn_weights_cache_look_up_key* key) {
  const PackedBlock& b = Self(context);
  return b.packed_ && key->seed == b.seed_ ? 0 : kNotFound;
}

void* PackedBlock::ReserveSpace(void* context, size_t n) {
  PackedBlock& b = Self(context);
  if (b.sealed_ || b.packed_) return nullptr;  // one entry, written once, before Seal
  if (b.block_ && b.size_ >= n) return b.block_;
  std::free(b.block_);
  b.block_ = nullptr;
  b.size_ = 0;
  if (posix_memalign(&b.block_, kAlignment, n ? n : kAlignment) != 0) {
    b.block_ = nullptr;
    return nullptr;
  }
  b.size_ = n;
  return b.block_;
}

size_t PackedBlock::LookUpOrInsert(void* context, const xnn_weights_cache_look_up_key* key, void* ptr, size_t size) {
  PackedBlock& b = Self(context);
  if (b.packed_) return key->seed == b.seed_ ? 0 : kNotFound;
  if (b.sealed_ || ptr != b.block_ || size > b.size_) return kNotFound;
  b.seed_ = key->seed;
  b.packed_ = true;
  return 0;
}

bool PackedBlock::IsFinalized(void* context) { return Self(context).sealed_; }

void* PackedBlock::OffsetToAddr(void* context, size_t offset) {
  PackedBlock& b = Self(context);
  return offset == 0 && b.packed_ ? b.block_ : nullptr;
}

xnn_status PackedBlock::DeleteCache(void*) { return xnn_status_success; }  // owned by the PreparedModel

}  // namespace tern
