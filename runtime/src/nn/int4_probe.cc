#include "nn/int4_probe.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/int4_gemm.h"
#include "nn/linear.h"
#include "nn/xnn_ops.h"

namespace tern {
namespace {

constexpr size_t kOut = 67, kIn = 224, kBlock = 32, kMaxRows = 9;

uint16_t Bf16(float f) {  // the scales are exact in bfloat16 (a few bits of mantissa)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}

bool Probe(DType dtype) {
  if (!InitXnnpack().ok()) return false;
  const bool blocked = dtype == DType::kQb4w;
  std::vector<uint8_t> nibbles(kOut * kIn / 2);
  for (size_t n = 0; n < kOut; ++n)
    for (size_t k = 0; k < kIn; k += 2) {
      const unsigned lo = (n * 7 + k * 3 + 1) % 16, hi = (n * 5 + k * 11 + 4) % 16;
      nibbles[n * kIn / 2 + k / 2] = static_cast<uint8_t>(lo | (hi << 4));
    }
  std::vector<float> scales(kOut + 4), bias(kOut);
  std::vector<uint16_t> block_scales(kOut * (kIn / kBlock));
  for (size_t n = 0; n < kOut; ++n) scales[n] = 0.0625f * static_cast<float>(1 + n % 5), bias[n] = 0.25f * static_cast<float>(n % 7) - 0.5f;
  for (size_t i = 0; i < block_scales.size(); ++i) block_scales[i] = Bf16(0.03125f * static_cast<float>(1 + i % 6));
  TensorView wv;
  wv.name = "int4 probe";
  wv.dtype = dtype;
  wv.rank = 2;
  wv.shape[0] = kOut;
  wv.shape[1] = kIn;
  wv.data = nibbles.data();
  wv.bytes = nibbles.size();
  if (blocked) wv.block_scales = block_scales.data(), wv.block_size = kBlock;
  else wv.scales = scales.data();
  TensorView bv;
  bv.name = "int4 probe bias";
  bv.rank = 1;
  bv.shape[0] = kOut;
  bv.data = bias.data();
  bv.bytes = kOut * 4;
  const TensorView* wp = &wv;
  const TensorView* bp = &bv;
  auto packed = PackLinear(&wp, &bp, 1, LinearBackends::kXnnpackOnly);
  if (!packed.ok()) return false;
  auto linear = Linear::Bind(packed.value());
  auto quantizer = RowQuantizer::Create();
  if (!linear.ok() || !quantizer.ok()) return false;
  std::vector<float> x(kMaxRows * kIn), y(kMaxRows * kOut), want(kMaxRows * kOut);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * (1.f + static_cast<float>(i % 9));
  std::vector<int8_t> q(QuantInputBytes(kMaxRows, kIn));
  std::vector<xnn_quantization_params> qp(kMaxRows + 16);
  std::vector<int32_t> sums(QuantChunkSumsCount(kMaxRows, kIn));
  const QuantScratch scratch{q.data(), qp.data(), sums.data()};
  const Int4GemmKernel portable = Int4GemmFor(Isa::kPortable);
  for (size_t rows = 1; rows <= kMaxRows; ++rows) {  // XNNPACK's kernels differ by the rows of a tile
    if (!quantizer.value().Run(x.data(), rows, kIn, scratch, nullptr).ok()) return false;
    if (!linear.value().RunXnnpack(x.data(), scratch, rows, y.data(), nullptr).ok()) return false;
    Int4ChunkSums(q.data(), rows, kIn, sums.data());
    portable.fn(q.data(), qp.data(), sums.data(), rows, kIn, nibbles.data(), kIn / 2, blocked ? kBlock : 0, scales.data(),
                block_scales.data(), bias.data(), kOut, want.data(), kOut);
    for (size_t i = 0; i < rows * kOut; ++i)
      if (!(std::fabs(y[i] - want[i]) <= 1e-3f * std::max(1.f, std::fabs(want[i])))) return true;
  }
  return false;
}

}  // namespace

bool XnnpackInt4Wrong(DType dtype) {
  if (dtype == DType::kQc4w) {  // each probe once per process, and only when asked (a load's time)
    static const bool qc4w = Probe(DType::kQc4w);
    return qc4w;
  }
  if (dtype == DType::kQb4w) {
    static const bool qb4w = Probe(DType::kQb4w);
    return qb4w;
  }
  return false;
}

}  // namespace tern
