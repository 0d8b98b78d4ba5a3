// Content digests: XXH3 (xxHash 0.8, Debian's libxxhash-dev, used header-only) over bytes in memory. Not
// cryptographic: they tell whether bytes changed by accident or by a writer who could have changed the
// inputs anyway (the packed-weights cache's model and blocks, docs/cold-start.md "Trust"), never whether a
// stranger forged them; the cache trusts files by their owner and directory for that.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tern {

/// A 128-bit digest (XXH3-128), as two little-endian halves in the cache file.
struct Digest128 {
  uint64_t low = 0, high = 0;
  bool operator==(const Digest128& o) const { return low == o.low && high == o.high; }
  bool operator!=(const Digest128& o) const { return !(*this == o); }
};

/// XXH3-64 of [data, data + n) with `seed` (chain calls by passing the previous hash as the seed).
uint64_t Hash64(const void* data, size_t n, uint64_t seed = 0);

/// XXH3-128 of [data, data + n): XXH3's AVX2 loop on x86-64 CPUs with AVX2 (chosen from cpuinfo at run
/// time), its SSE2 or NEON loop otherwise; every loop gives the same digest (tests/test_kernels.cc).
Digest128 Digest(const void* data, size_t n);
/// The baseline loop (SSE2 on x86-64, NEON on arm64, scalar elsewhere), and the AVX2 one (x86-64 builds
/// only; the caller checks the CPU).
Digest128 DigestPortable(const void* data, size_t n);
Digest128 DigestAvx2(const void* data, size_t n);

/// XXH3-128 of several pieces as if they were one run of bytes: Add each, then Finish. Its state (576
/// bytes) is allocated once, when it is made (a load or a cache write, never a translation).
class DigestStream {
 public:
  DigestStream();
  ~DigestStream();
  DigestStream(const DigestStream&) = delete;
  DigestStream& operator=(const DigestStream&) = delete;
  void Add(const void* data, size_t n);
  Digest128 Finish() const;

 private:
  void* state_;
};

}  // namespace tern
