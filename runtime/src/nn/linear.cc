#include "nn/linear.h"

#include "nn/int4_probe.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "kernels/kernels.h"
#include "weight_formats.h"

namespace tern {

Result<PackedLinear> PackLinear(const TensorView* const* weights, const TensorView* const* biases, size_t n,
                                LinearBackends backends, const PackedCacheFile* cache, uint32_t ordinal) {
  TERN_RETURN_IF_ERROR(InitXnnpack());
  if (n == 0 || !weights[0] || weights[0]->rank != 2) return Status(StatusCode::kInvalidArgument, "Linear: no 2-D weight");
  PackedLinear p;
  p.name = std::string(weights[0]->name);
  p.dtype = weights[0]->dtype;
  p.in = weights[0]->cols();
  p.block_size = weights[0]->block_size;
  for (size_t i = 0; i < n; ++i) {
    if (weights[i]->dtype != p.dtype || weights[i]->cols() != p.in || weights[i]->rank != 2 ||
        weights[i]->block_size != p.block_size)
      return Status(StatusCode::kInvalidArgument, "Linear: fused weight '" + std::string(weights[i]->name) +
                                                      "' differs in format or in_features from '" + p.name + "'");
    if (biases[i] && biases[i]->numel() != weights[i]->rows())
      return Status(StatusCode::kInvalidArgument, "Linear: bias '" + std::string(biases[i]->name) + "' size mismatch");
    p.out += weights[i]->rows();
  }
  const LinearKernel& k = KernelFor(p.dtype);
  const format::WeightFormat& f = format::FormatOf(p.dtype);
  // The operator's inputs: weight rows (widened when the kernel needs it), concatenated along out (one
  // weight that needs no change is passed straight from the model), the scales in the format's layout,
  // concatenated the same way, and the bias. Temporaries: XNNPACK packs its own layout into the
  // PackedBlock and keeps none of these pointers. The weights are staged only when they are packed (not
  // when the packed-weights cache has them).
  const size_t row_bytes = k.widened_element_bytes ? p.in * k.widened_element_bytes : f.RowBytes(p.in);
  std::vector<uint8_t> wcat, scat;
  std::vector<float> bcat;
  const void* w = weights[0]->data;
  const void* scales = weights[0]->block_scales ? static_cast<const void*>(weights[0]->block_scales)
                                                : static_cast<const void*>(weights[0]->scales);
  const bool staged = n > 1 || k.to_kernel_weights || k.create_reads_scales;
  try {
    bcat.assign(p.out, 0.f);
    if (staged) {
      scat.resize(f.ScaleBytes(p.out, p.in, p.block_size));
      size_t scale_at = 0;
      for (size_t i = 0; i < n; ++i) {
        const size_t sb = f.ScaleBytes(weights[i]->rows(), p.in, p.block_size);
        const void* src = weights[i]->block_scales ? static_cast<const void*>(weights[i]->block_scales)
                                                   : static_cast<const void*>(weights[i]->scales);
        if (sb) std::memcpy(scat.data() + scale_at, src, sb);
        scale_at += sb;
      }
      scales = scat.empty() ? nullptr : scat.data();
    }
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "Linear '" + p.name + "': no memory to stage the scales for packing");
  }
  auto stage_weights = [&]() -> Status {
    if (!staged) return Status::Ok();
    try {
      wcat.resize(p.out * row_bytes);
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kResourceExhausted, "Linear '" + p.name + "': no memory to stage the weights for packing");
    }
    size_t row = 0;
    for (size_t i = 0; i < n; ++i) {
      uint8_t* dst = wcat.data() + row * row_bytes;
      if (k.to_kernel_weights) k.to_kernel_weights(*weights[i], dst);
      else std::memcpy(dst, weights[i]->data, weights[i]->bytes);
      row += weights[i]->rows();
    }
    w = wcat.data();
    return Status::Ok();
  };
  size_t row = 0;
  for (size_t i = 0; i < n; ++i) {
    if (biases[i])
      for (size_t r = 0; r < weights[i]->rows(); ++r) bcat[row + r] = k.to_kernel_bias(biases[i]->f32()[r]);
    row += weights[i]->rows();
  }
  if (k.exact_epilogue) {  // the operator computes float(acc) * x_scale; the scales and bias come after
    try {
      const float* sf = static_cast<const float*>(scales);
      p.epilogue_scales.assign(sf, sf + p.out);
      p.epilogue_bias = bcat;
      std::fill(bcat.begin(), bcat.end(), 0.f);
      scat.assign(p.out * sizeof(float), 0);
      const float one = 1.f;
      for (size_t i = 0; i < p.out; ++i) std::memcpy(scat.data() + i * sizeof(float), &one, sizeof one);
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kResourceExhausted, "Linear '" + p.name + "': no memory for the epilogue scales");
    }
    scales = scat.data();
  }
  if (p.dtype == DType::kInt8 && OwnInt8GemmActive() && backends != LinearBackends::kXnnpackOnly) {
    // The row sums from the packed-weights cache when it has this layer's (no pass over its weights).
    const PackedBlockId sums_id{ordinal, DType::kInt8, p.out, p.in, kRowSumsBlock};
    const CachedBlock* sums = cache ? cache->Find(sums_id) : nullptr;
    TERN_ASSIGN_OR_RETURN(p.own, OwnInt8Linear::Make(weights, n, sums && sums->size == p.out * 4
                                                                      ? static_cast<const int32_t*>(sums->data)
                                                                      : nullptr));
    if (p.own.available()) p.cache_id = sums_id;
  }
  // 4-bit layers run on XNNPACK where its operator is right, unless opted in (OwnInt4GemmActive: tern's
  // kernel has not been measured against XNNPACK's 4-bit kernels on a CPU where those are right since its
  // panel form, docs/performance.md "4-bit weights at 4 to 64 rows"); tern's qc4w kernel gives XNNPACK's
  // floats bit for bit and runs beside XNNPACK's for comparison (kBoth). Where XNNPACK's 4-bit operator is
  // wrong on this CPU (nn/int4_probe.h), tern's kernel runs every 4-bit layer.
  const bool four_bit = p.dtype == DType::kQc4w || p.dtype == DType::kQb4w;
  const bool xnn4_wrong = four_bit && backends != LinearBackends::kXnnpackOnly && XnnpackInt4Wrong(p.dtype);
  if (xnn4_wrong || (four_bit && backends != LinearBackends::kXnnpackOnly && OwnInt4GemmActive()) ||
      (p.dtype == DType::kQc4w && backends == LinearBackends::kBoth && OwnInt4GemmAvailable())) {
    p.own4 = OwnInt4Linear::Make(weights, n);
    if (p.own4.available() && !k.exact_epilogue) {
      try {
        p.own4_bias = bcat;
      } catch (const std::bad_alloc&) {
        return Status(StatusCode::kResourceExhausted, "Linear '" + p.name + "': no memory for the bias");
      }
    }
  }
  // One copy of the weights: where tern's GEMM runs the layer, XNNPACK packs nothing (faster loading; the
  // model's pages are file-backed, so the system can reclaim them, unlike a packed copy).
  if (p.reads_model_weights() && backends == LinearBackends::kAuto) return p;
  p.cache_id = PackedBlockId{ordinal, p.dtype, p.out, p.in, p.block_size};
  if (const CachedBlock* hit = cache ? cache->Find(p.cache_id) : nullptr) {
    // XNNPACK finds the mapped bytes when its seed for this layer equals the cached one; otherwise the
    // sealed block refuses to pack and the layer is packed below as without a cache.
    p.block = std::make_unique<PackedBlock>();
    p.block->Adopt(hit->data, hit->size, hit->seed);
    static const float kUnused[1] = {0.f};
    xnn_operator_t op = nullptr;
    const xnn_status s = k.create(p.in, p.out, kUnused, scales, bcat.data(), p.block_size, p.block->cache(), &op);
    XnnOperator owner(op);
    if (s == xnn_status_success) {
      if (k.create_reads_scales) p.bind_scales = std::move(scat);
      return p;
    }
  }
  TERN_RETURN_IF_ERROR(stage_weights());
  p.block = std::make_unique<PackedBlock>();
  xnn_operator_t op = nullptr;
  const xnn_status s = k.create(p.in, p.out, w, scales, bcat.data(), p.block_size, p.block->cache(), &op);
  XnnOperator owner(op);  // deleting the packing operator leaves the packed weights in the block
  if (s != xnn_status_success) return XnnError(("create " + std::string(k.op_name) + " for '" + p.name + "'").c_str(), s);
  if (!p.block->Seal())
    return Status(StatusCode::kInternal, "XNNPACK did not pack the weights of '" + p.name + "' into tern's weights cache");
  if (k.create_reads_scales) p.bind_scales = std::move(scat);
  return p;
}

