// NEON gathered int8 projection for every AArch64 core (the Pi 4's Cortex-A72 has no dot product): a
// register tile of up to 2 input rows x 4 tokens, products by vmull_s8 (int16, exact) summed pairwise into
// int32 by vpadalq_s16, so the sums equal the portable kernel's; the float epilogue is the same operations
// in the same order (built with -ffp-contract=off: no fused multiply-add).
#include "kernels/gathered_neon_driver.h"

namespace tern {
namespace {

struct MullAcc {
  static int32x4_t Step(int32x4_t acc, int8x16_t x, int8x16_t w) {
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(x), vget_low_s8(w)));
    return vpadalq_s16(acc, vmull_high_s8(x, w));
  }
};

}  // namespace

TERN_GATHERED_KERNEL(GatheredInt8Neon) {
  static const TileFn tiles[2] = {Tile<MullAcc, 1>, Tile<MullAcc, 2>};
  Run<2>(tiles, q, qp, rows, d, w, w_scales, row_sums, bias, tokens, K, out, out_stride);
}

}  // namespace tern
