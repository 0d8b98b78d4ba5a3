// What the runtime knows about the device, from cpuinfo.
#pragma once

#include <cstdint>
#include <string>

#include "tern/export.h"

namespace tern {

/// The CPU as cpuinfo describes it: what selects threads and ISA paths at run time (kernels/isa.h).
struct CpuDescription {
  std::string name;              ///< package name, e.g. "AMD EPYC" ("unknown" if cpuinfo has none)
  std::string core;              ///< the first core's microarchitecture as cpuinfo names it from CPUID/MIDR,
                                 /// e.g. "Cortex-A53", "Zen 4" ("unknown" when cpuinfo cannot tell): the
                                 /// core XNNPACK tunes its kernels for
  uint32_t midr = 0;             ///< ARM: the first core's MIDR_EL1 (0 elsewhere or when not exposed)
  uint32_t cores = 1;            ///< physical cores
  uint32_t processors = 1;       ///< logical processors (hardware threads): the most threads a Translator uses
  uint32_t performance_cores = 1;///< cores outside the slowest cluster of a big.LITTLE SoC; all cores elsewhere
  uint64_t last_level_cache_bytes = 0;  ///< size of the largest cache level cpuinfo reports (L3, else L2), 0 if none
  // ISA features that select XNNPACK kernels.
  bool neon = false;          ///< ARM: Advanced SIMD
  bool neon_dotprod = false;  ///< ARM: SDOT/UDOT (ARMv8.2 dot product)
  bool i8mm = false;          ///< ARM: int8 matrix multiply (SMMLA)
  bool avx2 = false;          ///< x86: AVX2 (with FMA)
  bool avx512f = false;       ///< x86: AVX-512 Foundation
  bool avx512vnni = false;    ///< x86: AVX-512 VNNI (VPDPBUSD)
  bool avxvnni = false;       ///< x86: AVX-VNNI (VEX-encoded VPDPBUSD)
};

/// Describes the CPU (cpuinfo_initialize on first use; falls back to 1 core, name "unknown").
TERN_API const CpuDescription& DescribeCpu();

/// Peak resident set size of this process in MiB: VmHWM from /proc/self/status (the high-water mark of
/// this program's own memory; getrusage's ru_maxrss can carry the parent's peak across fork + exec).
/// Falls back to ru_maxrss where /proc is unavailable.
TERN_API double PeakRssMiB();

/// One line for --verbose and benchmarks: "AMD EPYC (Zen 4), 2 cores (2 performance), ... AVX2 AVX512F".
TERN_API std::string CpuSummary();

}  // namespace tern
