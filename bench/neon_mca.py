"""Cortex-A72 (Raspberry Pi 4: NEON without int8 dot products) figures for the int8 GEMM inner loops, from
LLVM's static performance model (llvm-mca -mcpu=cortex-a72), since there is no Pi here and Debian's qemu has no
timing: instructions and cycles per multiply-accumulate of

  - tern's AArch64 tile (kernels/gathered_neon.cc, which the own int8 GEMM runs: 2 input rows x 4 weight rows,
    16 columns per step, SMULL/SMULL2 then SADALP),
  - tern's ARMv7 tile (kernels/int8_gemm_neon.cc: 4 rows x 2 weight rows, VMULL + VMLAL then VPADAL),
  - the structure of XNNPACK's qd8-f32-qc8w 4x16 "neon-mlal-lane" kernel, which XNNPACK runs on cores without
    SDOT (both operands widened to 16 bits, one SMLAL by lane per 4 multiply-accumulates),

then the expected Pi 4 tokens/s of the OPUS-MT base shape (d_model 512, 6 decoder layers, 54,688-token output
layer, int8) per decoder-step row count M, as the slower of two bounds: the weight bytes a step reads over the
Pi 4's DRAM bandwidth, and the step's multiply-accumulates over the loop's modelled rate at the Pi 4's clock.
Everything else a step does is left out, so these are ceilings, not predictions of measured speed.

    /usr/bin/python3 bench/neon_mca.py [--ghz 1.5] [--dram-gbs 5.5]

Needs clang and llvm-mca (Debian's clang-14 and llvm-14 packages; `scripts/setup.sh check` installs them).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

TERN_A64 = r"""
#include <arm_neon.h>
#include <stdint.h>
#include <stddef.h>
/* The 2 x 4 tile's loop: 16 columns, 128 multiply-accumulates per iteration. */
void body(const int8_t* q0, const int8_t* q1, const int8_t* w0, const int8_t* w1, const int8_t* w2, const int8_t* w3,
          size_t d, int32x4_t* acc) {
  int32x4_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
  for (size_t j = 0; j < d; j += 16) {
    const int8x16_t v0 = vld1q_s8(w0 + j), v1 = vld1q_s8(w1 + j), v2 = vld1q_s8(w2 + j), v3 = vld1q_s8(w3 + j);
    int8x16_t x = vld1q_s8(q0 + j);
#define S(A, V) A = vpadalq_s16(A, vmull_s8(vget_low_s8(x), vget_low_s8(V))); A = vpadalq_s16(A, vmull_high_s8(x, V));
    S(a0, v0) S(a1, v1) S(a2, v2) S(a3, v3)
    x = vld1q_s8(q1 + j);
    S(a4, v0) S(a5, v1) S(a6, v2) S(a7, v3)
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}
"""
TERN_A64_MACS = 128

TERN_A32 = r"""
#include <arm_neon.h>
#include <stdint.h>
#include <stddef.h>
/* The 4 x 2 tile's loop: 16 columns, 128 multiply-accumulates per iteration. */
void body(const int8_t* q0, const int8_t* q1, const int8_t* q2, const int8_t* q3, const int8_t* w0, const int8_t* w1,
          size_t d, int32x4_t* acc) {
  int32x4_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
  for (size_t j = 0; j < d; j += 16) {
    const int8x16_t v0 = vld1q_s8(w0 + j), v1 = vld1q_s8(w1 + j);
#define R(q, A, B) { const int8x16_t x = vld1q_s8(q + j); \
    int16x8_t p = vmull_s8(vget_low_s8(x), vget_low_s8(v0)); p = vmlal_s8(p, vget_high_s8(x), vget_high_s8(v0)); A = vpadalq_s16(A, p); \
    p = vmull_s8(vget_low_s8(x), vget_low_s8(v1)); p = vmlal_s8(p, vget_high_s8(x), vget_high_s8(v1)); B = vpadalq_s16(B, p); }
    R(q0, a0, a1) R(q1, a2, a3) R(q2, a4, a5) R(q3, a6, a7)
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}
"""
TERN_A32_MACS = 128

# XNNPACK's mlal-lane structure, written out here for the model (not XNNPACK's source): per 8 columns of k,
# 16 int8 weights per k widened (VMOVL), each row's 8 inputs widened once, and per row and k four
# SMLAL-by-lane of 4 outputs each. 4 rows x 16 outputs x 8 k = 512 multiply-accumulates.
XNN_MLAL_LANE = r"""
#include <arm_neon.h>
#include <stdint.h>
#include <stddef.h>
#define LANE(r, v, n) \
  c[r][0] = vmlal_lane_s16(c[r][0], vget_low_s16(b0), v, n); c[r][1] = vmlal_lane_s16(c[r][1], vget_high_s16(b0), v, n); \
  c[r][2] = vmlal_lane_s16(c[r][2], vget_low_s16(b1), v, n); c[r][3] = vmlal_lane_s16(c[r][3], vget_high_s16(b1), v, n);
#define K(half, n) { const int16x8_t b0 = vmovl_s8(vld1_s8(w)); w += 8; const int16x8_t b1 = vmovl_s8(vld1_s8(w)); w += 8; \
  LANE(0, half(x0), n) LANE(1, half(x1), n) LANE(2, half(x2), n) LANE(3, half(x3), n) }
