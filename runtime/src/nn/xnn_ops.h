// The layer between tern and XNNPACK: initialization, the thread pool, operator ownership and the row
// quantizer. Every XNNPACK and pthreadpool handle lives in a RAII owner; outside xnn_ops.cc,
// packed_weights.cc and linear_kernels.cc the runtime never names an xnn_* function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "tern/status.h"

namespace tern {

/// Initializes XNNPACK once per process with tern's allocator (malloc-backed; every XNNPACK allocation
/// goes through it, so tests can count them). Thread-safe. Error: kInternal if the CPU is unsupported.
Status InitXnnpack();

/// Number of allocations XNNPACK has made through tern's allocator since the process started.
size_t XnnpackAllocationCount();

struct ThreadPoolDeleter {
  void operator()(pthreadpool_t p) const { pthreadpool_destroy(p); }
};
/// A pthreadpool, or nullptr for threads <= 1 (XNNPACK then runs on the calling thread).
using ThreadPool = std::unique_ptr<std::remove_pointer_t<pthreadpool_t>, ThreadPoolDeleter>;
ThreadPool MakeThreadPool(size_t threads);

struct XnnOperatorDeleter {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using XnnOperator = std::unique_ptr<std::remove_pointer_t<xnn_operator_t>, XnnOperatorDeleter>;

/// "XNNPACK <what> failed (xnn_status N)" as kInternal.
Status XnnError(const char* what, xnn_status s);

/// Scratch a Linear needs for int8 weights: the input quantized per row (qd8) and its per-row params.
/// `q` holds rows x in_features int8 (+ XNN_EXTRA_BYTES), `params` rows + XNN_EXTRA_QUANTIZATION_PARAMS.
struct QuantScratch {
  int8_t* q = nullptr;
  xnn_quantization_params* params = nullptr;
};

/// Bytes of QuantScratch::q and entries of ::params for `rows` rows of `cols` features (64-bit: arena
/// planning sizes them before anything is allocated).
uint64_t QuantInputBytes(uint64_t rows, uint64_t cols);
uint64_t QuantParamsCount(uint64_t rows);

/// Quantizes f32 rows to int8 with one (scale, zero point) per row: XNNPACK's convert_nc_f32_qd8
/// ("dynamically quantized" activations). One per Translator.
class RowQuantizer {
 public:
  static Result<RowQuantizer> Create();
  /// in [rows, cols] f32 -> scratch. Errors: kInternal (XNNPACK failure).
  Status Run(const float* in, size_t rows, size_t cols, const QuantScratch& scratch, pthreadpool_t pool) const;

 private:
  XnnOperator op_;
};

}  // namespace tern
