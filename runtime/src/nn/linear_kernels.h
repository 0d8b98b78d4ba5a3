// The runtime half of the weight-format table (the storage half is format::FormatOf): which XNNPACK
// fully-connected operator runs each DType, and how stored weights become that operator's input at
// packing time. Indexed by DType and sized by a static_assert: a new format that lacks an entry does not
// compile, and no `default:` silently picks a kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tern/model.h"
#include "views.h"
#include "nn/xnn_ops.h"

namespace tern {

struct LinearKernel {
  DType dtype;
  const char* op_name;          // the XNNPACK operator, for messages
  size_t widened_element_bytes;  // != 0: create() takes the weights widened to elements of this size (f16 -> f32)
  bool quantized_input;         // the operator reads the input row-quantized (qd8): QuantScratch, not x
  /// Writes tensor t's elements widened (f16 to f32) to out; nullptr when the operator takes the stored
  /// rows as they are (format::FormatOf(dtype).RowBytes per row).
  void (*to_kernel_weights)(const TensorView& t, uint8_t* out);
  /// The bias value the operator gets for stored f32 bias b.
  float (*to_kernel_bias)(float b);
  /// xnn_create_fully_connected_* for [out, in] weights w (kernel layout), the scales in the format's
  /// layout (f32 per row for qc8w and qc4w, bf16 per block of block_size for qb4w; unused for floats) and
  /// f32 bias [out]; weights_cache is the PackedBlock the packed weights go to or come from.
  xnn_status (*create)(size_t in, size_t out, const void* w, const void* scales, const float* bias, uint32_t block_size,
                       xnn_weights_cache_t weights_cache, xnn_operator_t* op);
  xnn_status (*reshape)(xnn_operator_t op, size_t rows, pthreadpool_t pool);
  /// x: f32 input [rows, in]; q: the same rows quantized (only read when quantized_input); y: [rows, out].
  xnn_status (*setup)(xnn_operator_t op, const float* x, const QuantScratch& q, float* y);
  /// The create() call validates the scales before looking up the cache (qb4w): binding to packed weights
  /// must pass the real scales.
  bool create_reads_scales;
  /// The operator gets scales of 1 and a zero bias; tern applies the real ones after it, in one order on
  /// every CPU: y = (float(acc) * x_scale) * w_scale + bias, no fused multiply-add (linear.h, Epilogue).
  /// With scales of 1 every XNNPACK kernel's result is float(acc) * x_scale exactly, whichever order or
  /// fusion its ISA's microkernel uses; so int8 output is the same on x86 and Arm.
  bool exact_epilogue;
};

/// The kernel of weight format t (t must be a value of the enum; the loader checked it).
const LinearKernel& KernelFor(DType t);

}  // namespace tern
