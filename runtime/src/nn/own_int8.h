// An int8 linear layer run by tern's own GEMM (kernels/int8_gemm.h) over the weights as the model stores
// them, on CPUs without int8 dot products (OwnInt8GemmActive), at every number of rows: it matched XNNPACK's
// at 1 and 4 rows and beat it from 16 (docs/performance.md, "Without int8 dot products"), and XNNPACK then
// packs nothing (one copy of the weights). Made once per Model with the layer's packed
// weights (PackLinear), shared by every Translator; it holds the row sums (4 bytes per output) and pointers
// into the model's rows, scales and the layer's fused bias.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <pthreadpool.h>

#include "kernels/int4_gemm.h"
#include "kernels/int8_gemm.h"
#include "nn/xnn_ops.h"
#include "tern/status.h"
#include "views.h"

namespace tern {

struct OwnInt8Linear {
  struct Part {
    const int8_t* w = nullptr;  // [rows, in] int8 rows of one fused weight (the model's)
    size_t rows = 0;
  };
  std::vector<Part> parts;        // fused along out (Q|K|V), in order
  std::vector<int32_t> row_sums;         // [out] when computed here
  const int32_t* cached_sums = nullptr;  // [out]: the packed-weights cache's copy of them (else nullptr)
  size_t in = 0, out = 0;

  /// For the n int8 weights (fused along out, each [out_i, in]); empty (no parts) when the layer cannot run
  /// on it: in > kMaxInt8GemmK, or a weight of -128 (XNNPACK keeps the layer). `cached_sums` ([out], from a
  /// packed-weights cache written by a load that computed them): used as they are, no weight read. Error:
  /// kResourceExhausted (no memory).
  static Result<OwnInt8Linear> Make(const TensorView* const* weights, size_t n, const int32_t* cached_sums = nullptr);
  /// The row sums [out]: the cache's, or those computed here (a cache could take these).
  const int32_t* sums() const { return cached_sums ? cached_sums : row_sums.data(); }
  bool available() const { return !parts.empty(); }

  /// y[rows, out] from the quantized input: ((float(acc) * x_scale) * w_scale[n]) + bias[n] (w_scale and
  /// bias over the fused out). Splits the columns across `pool`'s threads. Allocates nothing.
  void Run(const Int8GemmKernel& kernel, const QuantScratch& q, size_t rows, const float* w_scale, const float* bias,
           float* y, pthreadpool_t pool) const;
};

/// A 4-bit linear layer run by tern's own 4-bit GEMM (kernels/int4_gemm.h) over the stored nibbles, on AVX2
/// CPUs without VNNI when opted in (OwnInt4GemmActive): pointers into the model's rows and scales. The kernels take qc4w
/// and qb4w; the runtime uses them for qc4w (Linear::Pack says why).
struct OwnInt4Linear {
  struct Part {
    const uint8_t* w = nullptr;          // [rows, in / 2] nibbles of one fused weight (the model's)
    const float* scales = nullptr;       // qc4w: [rows]
    const uint16_t* block_scales = nullptr;  // qb4w: [rows, in / block]
    size_t rows = 0;
  };
  std::vector<Part> parts;  // fused along out, in order
  size_t in = 0, out = 0, block = 0;  // block 0: qc4w

  /// For the n 4-bit weights (fused along out, one format); empty when the layer cannot run on it (in not a
  /// multiple of 32 or above kMaxInt8GemmK, another format).
  static OwnInt4Linear Make(const TensorView* const* weights, size_t n);
  bool available() const { return !parts.empty(); }

  /// y[rows, out] from the quantized input (q.chunk_sums is written); bias over the fused out, or nullptr.
  /// Splits the columns across `pool`'s threads. Allocates nothing.
  void Run(const Int4GemmKernel& kernel, const QuantScratch& q, size_t rows, const float* bias, float* y,
           pthreadpool_t pool) const;
};

}  // namespace tern
