// The WebAssembly SIMD128 row operations (Isa::kWasmSimd128: every wasm build, which requires SIMD128):
// row_ops_body.h's bodies in f32x4 registers where the compiler leaves them scalar (their `a < b ? a : b`
// selects, the attention's 4-lane dot products and its weighted sum). Each keeps the body's operations and
// order element by element and lane by lane, so the floats are the portable ones bit for bit
// (tests/test_row_ops.cc at every level; the wasm identity test under Node). SIMD128 has no fused
// multiply-add, so nothing is contracted.
//   f32x4.pmin(a, b) is b < a ? b : a and f32x4.pmax(a, b) is a < b ? b : a: the bodies' selects, NaN
//   never taken.
#include <wasm_simd128.h>

#include "kernels/row_ops.h"
#include "kernels/row_ops_body.h"

namespace tern {
namespace {

// The 8 lanes of MaxOfBody's lane[] (x[i + l] > lane[l] ? x[i + l] : lane[l]) in two registers, then its scalar tail.
float LaneMax(v128_t a, v128_t b) {
  alignas(16) float l[8];
  wasm_v128_store(l, a);
  wasm_v128_store(l + 4, b);
  float m = kRowNegInf;
  for (size_t k = 0; k < 8; ++k) m = l[k] > m ? l[k] : m;
  return m;
}

float MaxOfWasm(const float* x, size_t n) {
  if (n < 8) return MaxOfBody(x, n);
  v128_t a = wasm_f32x4_splat(kRowNegInf), b = a;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    a = wasm_f32x4_pmax(a, wasm_v128_load(x + i));
    b = wasm_f32x4_pmax(b, wasm_v128_load(x + i + 4));
  }
  float m = LaneMax(a, b);
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

void MinMaxWasm(const float* x, size_t n, float* min, float* max) {
  if (n < 8) return MinMaxBody(x, n, min, max);
  v128_t lo_a = wasm_f32x4_splat(x[0]), lo_b = lo_a, hi_a = lo_a, hi_b = lo_a;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t va = wasm_v128_load(x + i), vb = wasm_v128_load(x + i + 4);
    lo_a = wasm_f32x4_pmin(lo_a, va);  // va < lo ? va : lo
    lo_b = wasm_f32x4_pmin(lo_b, vb);
    hi_a = wasm_f32x4_pmax(hi_a, va);  // hi < va ? va : hi, which is va > hi ? va : hi
    hi_b = wasm_f32x4_pmax(hi_b, vb);
  }
  alignas(16) float lo[8], hi[8];
  wasm_v128_store(lo, lo_a);
  wasm_v128_store(lo + 4, lo_b);
  wasm_v128_store(hi, hi_a);
  wasm_v128_store(hi + 4, hi_b);
  float mn = lo[0], mx = hi[0];
  for (size_t l = 1; l < 8; ++l) {
    mn = lo[l] < mn ? lo[l] : mn;
    mx = hi[l] > mx ? hi[l] : mx;
  }
  for (; i < n; ++i) {
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *min = mn;
  *max = mx;
}

// QuantizeRowBody 16 at a time: the clamps as pmax / pmin (v > lo ? v : lo maps NaN to lo, as the body does),
// the rounding by 1.5 x 2^23, the integral floats converted exactly, narrowed without saturating (they are in
// [-128, 127] once the zero point is added).
void QuantizeRowWasm(const float* x, size_t n, float inv_scale, int32_t zero_point, int8_t* q) {
  const float lo = -128.f - static_cast<float>(zero_point), hi = 127.f - static_cast<float>(zero_point);
  const v128_t vs = wasm_f32x4_splat(inv_scale), vlo = wasm_f32x4_splat(lo), vhi = wasm_f32x4_splat(hi);
  const v128_t magic = wasm_f32x4_splat(12582912.f), zp = wasm_i32x4_splat(zero_point);
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    v128_t r[4];
    for (int k = 0; k < 4; ++k) {
      v128_t v = wasm_f32x4_mul(wasm_v128_load(x + j + 4 * k), vs);
      v = wasm_f32x4_pmax(vlo, v);  // lo < v ? v : lo
      v = wasm_f32x4_pmin(vhi, v);  // v < hi ? v : hi
      v = wasm_f32x4_sub(wasm_f32x4_add(v, magic), magic);
      r[k] = wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(v), zp);
    }
    const v128_t h0 = wasm_i16x8_narrow_i32x4(r[0], r[1]), h1 = wasm_i16x8_narrow_i32x4(r[2], r[3]);
    wasm_v128_store(q + j, wasm_i8x16_narrow_i16x8(h0, h1));
  }
  if (j < n) QuantizeRowBody(x + j, n - j, inv_scale, zero_point, q + j);
}

void MaskRowWasm(float* row, const uint8_t* masked, size_t n) { MaskRowBody(row, masked, n); }
void ScoreRowWasm(float* row, const uint8_t* masked, float lse, float base, size_t n) {
  ScoreRowBody(row, masked, lse, base, n);
}

