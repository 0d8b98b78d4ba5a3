#include "gathered_kernels.h"

#include "gathered_kernels_isa.h"
#include "tern/cpu.h"

namespace tern {

TERN_GATHERED_KERNEL(GatheredInt8PortableFn) {
  for (size_t k = 0; k < K; ++k) {
    const uint32_t t = tokens[k];
    const int8_t* wr = w + size_t{t} * d;
    for (size_t r = 0; r < rows; ++r) {
      const int8_t* x = q + r * d;
      int32_t acc = 0;
      for (size_t j = 0; j < d; ++j) acc += int32_t{x[j]} * int32_t{wr[j]};
      out[r * out_stride + k] = GatheredOutput(acc - qp[r].zero_point * row_sums[t], qp[r].scale, w_scales[t], bias ? bias[t] : 0.f);
    }
  }
}

GatheredInt8Kernel GatheredInt8Portable() { return {"portable", GatheredInt8PortableFn}; }

size_t GatheredInt8Available(GatheredInt8Kernel* out, size_t capacity) {
  size_t n = 0;
  auto add = [&](GatheredInt8Kernel k) {
    if (n < capacity) out[n++] = k;
  };
  add(GatheredInt8Portable());
  const CpuDescription& cpu = DescribeCpu();
#if TERN_GATHERED_X86
  if (cpu.avx2) add({"avx2", GatheredInt8Avx2});
  if (cpu.avx512vnni) add({"avx512vnni", GatheredInt8Avx512Vnni});
#endif
#if TERN_GATHERED_NEONDOT
  add({"neon", GatheredInt8Neon});
  if (cpu.neon_dotprod) add({"neondot", GatheredInt8NeonDot});
#endif
  (void)cpu;
  return n;
}

GatheredInt8Kernel GatheredInt8Best() {
  GatheredInt8Kernel all[4];
  const size_t n = GatheredInt8Available(all, 4);
  return all[n - 1];  // listed from the slowest to the fastest
}

}  // namespace tern
