// The instruction-set level tern's own kernels run at, chosen once per process: the best level cpuinfo
// reports for this CPU, lowered (never raised) by the environment variable TERN_ISA, so one machine can run
// and compare every path it supports. Levels, lowest first:
//   x86-64: portable < avx2 < avx512vnni (AVX-512 F, BW and VNNI)
//   ARM:    portable < neon < neondot (the dot-product extension, ARMv8.2)
//   WebAssembly: portable < wasm_simd128 (every wasm build: the module requires SIMD128)
// portable is plain C++ (what the compiler makes of it for the target's baseline). Every own kernel
// (kernels/kernels.h: the exp pass of log-sum-exp; gathered_kernels.h: the gathered int8 output layer)
// has an entry per level it implements and is chosen through ActiveIsa(); XNNPACK chooses its own
// kernels from cpuinfo (it has no override). `tern -v` prints IsaSummary().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tern {

enum class Isa : uint8_t { kPortable, kAvx2, kAvx512Vnni, kNeon, kNeonDot, kWasmSimd128 };

/// "portable", "avx2", "avx512vnni", "neon", "neondot", "wasm_simd128".
const char* IsaName(Isa isa);

/// The best level this CPU runs (cpuinfo).
Isa DetectedIsa();

/// The level own kernels use: DetectedIsa(), or TERN_ISA when it names a lower level of this CPU's family.
/// Read once (the first call); a value that is unknown, of the other family, or above the CPU is ignored
/// (IsaSummary says so).
Isa ActiveIsa();

/// Every level this CPU runs, lowest first (portable first): what tests compare.
size_t AvailableIsas(Isa* out, size_t capacity);

/// One line for --verbose: "avx2 (this CPU: avx2)", with TERN_ISA's effect when it is set.
std::string IsaSummary();

}  // namespace tern