// DotBody's 4 lanes (lane i % 4) as one register, summed (l0 + l1) + (l2 + l3); head_dim a multiple of 4.
inline float Dot4(const float* a, const float* b, size_t head_dim) {
  v128_t s = wasm_f32x4_splat(0.f);
  for (size_t i = 0; i < head_dim; i += 4)
    s = wasm_f32x4_add(s, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  return (wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1)) +
         (wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3));
}

// out[col, col + 4 kVecs) = sum_j scores[j] v_j in j order (AttendTail's loop) in kVecs registers held across
// all n keys.
template <int kVecs, typename Offset>
inline void WeightedSum(const float* values, Offset offset, size_t n, const float* scores, size_t col, float* out) {
  v128_t acc[kVecs];
  for (int k = 0; k < kVecs; ++k) acc[k] = wasm_f32x4_splat(0.f);
  for (size_t j = 0; j < n; ++j) {
    const v128_t p = wasm_f32x4_splat(scores[j]);
    const float* v = values + offset(j) + col;
    for (int k = 0; k < kVecs; ++k) acc[k] = wasm_f32x4_add(acc[k], wasm_f32x4_mul(p, wasm_v128_load(v + 4 * k)));
  }
  for (int k = 0; k < kVecs; ++k) wasm_v128_store(out + col + 4 * k, acc[k]);
}

template <typename Offset>
inline void Attend(const float* q, const float* keys, const float* values, Offset offset, size_t n, size_t head_dim,
                   float scale, float* scores, float* out) {
  if (head_dim % 4 != 0) {
    for (size_t j = 0; j < n; ++j) scores[j] = scale * DotBody(q, keys + offset(j), head_dim);
    return AttendTail(values, offset, n, head_dim, scores, out);
  }
  for (size_t j = 0; j < n; ++j) scores[j] = scale * Dot4(q, keys + offset(j), head_dim);
  SoftmaxBody(scores, n);
  size_t col = 0;
  for (; col + 32 <= head_dim; col += 32) WeightedSum<8>(values, offset, n, scores, col, out);
  switch ((head_dim - col) / 4) {
    case 7: return WeightedSum<7>(values, offset, n, scores, col, out);
    case 6: return WeightedSum<6>(values, offset, n, scores, col, out);
    case 5: return WeightedSum<5>(values, offset, n, scores, col, out);
    case 4: return WeightedSum<4>(values, offset, n, scores, col, out);
    case 3: return WeightedSum<3>(values, offset, n, scores, col, out);
    case 2: return WeightedSum<2>(values, offset, n, scores, col, out);
    case 1: return WeightedSum<1>(values, offset, n, scores, col, out);
    default: return;
  }
}

void AttendRowWasm(const float* q, const float* keys, const float* values, size_t key_stride, size_t n,
                   size_t head_dim, float scale, float* scores, float* out) {
  Attend(q, keys, values, [key_stride](size_t j) { return j * key_stride; }, n, head_dim, scale, scores, out);
}

void AttendGatheredWasm(const float* q, const float* keys, const float* values, const uint32_t* offsets, size_t n,
                        size_t head_dim, float scale, float* scores, float* out) {
  Attend(q, keys, values, [offsets](size_t j) { return size_t{offsets[j]}; }, n, head_dim, scale, scores, out);
}

bool Int8RowSumWasm(const int8_t* w, size_t n, int32_t* sum) { return Int8RowSumBody(w, n, sum); }

// ScaleBiasMaxBody in one pass: each element's multiply and add as the body's, the max as MaxOfWasm's.
float ScaleBiasMaxWasm(float* y, size_t n, const float* scale, const float* bias) {
  if (n < 8) return ScaleBiasMaxBody(y, n, scale, bias);
  v128_t a = wasm_f32x4_splat(kRowNegInf), b = a;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t va = wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(y + i), wasm_v128_load(scale + i)), wasm_v128_load(bias + i));
    const v128_t vb =
        wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(y + i + 4), wasm_v128_load(scale + i + 4)), wasm_v128_load(bias + i + 4));
    wasm_v128_store(y + i, va);
    wasm_v128_store(y + i + 4, vb);
    a = wasm_f32x4_pmax(a, va);
    b = wasm_f32x4_pmax(b, vb);
  }
  float m = LaneMax(a, b);
  for (; i < n; ++i) {
    y[i] = y[i] * scale[i] + bias[i];
    m = y[i] > m ? y[i] : m;
  }
  return m;
}

void LayerNormWasm(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y) {
  LayerNormBody(x, gamma, beta, eps, rows, d, y);
}

}  // namespace

extern const RowOps kRowOpsWasm;
const RowOps kRowOpsWasm{"wasm_simd128", MaxOfWasm, MinMaxWasm, QuantizeRowWasm, MaskRowWasm, ScoreRowWasm, AttendRowWasm,
                         AttendGatheredWasm, Int8RowSumWasm, ScaleBiasMaxWasm, LayerNormWasm};

}  // namespace tern