Result<Linear> Linear::Bind(const PackedLinear& p) {
  const LinearKernel& k = KernelFor(p.dtype);
  Linear l;
  l.kernel_ = &k;
  l.in_ = p.in;
  l.out_ = p.out;
  l.name_ = p.name.c_str();
  if (k.exact_epilogue) l.epilogue_scales_ = p.epilogue_scales.data(), l.epilogue_bias_ = p.epilogue_bias.data();
  if (p.own.available()) l.own_ = &p.own, l.own_kernel_ = Int8GemmFor(ActiveIsa());
  if (p.own4.available()) {
    l.own4_ = &p.own4, l.own4_kernel_ = Int4GemmFor(ActiveIsa());
    l.own4_bias_ = k.exact_epilogue ? p.epilogue_bias.data() : p.own4_bias.data();
  }
  if (!p.block) return l;  // tern's own GEMM only
  xnn_operator_t op = nullptr;
  // The block holds the packed weights: XNNPACK finds them by the block's key and reads neither the
  // weight, scale nor bias pointers (a miss fails in the sealed block instead of packing).
  static const float kUnused[1] = {0.f};
  const void* scales = k.create_reads_scales ? static_cast<const void*>(p.bind_scales.data()) : kUnused;
  const xnn_status s = k.create(p.in, p.out, kUnused, scales, kUnused, p.block_size, p.block->cache(), &op);
  if (s != xnn_status_success)
    return XnnError(("create " + std::string(k.op_name) + " over the packed weights of '" + p.name + "'").c_str(), s);
  l.op_.reset(op);
  return l;
}

