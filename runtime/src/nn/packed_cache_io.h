// The packed-weights cache file's little-endian fields and header checksum (nn/packed_cache.h has the
// layout), shared by its reader (packed_cache.cc) and writer (packed_cache_write.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/digest.h"
#include "nn/packed_cache.h"

namespace tern {

inline void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
inline uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
inline void PutDigest(uint8_t* p, const Digest128& d) { PutU64(p, d.low), PutU64(p + 8, d.high); }
inline Digest128 GetDigest(const uint8_t* p) { return {GetU64(p), GetU64(p + 8)}; }

/// XXH3-64 over the header (its checksum field read as zero), the key and the index.
inline uint64_t HeaderChecksum(const uint8_t* header, const uint8_t* key, size_t key_bytes, const uint8_t* index,
                               size_t index_bytes) {
  uint8_t h[packed_cache_format::kHeaderBytes];
  std::memcpy(h, header, sizeof h);
  std::memset(h + packed_cache_format::kChecksumAt, 0, 8);
  return Hash64(index, index_bytes, Hash64(key, key_bytes, Hash64(h, sizeof h)));
}

}  // namespace tern
