#include "kernels/int8_gemm.h"

#include "kernels/gathered_kernels_isa.h"
#include "kernels/int8_gemm_isa.h"
#include "kernels/row_ops.h"

#include <cstdlib>
#include <cstring>

namespace tern {

TERN_INT8_GEMM_KERNEL(Int8GemmPortable) {
  for (size_t n = 0; n < N; ++n) {
    const int8_t* wr = w + n * w_stride;
    for (size_t r = 0; r < rows; ++r) {
      const int8_t* x = q + r * K;
      int32_t acc = 0;
      for (size_t k = 0; k < K; ++k) acc += int32_t{x[k]} * int32_t{wr[k]};
      out[r * out_stride + n] =
          Int8GemmOutput(acc - qp[r].zero_point * row_sums[n], qp[r].scale, w_scales[n], bias ? bias[n] : 0.f);
    }
  }
}

namespace {
// The gathered kernels' tiles over every row in order (tokens nullptr): the weight rows must be contiguous.
template <GatheredInt8Fn kFn>
TERN_INT8_GEMM_KERNEL(Dense) {
  (void)w_stride;  // == K (OwnInt8Linear's weights are the model's [N, K] rows)
  kFn(q, qp, rows, K, w, w_scales, row_sums, bias, nullptr, N, out, out_stride);
}
}  // namespace

Int8GemmKernel Int8GemmFor(Isa isa) {
  switch (isa) {
#if TERN_GATHERED_X86
    case Isa::kAvx2:
    case Isa::kAvx512Vnni: return {"avx2", Dense<GatheredInt8Avx2Sign>};  // Int8RowSums refuses -128
#endif
#if TERN_GATHERED_NEONDOT
    case Isa::kNeon:
    case Isa::kNeonDot: return {"neon", Dense<GatheredInt8Neon>};
#elif defined(__ARM_NEON)
    case Isa::kNeon: return {"neon", Int8GemmNeon};  // ARMv7 (the gathered NEON kernels are AArch64's)
#endif
    default: return {"portable", Int8GemmPortable};
  }
}

bool OwnInt8GemmActive() {
  // TERN_OWN_INT8=0 keeps XNNPACK (benchmarks compare the two in one build; outputs are the same).
  static const bool off = [] {
    const char* env = std::getenv("TERN_OWN_INT8");
    return env && std::strcmp(env, "0") == 0;
  }();
  const Isa isa = ActiveIsa();
  return !off && (isa == Isa::kAvx2 || isa == Isa::kNeon);
}

std::string Int8GemmSummary() {
  return OwnInt8GemmActive() ? std::string("tern's (") + Int8GemmFor(ActiveIsa()).isa + ")" : std::string("XNNPACK's");
}

bool Int8RowSums(const int8_t* w, size_t N, size_t K, size_t w_stride, int32_t* row_sums) {
  const RowOps& ops = ActiveRowOps();  // vectorized: this reads every int8 weight at load
  bool in_range = true;
  for (size_t n = 0; n < N; ++n) in_range &= ops.int8_row_sum(w + n * w_stride, K, row_sums + n);
  return in_range;
}

}  // namespace tern
