#include "nn/linear_kernels.h"

#include <limits>

#include "format.h"
#include "half.h"

namespace tern {
namespace {

constexpr float kLo = -std::numeric_limits<float>::infinity(), kHi = std::numeric_limits<float>::infinity();

void WidenF16(const TensorView& t, uint8_t* out) {
  const uint16_t* h = static_cast<const uint16_t*>(t.data);
  float* f = reinterpret_cast<float*>(out);
  for (size_t i = 0, n = t.numel(); i < n; ++i) f[i] = format::HalfToFloat(h[i]);
}

float SameBias(float b) { return b; }
// XNNPACK's fully_connected_nc_f32_f16, which tern's f16 files ran on before their weights were packed
// once per Model, takes its bias in f16: the bias is rounded through f16, so f16 output stays as it was.
float F16Bias(float b) { return format::HalfToFloat(format::FloatToHalf(b)); }

xnn_status CreateF32(size_t in, size_t out, const void* w, const void*, const float* bias, uint32_t,
                     xnn_weights_cache_t cache, xnn_operator_t* op) {
  return xnn_create_fully_connected_nc_f32(in, out, in, out, static_cast<const float*>(w), bias, kLo, kHi, 0, nullptr, cache, op);
}
xnn_status ReshapeF32(xnn_operator_t op, size_t rows, pthreadpool_t pool) {
  return xnn_reshape_fully_connected_nc_f32(op, rows, pool);
}
xnn_status SetupF32(xnn_operator_t op, const float* x, const QuantScratch&, float* y) {
  return xnn_setup_fully_connected_nc_f32(op, x, y);
}

xnn_status CreateQc8w(size_t in, size_t out, const void* w, const void* scales, const float* bias, uint32_t,
                      xnn_weights_cache_t cache, xnn_operator_t* op) {
  return xnn_create_fully_connected_nc_qd8_f32_qc8w(in, out, in, out, static_cast<const float*>(scales),
                                                    static_cast<const int8_t*>(w), bias, kLo, kHi, 0, nullptr, cache, op);
}
xnn_status ReshapeQc8w(xnn_operator_t op, size_t rows, pthreadpool_t pool) {
  return xnn_reshape_fully_connected_nc_qd8_f32_qc8w(op, rows, pool);
}
xnn_status SetupQc8w(xnn_operator_t op, const float*, const QuantScratch& q, float* y) {
  return xnn_setup_fully_connected_nc_qd8_f32_qc8w(op, q.q, y, q.params);
}

// 4-bit formats: nibbles stored unsigned, zero point 8 (tern's files and XNNPACK's qc4w/qb4w agree on the
// layout: the even column in the low nibble, each row starting on a byte).
constexpr uint8_t kInt4ZeroPoint = 8;

xnn_status CreateQc4w(size_t in, size_t out, const void* w, const void* scales, const float* bias, uint32_t,
                      xnn_weights_cache_t cache, xnn_operator_t* op) {
  return xnn_create_fully_connected_nc_qd8_f32_qc4w(in, out, in, out, kInt4ZeroPoint, static_cast<const float*>(scales), w,
                                                    bias, kLo, kHi, 0, nullptr, cache, op);
}
xnn_status ReshapeQc4w(xnn_operator_t op, size_t rows, pthreadpool_t pool) {
  return xnn_reshape_fully_connected_nc_qd8_f32_qc4w(op, rows, pool);
}
xnn_status SetupQc4w(xnn_operator_t op, const float*, const QuantScratch& q, float* y) {
  return xnn_setup_fully_connected_nc_qd8_f32_qc4w(op, q.q, y, q.params);
}

xnn_status CreateQb4w(size_t in, size_t out, const void* w, const void* scales, const float* bias, uint32_t block_size,
                      xnn_weights_cache_t cache, xnn_operator_t* op) {
  return xnn_create_fully_connected_nc_qd8_f32_qb4w(in, out, in, out, block_size, kInt4ZeroPoint,
                                                    static_cast<const uint16_t*>(scales), w, bias, kLo, kHi, 0, nullptr,
                                                    cache, op);
}
xnn_status ReshapeQb4w(xnn_operator_t op, size_t rows, pthreadpool_t pool) {
  return xnn_reshape_fully_connected_nc_qd8_f32_qb4w(op, rows, pool);
}
xnn_status SetupQb4w(xnn_operator_t op, const float*, const QuantScratch& q, float* y) {
  return xnn_setup_fully_connected_nc_qd8_f32_qb4w(op, q.q, y, q.params);
}

// Indexed by DType.
constexpr LinearKernel kKernels[] = {
    {DType::kF32, "fully_connected_nc_f32", 0, false, nullptr, SameBias, CreateF32, ReshapeF32, SetupF32, false, false},
    {DType::kF16, "fully_connected_nc_f32 (f16 weights widened at packing)", 4, false, WidenF16, F16Bias, CreateF32,
     ReshapeF32, SetupF32, false, false},
    {DType::kInt8, "fully_connected_nc_qd8_f32_qc8w", 0, true, nullptr, SameBias, CreateQc8w, ReshapeQc8w, SetupQc8w, false, true},
    {DType::kQc4w, "fully_connected_nc_qd8_f32_qc4w", 0, true, nullptr, SameBias, CreateQc4w, ReshapeQc4w, SetupQc4w, false, true},
    {DType::kQb4w, "fully_connected_nc_qd8_f32_qb4w", 0, true, nullptr, SameBias, CreateQb4w, ReshapeQb4w, SetupQb4w, true, false},
};
static_assert(format::IndexedByDType(kKernels), "one LinearKernel per schema DType, kKernels[i].dtype == i");

}  // namespace

const LinearKernel& KernelFor(DType t) {
  const size_t i = static_cast<size_t>(t);
  return kKernels[i < format::EnumCount<fb::DType>() ? i : 0];
}

}  // namespace tern
