// Internal to the gathered-projection kernels: the per-ISA entry points (each in its own source file,
// compiled with that ISA's flags and called only when cpuinfo reports it) and the shared float epilogue.
#pragma once

#include "kernels/gathered_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#define TERN_GATHERED_X86 1
#endif
#if defined(__aarch64__)
#define TERN_GATHERED_NEONDOT 1
#endif

namespace tern {

namespace {  // internal linkage: never shared across files built with different ISA flags
/// The float epilogue every kernel computes, operation for operation (no fused multiply-add).
inline float GatheredOutput(int32_t acc, float x_scale, float w_scale, float bias) {
  float v = static_cast<float>(acc);
  v *= x_scale;
  v *= w_scale;
  return v + bias;
}

constexpr size_t kNR = 4;  // tokens per register tile (every ISA kernel)

/// The token tile at k of tokens[0..K) (tokens nullptr: token k is k, every row in order): its tokens t[kNR]
/// (a short last tile repeats its last token) and their weight rows wr[kNR]; the rows of the tile two ahead
/// are prefetched, one cache line at a time. Returns the tile's real token count.
inline size_t TokenTile(const uint32_t* tokens, size_t k, size_t K, const int8_t* w, size_t d, uint32_t* t,
                        const int8_t** wr) {
  const size_t n = K - k < kNR ? K - k : kNR;
  for (size_t i = 0; i < kNR; ++i) {
    const size_t at = k + (i < n ? i : n - 1);
    t[i] = tokens ? tokens[at] : static_cast<uint32_t>(at);
  }
  for (size_t i = 0; i < kNR; ++i) wr[i] = w + size_t{t[i]} * d;
  for (size_t i = 2 * kNR; i < 3 * kNR && k + i < K; ++i) {
    const char* p = reinterpret_cast<const char*>(w + (tokens ? size_t{tokens[k + i]} : k + i) * d);
    for (size_t j = 0; j < d; j += 64) __builtin_prefetch(p + j);
  }
  return n;
}
}  // namespace

// Each kernel has the signature of GatheredInt8Fn (gathered_kernels.h).
#define TERN_GATHERED_KERNEL(name)                                                                            \
  void name(const int8_t* q, const xnn_quantization_params* qp, size_t rows, size_t d, const int8_t* w,      \
            const float* w_scales, const int32_t* row_sums, const float* bias, const uint32_t* tokens, size_t K, \
            float* out, size_t out_stride)

TERN_GATHERED_KERNEL(GatheredInt8PortableFn);
#if TERN_GATHERED_X86
TERN_GATHERED_KERNEL(GatheredInt8Avx2);
TERN_GATHERED_KERNEL(GatheredInt8Avx2Sign);  // weights in [-127, 127] only
TERN_GATHERED_KERNEL(GatheredInt8Avx512Vnni);
#endif
#if TERN_GATHERED_NEONDOT
TERN_GATHERED_KERNEL(GatheredInt8Neon);
TERN_GATHERED_KERNEL(GatheredInt8NeonDot);
#endif

}  // namespace tern
