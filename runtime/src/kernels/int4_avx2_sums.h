// Internal to the AVX2 4-bit kernels (int4_gemm_avx2.cc, int4_split_avx2.cc; both built with -mavx2): the
// horizontal sums of their int32 accumulators and vpsadbw nibble sums. Internal linkage: each file compiles
// its own copy with its own flags.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace tern {
namespace {

/// The sum of v's 8 int32 lanes.
inline int32_t Sum8(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}
/// The sum of vpsadbw's four 64-bit sums (each below 2^16).
inline int32_t Sum4x64(__m256i v) {
  __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
  return _mm_cvtsi128_si32(s);
}

}  // namespace
}  // namespace tern