void body(const int8_t* a0, const int8_t* a1, const int8_t* a2, const int8_t* a3, const int8_t* w, size_t kc,
          int32x4_t* acc) {
  int32x4_t c[4][4];
  for (int r = 0; r < 4; ++r) for (int i = 0; i < 4; ++i) c[r][i] = acc[r * 4 + i];
  for (size_t k = 0; k < kc; k += 8) {
    const int16x8_t x0 = vmovl_s8(vld1_s8(a0 + k)), x1 = vmovl_s8(vld1_s8(a1 + k)), x2 = vmovl_s8(vld1_s8(a2 + k)),
                    x3 = vmovl_s8(vld1_s8(a3 + k));
    K(vget_low_s16, 0) K(vget_low_s16, 1) K(vget_low_s16, 2) K(vget_low_s16, 3)
    K(vget_high_s16, 0) K(vget_high_s16, 1) K(vget_high_s16, 2) K(vget_high_s16, 3)
  }
  for (int r = 0; r < 4; ++r) for (int i = 0; i < 4; ++i) acc[r * 4 + i] = c[r][i];
}
"""
XNN_MACS = 512

# OPUS-MT base shape, int8: per decoder step and row, the decoder's linear layers (self-attention Q, K, V and
# output, cross-attention Q and output: 6 of d_model x d_model; the feed-forward pair; cross-attention K/V run
# once per sentence, not per step) and the output layer. Bytes: int8 rows, an f32 scale and bias per row.
D, FFN, LAYERS, VOCAB = 512, 2048, 6, 54688
STEP_MACS_PER_ROW = LAYERS * (6 * D * D + 2 * D * FFN) + VOCAB * D
STEP_WEIGHT_BYTES = LAYERS * (6 * D * D + 2 * D * FFN + 8 * (7 * D + FFN)) + VOCAB * (D + 8)


def model(source: str, target: list[str], mcpu: str) -> tuple[int, float, dict]:
    """Instructions of the innermost loop (from its label to the branch back to it) and its modelled cycles per
    iteration over 1,000 iterations. target: clang's flags, the first one --target=... (AArch64, ARMv7 or x86_64)."""
    with tempfile.TemporaryDirectory() as tmp:
        c, s, loop = (os.path.join(tmp, n) for n in ("body.c", "body.s", "loop.s"))
        with open(c, "w") as f:
            f.write(source)
        subprocess.run(["clang", *target, "-O2", "-ffreestanding", "-S", c, "-o", s], check=True)
        x86 = "x86_64" in target[0]
        comment = r"\s(#)" if x86 else r"\s(//|@)"  # (AArch64 and ARMv7 write immediates with '#')
        text = [re.split(comment, l)[0].strip() for l in open(s).read().split("\n")]
        labels = {l[:-1]: i for i, l in enumerate(text) if re.match(r"^\.L\w+:$", l)}
        best = None
        branch = r"^(j\w+)\s+(\.L\w+)$" if x86 else r"^(b\.\w+|b\w*|cbnz|cbz)\s+.*?(\.L\w+)$"
        for i, l in enumerate(text):  # backward branches: the loop is [label, branch]
            m = re.match(branch, l)
            if m and m.group(2) in labels and labels[m.group(2)] < i:
                best = (labels[m.group(2)], i)
        start, end = best
        lines = [l for l in text[start + 1:end + 1] if l and not l.startswith((".", "//", "@"))]
        with open(loop, "w") as f:
            f.write("\n".join(lines) + "\n")
        triple = ("-mtriple=x86_64" if x86 else "-mtriple=aarch64" if "aarch64" in target[0] else "-mtriple=armv7a")
        out = subprocess.run(["llvm-mca", triple, f"-mcpu={mcpu}", "-iterations=1000", loop], capture_output=True,
                             text=True, check=True).stdout
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", out).group(1)) / 1000
    mix = {}
    for t in lines:
        op = t.split()[0]
        mix[op] = mix.get(op, 0) + 1
    return len(lines), cycles, mix


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ghz", type=float, default=1.5, help="Pi 4 Model B: 1.5 GHz (1.8 GHz on later boards)")
    ap.add_argument("--dram-gbs", type=float, default=5.5,
                    help="STREAM copy measured on a Pi 4 (docs/performance.md cites the source)")
    args = ap.parse_args()
    rows = [("tern AArch64 (gathered_neon.cc)", TERN_A64, ["--target=aarch64-linux-gnu"], TERN_A64_MACS),
            ("tern ARMv7 (int8_gemm_neon.cc)", TERN_A32, ["--target=armv7a-linux-gnueabihf", "-mfpu=neon", "-mfloat-abi=hard"],
             TERN_A32_MACS),
            ("XNNPACK neon-mlal-lane structure", XNN_MLAL_LANE, ["--target=aarch64-linux-gnu"], XNN_MACS)]
    print("| loop | MACs / iteration | instructions / MAC | modelled cycles / iteration | MACs / cycle | GMAC/s at "
          f"{args.ghz} GHz |")
    print("|---|---|---|---|---|---|")
    rates = {}
    for name, src, target, macs in rows:
        n, cycles, mix = model(src, target, "cortex-a72")
        rate = macs / cycles
        rates[name] = rate
        print(f"| {name} | {macs} | {n / macs:.3f} | {cycles:.1f} | {rate:.2f} | {rate * args.ghz:.1f} |")
    print(f"\nOPUS-MT base shape, int8: {STEP_MACS_PER_ROW / 1e6:.1f} M multiply-accumulates per row per decoder step, "
          f"{STEP_WEIGHT_BYTES / 1e6:.1f} MB of weights per step; DRAM {args.dram_gbs} GB/s -> "
          f"{STEP_WEIGHT_BYTES / (args.dram_gbs * 1e9) * 1e3:.1f} ms per step at any M.\n")
    print("| search | batch | M | tokens / step | tern ceiling tok/s | XNNPACK ceiling tok/s | bound (tern) |")
    print("|---|---|---|---|---|---|---|")
    dram_s = STEP_WEIGHT_BYTES / (args.dram_gbs * 1e9)
    for search, beam, batch in (("greedy", 1, 1), ("beam 4", 4, 1), ("greedy", 1, 16), ("beam 4", 4, 16)):
        m = beam * batch
        out = []
        for name in (rows[0][0], rows[2][0]):
            compute_s = m * STEP_MACS_PER_ROW / (rates[name] * args.ghz * 1e9)
            out.append((batch / max(dram_s, compute_s), "DRAM" if dram_s >= compute_s else "compute"))
        print(f"| {search} | {batch} | {m} | {batch} | {out[0][0]:.0f} | {out[1][0]:.0f} | {out[0][1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
