#include "xnn_ops.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <limits>
#include <vector>

#include "half.h"

namespace tern {
namespace {

std::atomic<size_t> g_xnn_allocs{0};

void* XAlloc(void*, size_t size) {
  g_xnn_allocs.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size);
}
void* XRealloc(void*, void* p, size_t size) {
  g_xnn_allocs.fetch_add(1, std::memory_order_relaxed);
  return std::realloc(p, size);
}
void XFree(void*, void* p) { std::free(p); }
void* XAlignedAlloc(void*, size_t alignment, size_t size) {
  g_xnn_allocs.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}
void XAlignedFree(void*, void* p) { std::free(p); }

const xnn_allocator kAllocator = {nullptr, XAlloc, XRealloc, XFree, XAlignedAlloc, XAlignedFree};

Status XnnError(const char* what, xnn_status s) {
  return Status(StatusCode::kInternal, std::string("XNNPACK ") + what + " failed (xnn_status " + std::to_string(s) + ")");
}

}  // namespace

Status InitXnnpack() {
  static std::once_flag once;
  static xnn_status status = xnn_status_uninitialized;
  std::call_once(once, [] { status = xnn_initialize(&kAllocator); });
  if (status == xnn_status_unsupported_hardware)
    return Status(StatusCode::kInternal, "XNNPACK does not support this CPU (x86 needs SSE2, ARM needs NEON)");
  return status == xnn_status_success ? Status::Ok() : XnnError("xnn_initialize", status);
}

size_t XnnpackAllocationCount() { return g_xnn_allocs.load(); }

ThreadPool MakeThreadPool(size_t threads) {
  return ThreadPool(threads > 1 ? pthreadpool_create(threads) : nullptr);
}

size_t QuantInputBytes(size_t rows, size_t cols) { return rows * cols + XNN_EXTRA_BYTES; }
size_t QuantParamsBytes(size_t rows) { return (rows + XNN_EXTRA_QUANTIZATION_PARAMS) * sizeof(xnn_quantization_params); }

Result<RowQuantizer> RowQuantizer::Create() {
  TERN_RETURN_IF_ERROR(InitXnnpack());
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_create_convert_nc_f32_qd8(0, &op);
  if (s != xnn_status_success) return XnnError("create_convert_nc_f32_qd8", s);
  RowQuantizer q;
  q.op_.reset(op);
  return q;
}

Status RowQuantizer::Run(const float* in, size_t rows, size_t cols, const QuantScratch& scratch, pthreadpool_t pool) const {
  xnn_status s = xnn_reshape_convert_nc_f32_qd8(op_.get(), rows, cols, cols, cols, pool);
  if (s != xnn_status_success) return XnnError("reshape_convert_nc_f32_qd8", s);
  s = xnn_setup_convert_nc_f32_qd8(op_.get(), in, scratch.q, scratch.params);
  if (s != xnn_status_success) return XnnError("setup_convert_nc_f32_qd8", s);
  s = xnn_run_operator(op_.get(), pool);
  return s == xnn_status_success ? Status::Ok() : XnnError("run convert_nc_f32_qd8", s);
}

Result<Linear> Linear::Create(const TensorView* const* weights, const TensorView* const* biases, size_t n) {
  TERN_RETURN_IF_ERROR(InitXnnpack());
  if (n == 0 || !weights[0] || weights[0]->rank != 2) return Status(StatusCode::kInvalidArgument, "Linear: no 2-D weight");
  const DType dt = weights[0]->dtype;
  const size_t in = weights[0]->cols();
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    if (weights[i]->dtype != dt || weights[i]->cols() != in || weights[i]->rank != 2)
      return Status(StatusCode::kInvalidArgument, "Linear: fused weight '" + std::string(weights[i]->name) +
                                                      "' differs in dtype or in_features from '" + std::string(weights[0]->name) + "'");
    if (biases[i] && biases[i]->numel() != weights[i]->rows())
      return Status(StatusCode::kInvalidArgument, "Linear: bias '" + std::string(biases[i]->name) + "' size mismatch");
    out += weights[i]->rows();
  }
  // Fused weights are concatenated into a temporary (XNNPACK packs its own copy at create); a single
  // weight is passed straight from the mapped file.
  std::vector<uint8_t> wcat;
  std::vector<float> scat, bcat(out, 0.f);
  const void* w = weights[0]->data;
  const float* scales = weights[0]->scales;
  if (n > 1) {
    const size_t es = DTypeSize(dt);
    wcat.resize(out * in * es);
    if (dt == DType::kInt8) scat.resize(out);
    size_t row = 0;
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(wcat.data() + row * in * es, weights[i]->data, weights[i]->bytes);
      if (dt == DType::kInt8) std::memcpy(scat.data() + row, weights[i]->scales, weights[i]->rows() * 4);
      row += weights[i]->rows();
    }
    w = wcat.data();
    scales = scat.data();
  }
  size_t row = 0;
  for (size_t i = 0; i < n; ++i) {
    if (biases[i]) std::memcpy(bcat.data() + row, biases[i]->data, weights[i]->rows() * 4);
    row += weights[i]->rows();
  }
  const float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  xnn_operator_t op = nullptr;
  xnn_status s;
  switch (dt) {
    case DType::kInt8:
      s = xnn_create_fully_connected_nc_qd8_f32_qc8w(in, out, in, out, scales, static_cast<const int8_t*>(w), bcat.data(),
                                                     lo, hi, 0, nullptr, nullptr, &op);
      break;
    case DType::kF16: {
      // The f32_f16 operator takes its bias in f16 like its kernel; it computes in f32.
      std::vector<uint16_t> b16(out);
      for (size_t i = 0; i < out; ++i) b16[i] = FloatToHalf(bcat[i]);
      s = xnn_create_fully_connected_nc_f32_f16(in, out, in, out, w, b16.data(), lo, hi, 0, nullptr, nullptr, &op);
      break;
    }
    default:
      s = xnn_create_fully_connected_nc_f32(in, out, in, out, static_cast<const float*>(w), bcat.data(), lo, hi, 0,
                                            nullptr, nullptr, &op);
  }
  if (s != xnn_status_success) return XnnError(("create fully_connected for '" + std::string(weights[0]->name) + "'").c_str(), s);
  Linear l;
  l.op_.reset(op);
  l.dtype_ = dt;
  l.in_ = in;
  l.out_ = out;
  return l;
}

Status Linear::Run(const float* x, const QuantScratch& scratch, size_t rows, float* y, pthreadpool_t pool) const {
  xnn_status s;
  switch (dtype_) {
    case DType::kInt8:
      s = xnn_reshape_fully_connected_nc_qd8_f32_qc8w(op_.get(), rows, pool);
      if (s == xnn_status_success) s = xnn_setup_fully_connected_nc_qd8_f32_qc8w(op_.get(), scratch.q, y, scratch.params);
      break;
    case DType::kF16:
      s = xnn_reshape_fully_connected_nc_f32_f16(op_.get(), rows, pool);
      if (s == xnn_status_success) s = xnn_setup_fully_connected_nc_f32_f16(op_.get(), x, y);
      break;
    default:
      s = xnn_reshape_fully_connected_nc_f32(op_.get(), rows, pool);
      if (s == xnn_status_success) s = xnn_setup_fully_connected_nc_f32(op_.get(), x, y);
  }
  if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool);
  return s == xnn_status_success ? Status::Ok() : XnnError("fully_connected", s);
}

}  // namespace tern
