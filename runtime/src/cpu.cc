#include <cpuinfo.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstring>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "tern/cpu.h"
#include "tern/translator.h"

namespace tern {

const CpuDescription& DescribeCpu() {
  static const CpuDescription desc = [] {
    CpuDescription d;
    if (!cpuinfo_initialize()) {
      d.name = "unknown";
      d.cores = d.performance_cores = d.processors = std::max(1u, std::thread::hardware_concurrency());
      return d;
    }
    const cpuinfo_package* pkg = cpuinfo_get_package(0);
    d.name = pkg && pkg->name[0] ? pkg->name : "unknown";
    d.cores = std::max(1u, cpuinfo_get_cores_count());
    d.processors = std::max(d.cores, cpuinfo_get_processors_count());
    // big.LITTLE: leave out the cores of the slowest cluster when clusters differ in frequency.
    uint64_t lo = UINT64_MAX, hi = 0;
    const uint32_t nc = cpuinfo_get_clusters_count();
    for (uint32_t i = 0; i < nc; ++i) {
      const uint64_t f = cpuinfo_get_cluster(i)->frequency;
      lo = std::min(lo, f), hi = std::max(hi, f);
    }
    d.performance_cores = d.cores;
    if (nc > 1 && lo > 0 && hi > lo) {
      uint32_t n = 0;
      for (uint32_t i = 0; i < nc; ++i)
        if (cpuinfo_get_cluster(i)->frequency > lo) n += cpuinfo_get_cluster(i)->core_count;
      d.performance_cores = std::max(1u, n);
    }
    if (cpuinfo_get_l3_caches_count() > 0) d.last_level_cache_bytes = cpuinfo_get_l3_cache(0)->size;
    else if (cpuinfo_get_l2_caches_count() > 0) d.last_level_cache_bytes = cpuinfo_get_l2_cache(0)->size;
#if CPUINFO_ARCH_ARM || CPUINFO_ARCH_ARM64
    d.neon = cpuinfo_has_arm_neon();
    d.neon_dotprod = cpuinfo_has_arm_neon_dot();
    d.i8mm = cpuinfo_has_arm_i8mm();
#endif
#if CPUINFO_ARCH_X86 || CPUINFO_ARCH_X86_64
    d.avx2 = cpuinfo_has_x86_avx2();
    d.avx512f = cpuinfo_has_x86_avx512f();
    d.avx512vnni = cpuinfo_has_x86_avx512vnni();
    d.avxvnni = cpuinfo_has_x86_avxvnni();
#endif
    return d;
  }();
  return desc;
}

std::string CpuSummary() {
  const CpuDescription& d = DescribeCpu();
  std::string s = d.name + ", " + std::to_string(d.cores) + " cores (" + std::to_string(d.performance_cores) + " performance)";
  if (d.last_level_cache_bytes) s += ", " + std::to_string(d.last_level_cache_bytes >> 10) + " KiB last-level cache";
  std::string f;
  for (auto [on, name] : {std::pair{d.neon, "NEON"}, {d.neon_dotprod, "dotprod"}, {d.i8mm, "i8mm"}, {d.avx2, "AVX2"},
                          {d.avx512f, "AVX512F"}, {d.avx512vnni, "AVX512-VNNI"}, {d.avxvnni, "AVX-VNNI"}})
    if (on) f += std::string(" ") + name;
  return s + "," + (f.empty() ? std::string(" no SIMD features reported") : f);
}

double PeakRssMiB() {
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kb = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "VmHWM:", 6) == 0) kb = std::atol(line + 6);
    std::fclose(f);
    if (kb >= 0) return kb / 1024.0;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

uint32_t DefaultThreadCount() { return DescribeCpu().performance_cores; }

}  // namespace tern
