// What the runtime knows about the device, from cpuinfo.
#pragma once

#include <cstdint>
#include <string>

#include "tern/export.h"

namespace tern {

struct CpuDescription {
  std::string name;              // package name, e.g. "AMD EPYC" or "Cortex-A76" ("unknown" if cpuinfo has none)
  uint32_t cores = 1;            // physical cores
  uint32_t processors = 1;       // logical processors (hardware threads): the most threads a Translator uses
  uint32_t performance_cores = 1;// cores outside the slowest cluster of a big.LITTLE SoC; all cores elsewhere
  uint64_t last_level_cache_bytes = 0;  // size of the largest cache level cpuinfo reports (L3, else L2), 0 if none
  // ISA features that select XNNPACK kernels.
  bool neon = false, neon_dotprod = false, i8mm = false;          // ARM
  bool avx2 = false, avx512f = false, avx512vnni = false, avxvnni = false;  // x86
};

/// Describes the CPU (cpuinfo_initialize on first use; falls back to 1 core, name "unknown").
TERN_API const CpuDescription& DescribeCpu();

/// Peak resident set size of this process in MiB: VmHWM from /proc/self/status (the high-water mark of
/// this program's own memory; getrusage's ru_maxrss can carry the parent's peak across fork + exec).
/// Falls back to ru_maxrss where /proc is unavailable.
TERN_API double PeakRssMiB();

/// One line for --verbose and benchmarks: "AMD EPYC, 2 cores (2 performance), AVX2 AVX512F AVX512-VNNI".
TERN_API std::string CpuSummary();

}  // namespace tern
