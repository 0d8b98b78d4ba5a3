// XXH3-128 with its AVX2 loop (compiled with -mavx2; kernels/digest.h chooses it at run time).
#include "kernels/digest.h"

#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <xxhash.h>

namespace tern {

Digest128 DigestAvx2(const void* data, size_t n) {
  const XXH128_hash_t h = XXH3_128bits(data, n);
  return {h.low64, h.high64};
}

}  // namespace tern
