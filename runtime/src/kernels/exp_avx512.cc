// The exp pass for AVX-512 (built with -mavx512f; called only at Isa::kAvx512Vnni): kernels/exp_pass.h.
#include "kernels/exp_pass.h"

namespace tern {
void ExpShiftedAvx512(const float* x, size_t n, float m, float* e) { ExpShiftedBody(x, n, m, e); }
void SwishAvx512(float* x, size_t n) { SwishBody(x, n); }
}  // namespace tern
