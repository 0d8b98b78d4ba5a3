// Whether XNNPACK's 4-bit fully-connected operators (qd8 x qc4w, qd8 x qb4w) give the right numbers on this
// CPU. Debian's XNNPACK picks its kernel by the CPU's features, and on an Intel Xeon with AVX-512 FP16 and
// AMX (Sapphire Rapids) its 4-bit kernels were found off by 1.4 to 36 (relative) against the dequantized
// weights times the qd8 input (tests/test_cpu.cc). A wrong kernel must never translate: PackLinear runs
// 4-bit layers with tern's own GEMM (kernels/int4_gemm.h) wherever this probe finds XNNPACK's wrong.
//
// The probe, once per process and format: a 67 x 224 layer of fixed nibbles and scales, 1 to 9 rows of
// fixed input, XNNPACK's operator against tern's portable kernel on the same qd8 input; wrong when any output
// differs by more than 1e-3 relative (the two differ in the last bits at most where they are right).
#pragma once

#include "tern/model.h"

namespace tern {

/// True when XNNPACK's operator for `dtype` (kQc4w or kQb4w; false for other formats) is wrong on this CPU,
/// by the probe above. Thread-safe; the first call runs the probe for both formats (a 67 x 224 layer at 1 to 9 rows each). A probe that
/// cannot run (XNNPACK fails to create the operator) says false: packing then reports the failure itself.
bool XnnpackInt4Wrong(DType dtype);

}  // namespace tern
