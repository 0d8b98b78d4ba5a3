#include "kernels/gathered_kernels.h"

#include "kernels/gathered_kernels_isa.h"

namespace tern {

TERN_GATHERED_KERNEL(GatheredInt8PortableFn) {
  for (size_t k = 0; k < K; ++k) {
    const uint32_t t = tokens ? tokens[k] : static_cast<uint32_t>(k);
    const int8_t* wr = w + size_t{t} * d;
    for (size_t r = 0; r < rows; ++r) {
      const int8_t* x = q + r * d;
      int32_t acc = 0;
      for (size_t j = 0; j < d; ++j) acc += int32_t{x[j]} * int32_t{wr[j]};
      out[r * out_stride + k] = GatheredOutput(acc - qp[r].zero_point * row_sums[t], qp[r].scale, w_scales[t], bias ? bias[t] : 0.f);
    }
  }
}

GatheredInt8Kernel GatheredInt8For(Isa isa) {
  switch (isa) {
#if TERN_GATHERED_X86
    case Isa::kAvx2: return {"avx2", GatheredInt8Avx2, GatheredInt8Avx2Sign};
    case Isa::kAvx512Vnni: return {"avx512vnni", GatheredInt8Avx512Vnni};
#endif
#if TERN_GATHERED_NEONDOT
    case Isa::kNeon: return {"neon", GatheredInt8Neon};
    case Isa::kNeonDot: return {"neondot", GatheredInt8NeonDot};
#endif
    default: return {"portable", GatheredInt8PortableFn};
  }
}

GatheredInt8Kernel GatheredInt8Active() { return GatheredInt8For(ActiveIsa()); }

}  // namespace tern
