#include "nn/own_int8.h"

#include <new>

namespace tern {

Result<OwnInt8Linear> OwnInt8Linear::Make(const TensorView* const* weights, size_t n, const int32_t* cached_sums) {
  OwnInt8Linear l;
  if (n == 0 || weights[0]->cols() > kMaxInt8GemmK) return l;
  l.in = weights[0]->cols();
  for (size_t i = 0; i < n; ++i) l.out += weights[i]->rows();
  if (!cached_sums) {
    try {
      l.row_sums.resize(l.out);
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kResourceExhausted, std::string(weights[0]->name) + ": no memory for the row sums");
    }
  }
  size_t row = 0;
  for (size_t i = 0; i < n; ++i) {
    const int8_t* w = static_cast<const int8_t*>(weights[i]->data);
    if (!cached_sums && !Int8RowSums(w, weights[i]->rows(), l.in, l.in, l.row_sums.data() + row)) return OwnInt8Linear();
    l.parts.push_back({w, weights[i]->rows()});
    row += weights[i]->rows();
  }
  l.cached_sums = cached_sums;
  return l;
}

namespace {

struct RunArgs {
  const OwnInt8Linear* l;
  Int8GemmFn fn;
  const QuantScratch* q;
  size_t rows;
  const float* w_scale;
  const float* bias;
  float* y;
};

// Columns [start, start + count) of the fused output, part by part.
void RunColumns(void* ctx, size_t start, size_t count) {
  const RunArgs& a = *static_cast<const RunArgs*>(ctx);
  const OwnInt8Linear& l = *a.l;
  size_t base = 0;
  const size_t end = start + count;
  for (const OwnInt8Linear::Part& p : l.parts) {
    if (end <= base) break;
    const size_t b = start > base ? start - base : 0;        // this part's rows [b, e) fall in the window
    const size_t e = end < base + p.rows ? end - base : p.rows;
    if (b < e) {
      const size_t c = base + b;  // the first fused column
      a.fn(a.q->q, a.q->params, a.rows, l.in, p.w + b * l.in, l.in, a.w_scale + c, l.sums() + c,
           a.bias ? a.bias + c : nullptr, e - b, a.y + c, l.out);
    }
    base += p.rows;
  }
}

}  // namespace

void OwnInt8Linear::Run(const Int8GemmKernel& kernel, const QuantScratch& q, size_t rows, const float* w_scale,
                        const float* bias, float* y, pthreadpool_t pool) const {
  RunArgs a{this, kernel.fn, &q, rows, w_scale, bias, y};
  const size_t threads = pool ? pthreadpool_get_threads_count(pool) : 1;
  if (threads <= 1 || rows * out * in < (size_t{1} << 16)) {
    RunColumns(&a, 0, out);
    return;
  }
  // Column tiles: enough for every thread to get several, a multiple of 2 (the kernels' weight-row tile).
  size_t tile = (out + threads * 4 - 1) / (threads * 4);
  tile = (tile + 15) & ~size_t{15};
  pthreadpool_parallelize_1d_tile_1d(pool, RunColumns, &a, out, tile, 0);
}

OwnInt4Linear OwnInt4Linear::Make(const TensorView* const* weights, size_t n) {
  OwnInt4Linear l;
  if (n == 0) return l;
  const DType t = weights[0]->dtype;
  const size_t in = weights[0]->cols();
  if ((t != DType::kQc4w && t != DType::kQb4w) || in % 32 != 0 || in > kMaxInt8GemmK) return l;
  const size_t block = t == DType::kQb4w ? weights[0]->block_size : 0;
  if (block && (block % 32 != 0 || in % block != 0)) return l;
  for (size_t i = 0; i < n; ++i) {
    const TensorView& w = *weights[i];
    if (w.dtype != t || w.cols() != in || (block && w.block_size != block)) return OwnInt4Linear();
    l.parts.push_back({static_cast<const uint8_t*>(w.data), w.scales, w.block_scales, w.rows()});
    l.out += w.rows();
  }
  l.in = in, l.block = block;
  return l;
}

namespace {

struct Run4Args {
  const OwnInt4Linear* l;
  Int4GemmFn fn;
  const QuantScratch* q;
  size_t rows;
  const float* bias;
  float* y;
};

void RunColumns4(void* ctx, size_t start, size_t count) {
  const Run4Args& a = *static_cast<const Run4Args*>(ctx);
  const OwnInt4Linear& l = *a.l;
  const size_t row_bytes = l.in / 2, end = start + count;
  size_t base = 0;
  for (const OwnInt4Linear::Part& p : l.parts) {
    if (end <= base) break;
    const size_t b = start > base ? start - base : 0, e = end < base + p.rows ? end - base : p.rows;
    if (b < e) {
      const size_t c = base + b;
      a.fn(a.q->q, a.q->params, a.q->chunk_sums, a.rows, l.in, p.w + b * row_bytes, row_bytes, l.block,
           p.scales ? p.scales + b : nullptr, p.block_scales ? p.block_scales + b * (l.block ? l.in / l.block : 0) : nullptr,
           a.bias ? a.bias + c : nullptr, e - b, a.y + c, l.out);
    }
    base += p.rows;
  }
}

}  // namespace

void OwnInt4Linear::Run(const Int4GemmKernel& kernel, const QuantScratch& q, size_t rows, const float* bias, float* y,
                        pthreadpool_t pool) const {
  Int4ChunkSums(q.q, rows, in, q.chunk_sums);
  Run4Args a{this, kernel.fn, &q, rows, bias, y};
  const size_t threads = pool ? pthreadpool_get_threads_count(pool) : 1;
  if (threads <= 1 || rows * out * in < (size_t{1} << 16)) {
    RunColumns4(&a, 0, out);
    return;
  }
  size_t tile = (out + threads * 4 - 1) / (threads * 4);
  tile = (tile + 15) & ~size_t{15};
  pthreadpool_parallelize_1d_tile_1d(pool, RunColumns4, &a, out, tile, 0);
}

}  // namespace tern
