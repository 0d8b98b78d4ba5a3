#include "kernels/isa.h"

#include <cstdlib>
#include <cstring>

#include "tern/cpu.h"

namespace tern {
namespace {

constexpr Isa kAll[] = {Isa::kPortable, Isa::kAvx2, Isa::kAvx512Vnni, Isa::kNeon, Isa::kNeonDot, Isa::kWasmSimd128};

// 0 portable, 1 x86, 2 ARM, 3 WebAssembly.
int Family(Isa i) {
  switch (i) {
    case Isa::kAvx2:
    case Isa::kAvx512Vnni: return 1;
    case Isa::kNeon:
    case Isa::kNeonDot: return 2;
    case Isa::kWasmSimd128: return 3;
    default: return 0;
  }
}

// The levels of this build's architecture that the CPU supports, in order.
size_t Supported(Isa* out, size_t capacity) {
  size_t n = 0;
  auto add = [&](Isa i) {
    if (n < capacity) out[n++] = i;
  };
  add(Isa::kPortable);
  const CpuDescription& cpu = DescribeCpu();
#if defined(__x86_64__) || defined(__i386__)
  if (cpu.avx2) add(Isa::kAvx2);
  if (cpu.avx2 && cpu.avx512f && cpu.avx512vnni) add(Isa::kAvx512Vnni);
#elif defined(__aarch64__)
  add(Isa::kNeon);  // every AArch64 core
  if (cpu.neon_dotprod) add(Isa::kNeonDot);
#elif defined(__ARM_NEON)
  if (cpu.neon) add(Isa::kNeon);  // ARMv7 built for NEON (armhf): the int8 GEMM's NEON kernel
#elif defined(__wasm_simd128__)
  add(Isa::kWasmSimd128);  // the module was built for SIMD128: an engine without it cannot have loaded it
#endif
  (void)cpu;
  return n;
}

struct Choice {
  Isa detected = Isa::kPortable, active = Isa::kPortable;
  std::string note;  // what TERN_ISA did
};

const Choice& Chosen() {
  static const Choice c = [] {
    Choice c;
    Isa levels[8];
    const size_t n = Supported(levels, 8);
    c.detected = c.active = levels[n - 1];
    const char* env = std::getenv("TERN_ISA");
    if (!env || !*env) return c;
    for (Isa want : kAll) {
      if (std::strcmp(env, IsaName(want)) != 0) continue;
      for (size_t i = 0; i < n; ++i)
        if (levels[i] == want) {
          c.active = want;
          c.note = std::string("TERN_ISA=") + env;
          return c;
        }
      const bool other_family = Family(want) != 0 && Family(c.detected) != 0 && Family(want) != Family(c.detected);
      c.note = std::string("TERN_ISA=") + env + " ignored: " + (other_family ? "not this CPU's family" : "above this CPU");
      return c;
    }
    c.note = std::string("TERN_ISA=") + env + " ignored: unknown (portable, avx2, avx512vnni, neon, neondot, wasm_simd128)";
    return c;
  }();
  return c;
}

}  // namespace

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kPortable: return "portable";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512Vnni: return "avx512vnni";
    case Isa::kNeon: return "neon";
    case Isa::kNeonDot: return "neondot";
    case Isa::kWasmSimd128: return "wasm_simd128";
  }
  return "?";
}

Isa DetectedIsa() { return Chosen().detected; }
Isa ActiveIsa() { return Chosen().active; }
size_t AvailableIsas(Isa* out, size_t capacity) { return Supported(out, capacity); }

std::string IsaSummary() {
  const Choice& c = Chosen();
  std::string s = std::string(IsaName(c.active)) + " (this CPU: " + IsaName(c.detected) + ")";
  if (!c.note.empty()) s += ", " + c.note;
  return s;
}

}  // namespace tern
