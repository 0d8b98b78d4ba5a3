#include "kernels/row_ops.h"

#include "kernels/row_ops_body.h"

namespace tern {

#if defined(__x86_64__) || defined(__i386__)
extern const RowOps kRowOpsAvx2;  // row_ops_avx2.cc
#elif defined(__wasm_simd128__)
extern const RowOps kRowOpsWasm;  // row_ops_wasm.cc
#endif

namespace {

float MaxOfPortable(const float* x, size_t n) { return MaxOfBody(x, n); }
void MinMaxPortable(const float* x, size_t n, float* min, float* max) { MinMaxBody(x, n, min, max); }
void QuantizeRowPortable(const float* x, size_t n, float inv_scale, int32_t zero_point, int8_t* q) {
  QuantizeRowBody(x, n, inv_scale, zero_point, q);
}
void MaskRowPortable(float* row, const uint8_t* masked, size_t n) { MaskRowBody(row, masked, n); }
void ScoreRowPortable(float* row, const uint8_t* masked, float lse, float base, size_t n) {
  ScoreRowBody(row, masked, lse, base, n);
}
void AttendRowPortable(const float* q, const float* keys, const float* values, size_t key_stride, size_t n,
                       size_t head_dim, float scale, float* scores, float* out) {
  for (size_t j = 0; j < n; ++j) scores[j] = scale * DotBody(q, keys + j * key_stride, head_dim);
  AttendTail(values, [key_stride](size_t j) { return j * key_stride; }, n, head_dim, scores, out);
}
void AttendGatheredPortable(const float* q, const float* keys, const float* values, const uint32_t* offsets, size_t n,
                            size_t head_dim, float scale, float* scores, float* out) {
  for (size_t j = 0; j < n; ++j) scores[j] = scale * DotBody(q, keys + offsets[j], head_dim);
  AttendTail(values, [offsets](size_t j) { return size_t{offsets[j]}; }, n, head_dim, scores, out);
}

bool Int8RowSumPortable(const int8_t* w, size_t n, int32_t* sum) { return Int8RowSumBody(w, n, sum); }
float ScaleBiasMaxPortable(float* y, size_t n, const float* scale, const float* bias) {
  return ScaleBiasMaxBody(y, n, scale, bias);
}
void LayerNormPortable(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y) {
  LayerNormBody(x, gamma, beta, eps, rows, d, y);
}

const RowOps kPortable{"portable", MaxOfPortable, MinMaxPortable, QuantizeRowPortable, MaskRowPortable, ScoreRowPortable, AttendRowPortable,
                       AttendGatheredPortable, Int8RowSumPortable, ScaleBiasMaxPortable, LayerNormPortable};

}  // namespace

const RowOps& RowOpsFor(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa == Isa::kAvx2 || isa == Isa::kAvx512Vnni) return kRowOpsAvx2;
#elif defined(__wasm_simd128__)
  if (isa == Isa::kWasmSimd128) return kRowOpsWasm;
#endif
  (void)isa;
  return kPortable;
}

const RowOps& ActiveRowOps() {
  static const RowOps& ops = RowOpsFor(ActiveIsa());
  return ops;
}

}  // namespace tern
