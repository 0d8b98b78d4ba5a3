// NEON dot-product gathered int8 projection (built with -march=armv8.2-a+dotprod; called only when
// cpuinfo reports the dot-product extension: Cortex-A55/A76 and later, not the Pi 4's A72). A register tile
// of up to 4 input rows x 4 tokens (16 accumulators), one vdotq_s32 per (row, token) per 16 bytes, the
// tokens' weight rows loaded once per tile. vdotq_s32 sums signed bytes exactly in int32, so the sums equal
// the portable kernel's; the float epilogue is the same operations in the same order (built with
// -ffp-contract=off: no fused multiply-add).
#include "kernels/gathered_neon_driver.h"

namespace tern {
namespace {

struct DotAcc {
  static int32x4_t Step(int32x4_t acc, int8x16_t x, int8x16_t w) { return vdotq_s32(acc, x, w); }
};

}  // namespace

TERN_GATHERED_KERNEL(GatheredInt8NeonDot) {
  static const TileFn tiles[4] = {Tile<DotAcc, 1>, Tile<DotAcc, 2>, Tile<DotAcc, 3>, Tile<DotAcc, 4>};
  Run<4>(tiles, q, qp, rows, d, w, w_scales, row_sums, bias, tokens, K, out, out_stride);
}

}  // namespace tern
