#include "kernels/int4_gemm.h"

#include <cstdlib>
#include <cstring>

#include "kernels/int4_gemm_isa.h"

namespace tern {

TERN_INT4_GEMM_KERNEL(Int4GemmPortable) {
  (void)chunk_sums;
  for (size_t n = 0; n < N; ++n) {
    const uint8_t* wr = w + n * w_stride;
    for (size_t r = 0; r < rows; ++r) {
      const int8_t* x = q + r * K;
      const int32_t zp = qp[r].zero_point;
      float v;
      if (block == 0) {
        int32_t acc = 0, wsum = 0;
        for (size_t k = 0; k < K; ++k) {
          const int32_t wk = Int4Weight(wr, k);
          acc += int32_t{x[k]} * wk;
          wsum += wk;
        }
        v = Int4QcOutput(acc - zp * wsum, qp[r].scale, w_scales[n], bias ? bias[n] : 0.f);
      } else {
        float f = 0.f;
        const uint16_t* s = block_scales + n * (K / block);
        for (size_t b = 0; b < K / block; ++b) {
          int32_t ib = 0;
          for (size_t k = b * block; k < (b + 1) * block; ++k) ib += (int32_t{x[k]} - zp) * Int4Weight(wr, k);
          f = Int4BlockAdd(f, ib, s[b]);
        }
        v = Int4QbOutput(f, qp[r].scale, bias ? bias[n] : 0.f);
      }
      out[r * out_stride + n] = v;
    }
  }
}

Int4GemmKernel Int4GemmFor(Isa isa) {
  switch (isa) {
#if defined(__x86_64__) || defined(__i386__)
    case Isa::kAvx2: return {"avx2", Int4GemmAvx2};
    case Isa::kAvx512Vnni: return {"avx512vnni", Int4GemmAvx512Vnni};
#endif
    default: return {"portable", Int4GemmPortable};
  }
}

bool OwnInt4GemmAvailable() {
  static const bool off = [] {
    const char* env = std::getenv("TERN_OWN_INT8");
    return env && std::strcmp(env, "0") == 0;
  }();
  return !off && ActiveIsa() == Isa::kAvx2;
}

bool OwnInt4GemmActive() {
  static const bool on = [] {
    const char* env = std::getenv("TERN_OWN_INT4");
    return env && std::strcmp(env, "1") == 0;
  }();
  return on && OwnInt4GemmAvailable();
}

void Int4ChunkSums(const int8_t* q, size_t rows, size_t K, int32_t* chunk_sums) {
  const size_t chunks = K / 32;
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < chunks; ++c) {
      int32_t s = 0;
      for (size_t k = 0; k < 32; ++k) s += q[r * K + c * 32 + k];
      chunk_sums[r * chunks + c] = s;
    }
}

}  // namespace tern
