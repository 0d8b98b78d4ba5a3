#include "nn/gathered_projection.h"

#include <new>

#include "kernels/int8_gemm.h"

namespace tern {

Result<GatheredProjection> GatheredProjection::Prepare(const TensorView& weight, const TensorView* bias,
                                                      const int32_t* cached_sums) {
  GatheredProjection g;
  // d_model <= 8192 keeps the kernels' int32 sums exact (|sum| < 2^31); larger models use the fallback.
  if (weight.dtype != DType::kInt8 || weight.rank != 2 || !weight.scales || weight.cols() > 8192) return g;
  g.vocab_ = weight.rows();
  g.d_ = weight.cols();
  const int8_t* w = static_cast<const int8_t*>(weight.data);
  if (cached_sums) {
    g.cached_sums_ = cached_sums, g.in_127_ = true;  // a cache keeps only sums of weights without -128
  } else {
    try {
      g.row_sums_.resize(g.vocab_);
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kResourceExhausted,
                    std::string(weight.name) + ": cannot allocate " + std::to_string(g.vocab_ * 4) + " bytes of row sums");
    }
    g.in_127_ = Int8RowSums(w, g.vocab_, g.d_, g.d_, g.row_sums_.data());
  }
  g.w_ = w;
  g.scales_ = weight.scales;
  g.bias_ = bias ? bias->f32() : nullptr;
  return g;
}

namespace {

struct RunArgs {
  GatheredInt8Fn fn;
  const int8_t* q;
  const xnn_quantization_params* qp;
  size_t rows, d, K;
  const int8_t* w;
  const float* scales;
  const int32_t* sums;
  const float* bias;
  const uint32_t* tokens;
  float* out;
};

// One thread's tile of tokens [start, start + n) for every row: a column window of out.
void RunTile(void* ctx, size_t start, size_t n) {
  const RunArgs& a = *static_cast<const RunArgs*>(ctx);
  a.fn(a.q, a.qp, a.rows, a.d, a.w, a.scales, a.sums, a.bias, a.tokens + start, n, a.out + start, a.K);
}

}  // namespace

void GatheredProjection::Run(const GatheredInt8Kernel& kernel, const QuantScratch& q, size_t rows,
                             const uint32_t* tokens, size_t K, float* out, pthreadpool_t pool) const {
  if (rows == 0 || K == 0) return;
  if (!pool || pthreadpool_get_threads_count(pool) <= 1) {
    kernel.For(in_127_)(q.q, q.params, rows, d_, w_, scales_, sums(), bias_, tokens, K, out, K);
    return;
  }
  RunArgs a{kernel.For(in_127_), q.q, q.params, rows, d_, K, w_, scales_, sums(), bias_, tokens, out};
  constexpr size_t kTile = 512;  // tokens per task: 256 KiB of d_model 512 rows
  pthreadpool_parallelize_1d_tile_1d(pool, RunTile, &a, K, kTile, 0);
}

void CompactColumns(float* logits, size_t rows, size_t V, const uint32_t* tokens, size_t K) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < K; ++k) logits[r * K + k] = logits[r * V + tokens[k]];
}

}  // namespace tern