void Epilogue(float* y, size_t rows, size_t n, const float* w_scale, const float* bias) {
  for (size_t r = 0; r < rows; ++r, y += n)
    for (size_t j = 0; j < n; ++j) y[j] = y[j] * w_scale[j] + bias[j];
}

Status Linear::Run(const float* x, const QuantScratch& q, size_t rows, float* y, pthreadpool_t pool, float* row_max) const {
  // tern's own GEMMs give XNNPACK's floats bit for bit, so the choice never changes an output.
  if (own_) {
    own_->Run(own_kernel_, q, rows, epilogue_scales_, epilogue_bias_, y, pool);
    return Status::Ok();
  }
  if (own4_) {
    own4_->Run(own4_kernel_, q, rows, own4_bias_, y, pool);
    return Status::Ok();
  }
  return RunXnnpack(x, q, rows, y, pool, row_max);
}

Status Linear::RunXnnpack(const float* x, const QuantScratch& q, size_t rows, float* y, pthreadpool_t pool,
                          float* row_max) const {
  if (!op_)
    return Status(StatusCode::kInternal,
                  std::string("Linear '") + name_ + "': packed for tern's own GEMM only (LinearBackends::kBoth packs XNNPACK's too)");
  xnn_status s = kernel_->reshape(op_.get(), rows, pool);
  if (s == xnn_status_success) s = kernel_->setup(op_.get(), x, q, y);
  if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool);
  if (s != xnn_status_success) return XnnError(kernel_->op_name, s);
  if (epilogue_scales_ && row_max) {  // the logits: their max in the same pass (log-sum-exp needs it)
    for (size_t r = 0; r < rows; ++r) row_max[r] = ScaleBiasMax(y + r * out_, out_, epilogue_scales_, epilogue_bias_);
  } else if (epilogue_scales_) {
    Epilogue(y, rows, out_, epilogue_scales_, epilogue_bias_);
  }
  return Status::Ok();
}

}  // namespace tern
