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
namespace {

// cpuinfo's microarchitecture, named (the cores tern is run on; others by number).
std::string UarchName(uint32_t u) {
  switch (u) {
    case cpuinfo_uarch_cortex_a35: return "Cortex-A35";
    case cpuinfo_uarch_cortex_a53: return "Cortex-A53";
    case cpuinfo_uarch_cortex_a55r0:
    case cpuinfo_uarch_cortex_a55: return "Cortex-A55";
    case cpuinfo_uarch_cortex_a57: return "Cortex-A57";
    case cpuinfo_uarch_cortex_a72: return "Cortex-A72";
    case cpuinfo_uarch_cortex_a73: return "Cortex-A73";
    case cpuinfo_uarch_cortex_a75: return "Cortex-A75";
    case cpuinfo_uarch_cortex_a76: return "Cortex-A76";
    case cpuinfo_uarch_cortex_a77: return "Cortex-A77";
    case cpuinfo_uarch_cortex_a78: return "Cortex-A78";
    case cpuinfo_uarch_cortex_a510: return "Cortex-A510";
    case cpuinfo_uarch_cortex_a520: return "Cortex-A520";
    case cpuinfo_uarch_cortex_a710: return "Cortex-A710";
    case cpuinfo_uarch_cortex_a715: return "Cortex-A715";
    case cpuinfo_uarch_cortex_a720: return "Cortex-A720";
    case cpuinfo_uarch_cortex_x1: return "Cortex-X1";
    case cpuinfo_uarch_cortex_x2: return "Cortex-X2";
    case cpuinfo_uarch_cortex_x3: return "Cortex-X3";
    case cpuinfo_uarch_neoverse_n1: return "Neoverse-N1";
    case cpuinfo_uarch_neoverse_v1: return "Neoverse-V1";
    case cpuinfo_uarch_neoverse_n2: return "Neoverse-N2";
    case cpuinfo_uarch_neoverse_v2: return "Neoverse-V2";
    case cpuinfo_uarch_cortex_a7: return "Cortex-A7";
    case cpuinfo_uarch_cortex_a15: return "Cortex-A15";
    case cpuinfo_uarch_zen: return "Zen";
    case cpuinfo_uarch_zen2: return "Zen 2";
    case cpuinfo_uarch_zen3: return "Zen 3";
    case cpuinfo_uarch_zen4: return "Zen 4";
    case cpuinfo_uarch_zen5: return "Zen 5";
    case cpuinfo_uarch_unknown: return "unknown";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "uarch 0x%08x", u);
      return buf;
    }
  }
}

}  // namespace

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
    const cpuinfo_core* core = cpuinfo_get_core(0);
    d.core = core ? UarchName(core->uarch) : "unknown";
#if CPUINFO_ARCH_ARM || CPUINFO_ARCH_ARM64
    if (core) d.midr = core->midr;
#endif
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
  std::string s = d.name + " (" + d.core + ")";
  if (d.midr) {
    char midr[32];
    std::snprintf(midr, sizeof midr, " MIDR 0x%08x", d.midr);
    s.insert(s.size() - 1, midr);
  }
  s += ", " + std::to_string(d.cores) + " cores (" + std::to_string(d.performance_cores) + " performance)";
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
