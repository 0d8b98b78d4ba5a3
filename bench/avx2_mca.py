"""x86 CPUs with AVX2 but no int8 dot products (AMD Zen 3, Intel Skylake): multiply-accumulates per cycle of
int8 GEMM inner loops, from LLVM's static performance model (llvm-mca), so that the figures exist for CPUs that
are not here (issue 37 names a Zen 3). Three register tiles, written out here for the model:

  - tern's exact tile (kernels/gathered_avx2.cc, which tern's own int8 GEMM runs on AVX2: 2 input rows x 4 weight
    rows, 32 columns per step): |x| with vpabsb, the weights' signs with vpsignb, vpmaddubsw (at most
    2 x 127 x 128 = 32,512 per pair: never saturates), vpmaddwd by ones, vpaddd;
  - an exact widening tile (tried in stop 55, not kept): 1 input row x 8 weight rows widened once to int16 in
    an L1 panel, 16 columns per step, vpmovsxbw on the input, vpmaddwd, vpaddd;
  - the u8 x s8 structure oneDNN uses without VNNI (what CTranslate2's int8 GEMM runs there): the same tile as
    tern's without vpabsb / vpsignb, the activations shifted to unsigned. Its vpmaddubsw pairs reach
    2 x 255 x 128 and saturate at 32,767, which oneDNN documents ("Nuances of int8 Computations"): not exact,
    so tern cannot use it and keep int8 output identical on every CPU.

Prints one row per (loop, CPU model): instructions and modelled cycles per iteration, multiply-accumulates per
cycle, and the rate as a share of the u8 x s8 structure's on the same CPU: the most an exact kernel can gain
over oneDNN's inner loop there, before memory, packing and the f32 work around the GEMMs.

    /usr/bin/python3 bench/avx2_mca.py [--cpus znver3,skylake]

Needs clang and llvm-mca (Debian's clang-14 and llvm-14 packages; `scripts/setup.sh check` installs them).
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from neon_mca import model  # noqa: E402  (the loop extraction and llvm-mca run, shared with the NEON figures)

HEADER = "#include <immintrin.h>\n#include <stdint.h>\n#include <stddef.h>\n"

# 2 rows x 4 weight rows x 32 columns = 256 multiply-accumulates per iteration. SIGN: tern's exact form.
TILE_2X4 = HEADER + r"""
void body(const int8_t* q0, const int8_t* q1, const int8_t* w0, const int8_t* w1, const int8_t* w2, const int8_t* w3,
          size_t d, __m256i* acc) {
  __m256i a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
  const __m256i ones = _mm256_set1_epi16(1);
  for (size_t j = 0; j < d; j += 32) {
    const __m256i v0 = _mm256_loadu_si256((const __m256i*)(w0 + j)), v1 = _mm256_loadu_si256((const __m256i*)(w1 + j));
    const __m256i v2 = _mm256_loadu_si256((const __m256i*)(w2 + j)), v3 = _mm256_loadu_si256((const __m256i*)(w3 + j));
    __m256i x = _mm256_loadu_si256((const __m256i*)(q0 + j));
#if SIGN
#define P(A, V) A = _mm256_add_epi32(A, _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8(V, x)), ones));
    __m256i ax = _mm256_abs_epi8(x);
#else
#define P(A, V) A = _mm256_add_epi32(A, _mm256_madd_epi16(_mm256_maddubs_epi16(ax, V), ones));
    __m256i ax = x;
#endif
    P(a0, v0) P(a1, v1) P(a2, v2) P(a3, v3)
    x = _mm256_loadu_si256((const __m256i*)(q1 + j));
#if SIGN
    ax = _mm256_abs_epi8(x);
#else
    ax = x;
#endif
    P(a4, v0) P(a5, v1) P(a6, v2) P(a7, v3)
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}
"""
TILE_2X4_MACS = 256

# 1 row x 8 weight rows (an int16 panel: per 16 columns, the 8 rows' 16 values) x 16 columns = 128.
WIDEN_1X8 = HEADER + r"""
void body(const int8_t* q, const int16_t* panel, size_t d, __m256i* acc) {
  __m256i a[8];
  for (int i = 0; i < 8; ++i) a[i] = acc[i];
  for (size_t j = 0; j < d; j += 16) {
    const __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(q + j)));
    const int16_t* p = panel + j * 8;
    for (int i = 0; i < 8; ++i) a[i] = _mm256_add_epi32(a[i], _mm256_madd_epi16(x, _mm256_load_si256((const __m256i*)(p + 16 * i))));
  }
  for (int i = 0; i < 8; ++i) acc[i] = a[i];
}
"""
WIDEN_1X8_MACS = 128

LOOPS = [
    ("tern exact: vpsignb + vpmaddubsw + vpmaddwd (gathered_avx2.cc)", "#define SIGN 1\n" + TILE_2X4, TILE_2X4_MACS),
    ("exact, int16 panel: vpmovsxbw + vpmaddwd (tried, not kept)", WIDEN_1X8, WIDEN_1X8_MACS),
    ("u8 x s8 structure (oneDNN without VNNI; saturates)", "#define SIGN 0\n" + TILE_2X4, TILE_2X4_MACS),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", default="znver3,skylake", help="llvm-mca -mcpu models, comma-separated")
    args = ap.parse_args()
    print("| CPU model | loop | MACs / iteration | instructions / iteration | modelled cycles / iteration | "
          "MACs / cycle | share of u8 x s8 |")
    print("|---|---|---|---|---|---|---|")
    for cpu in args.cpus.split(","):
        rates = []
        for name, src, macs in LOOPS:
            n, cycles, _ = model(src, ["--target=x86_64-linux-gnu", "-mavx2"], cpu)
            rates.append((name, macs, n, cycles, macs / cycles))
        peer = rates[-1][4]
        for name, macs, n, cycles, rate in rates:
            print(f"| {cpu} | {name} | {macs} | {n} | {cycles:.2f} | {rate:.1f} | {rate / peer:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
