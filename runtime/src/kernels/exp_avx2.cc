// The exp pass for AVX2 (built with -mavx2; called only at Isa::kAvx2 and above): kernels/exp_pass.h.
#include "kernels/exp_pass.h"

namespace tern {
void ExpShiftedAvx2(const float* x, size_t n, float m, float* e) { ExpShiftedBody(x, n, m, e); }
void SwishAvx2(float* x, size_t n) { SwishBody(x, n); }
}  // namespace tern
