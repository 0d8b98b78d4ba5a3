// tern's own GEMM for 4-bit weights (qc4w: a scale per row; qb4w: a bfloat16 scale per block of columns) on
// CPUs without int8 dot products, next to the int8 one (kernels/int8_gemm.h): the weights as stored (two
// columns a byte, the even one in the low nibble, each row starting on a byte, zero point 8: w = nibble - 8),
// q row-quantized (qd8) input, no packing. Per row r and weight row n:
//
//   qc4w: acc = sum_k q[r, k] * w[n, k] - zero_point[r] * sum_k w[n, k]          (int32, exact)
//         out = ((float(acc) * x_scale[r]) * w_scale[n]) + bias[n]
//         (what XNNPACK's qc4w operator and tern's epilogue give, bit for bit)
//   qb4w: ib_b = sum_{k in block b} (q[r, k] - zero_point[r]) * w[n, k]              (int32, exact)
//         f = (..((0 + float(ib_0) * s_0) + float(ib_1) * s_1) + ..)                (blocks in order, no FMA)
//         out = (f * x_scale[r]) + bias[n]
//         (tern's own order: every ISA's kernel gives these bits; XNNPACK's qb4w kernels sum the blocks in
//         another order, so they differ in the last bits)
//
// The kernels multiply the unsigned nibble (0..15) by q (-128..127) with vpmaddubsw: neighbouring products
// sum to at most 2 x 15 x 128 in int16 (no saturation), and the zero point 8 is taken out with the sums of
// q over each 32 columns (`chunk_sums`, from Int4ChunkSums).
#pragma once

#include <cstddef>
#include <cstdint>

#include <xnnpack.h>

#include "kernels/isa.h"

namespace tern {

/// out[r, n] above for r < rows, n < N: q [rows, K], chunk_sums [rows, K / 32] (Int4ChunkSums), w [N, K / 2]
/// nibbles (rows w_stride bytes apart); block 0: qc4w with w_scales [N]; else qb4w with blocks of `block`
/// columns (a multiple of 32 dividing K) and block_scales [N, K / block] (bfloat16); bias [N] or nullptr.
/// K a multiple of 32, at most 8192. Allocates nothing.
using Int4GemmFn = void (*)(const int8_t* q, const xnn_quantization_params* qp, const int32_t* chunk_sums, size_t rows,
                            size_t K, const uint8_t* w, size_t w_stride, size_t block, const float* w_scales,
                            const uint16_t* block_scales, const float* bias, size_t N, float* out, size_t out_stride);

struct Int4GemmKernel {
  const char* isa;  ///< "portable", "avx2", "avx512vnni"
  Int4GemmFn fn;
};

/// The kernel of `isa` (portable below AVX2, and on Arm: NEON keeps XNNPACK's 4-bit kernels). The x86 kernels
/// have three forms: from Int4PanelRows() input rows (kernels/int4_panel.h) a panel form that unpacks 8 (AVX2)
/// or 16 (AVX-512 VNNI) weight rows once per call and runs every input row over them; for qc4w below that and
/// for qb4w with blocks of 32 at 1 or 2 rows (K a multiple of 64, rows x K <= 16 KiB), a split form that splits
/// the input's even and odd columns once per call and multiplies the nibbles where they are stored
/// (kernels/int4_split_avx2.cc); else a row form.
Int4GemmKernel Int4GemmFor(Isa isa);

/// Whether ActiveIsa() has tern's own 4-bit GEMM: x86 AVX2 without VNNI (and TERN_OWN_INT8 not 0).
bool OwnInt4GemmAvailable();
/// Whether it runs 4-bit layers where XNNPACK's operator is right: OwnInt4GemmAvailable() and TERN_OWN_INT4=1
/// (opt-in: its row form was 0.87-0.91x XNNPACK's qc4w at 1 to 16 rows; its panel form, from 8 rows, and its
/// qb4w were not measured against XNNPACK's, docs/performance.md "4-bit weights at 4 to 64 rows").
bool OwnInt4GemmActive();

/// chunk_sums[r, c] = sum of q[r, 32c .. 32c + 31] for rows x K (K a multiple of 32).
void Int4ChunkSums(const int8_t* q, size_t rows, size_t K, int32_t* chunk_sums);

}  // namespace tern
