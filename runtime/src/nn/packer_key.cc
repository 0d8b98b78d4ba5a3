#include "nn/packer_key.h"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "kernels/int4_gemm.h"
#include "kernels/int8_gemm.h"
#include "kernels/isa.h"
#include "nn/int4_probe.h"
#include "nn/linear.h"
#include "nn/linear_kernels.h"
#include "nn/packed_cache.h"
#include "nn/packed_weights.h"
#include "kernels/digest.h"
#include "nn/xnn_ops.h"
#include "tern/version.h"

namespace tern {
namespace {

constexpr size_t kFormats = 5;  // DType values 0..4

std::string Hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Packs a [37, 64] probe layer with the operator of `dtype` and hashes what XNNPACK wrote; "-" when the
// operator cannot be created here.
std::string PackingFingerprint(DType dtype) {
  constexpr size_t kOut = 37, kIn = 64, kBlock = 32;
  std::vector<uint8_t> w(kOut * kIn * 4);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>((i * 37 + 11) % 251);
  if (dtype == DType::kF32 || dtype == DType::kF16)  // finite floats
    for (size_t i = 0; i < kOut * kIn; ++i) {
      const float v = static_cast<float>(static_cast<int>(i % 13) - 6) / 8.f;
      std::memcpy(w.data() + i * 4, &v, 4);
    }
  std::vector<float> scales(kOut * kIn / kBlock, 1.f), bias(kOut, 0.5f);
  std::vector<uint16_t> bf16_scales(kOut * kIn / kBlock, 0x3f80);  // bfloat16 1.0
  const void* s = dtype == DType::kQb4w ? static_cast<const void*>(bf16_scales.data()) : scales.data();
  PackedBlock block;
  xnn_operator_t op = nullptr;
  const LinearKernel& k = KernelFor(dtype);
  const xnn_status st = k.create(kIn, kOut, w.data(), s, bias.data(), dtype == DType::kQb4w ? kBlock : 0, block.cache(), &op);
  XnnOperator owner(op);
  if (st != xnn_status_success || !block.Seal()) return "-";
  const uint64_t size = block.bytes();
  return Hex(Hash64(block.data(), block.bytes(), Hash64(&size, sizeof size)));
}

}  // namespace

uint32_t FormatBit(DType dtype) { return uint32_t{1} << static_cast<uint32_t>(dtype); }

std::string PackerIdentity(uint32_t formats) {
  // Each format's part once per process: the 4-bit probes and the fingerprints pack and run small layers
  // (about 0.7 ms in all), so a load computes only those of the formats its model has.
  static std::once_flag once[kFormats];
  static std::string part[kFormats];
  std::string s = std::string("tern ") + Version() + "\nisa " + IsaName(DetectedIsa()) + " active " + IsaName(ActiveIsa()) +
                  "\nown int8 " + (OwnInt8GemmActive() ? "1" : "0") + " own int4 " + (OwnInt4GemmActive() ? "1" : "0") +
                  "\npacking scheme " + std::to_string(kPackingScheme) + "\nxnnpack " + (InitXnnpack().ok() ? "" : "unavailable") +
                  "\nformats";
  for (DType t : {DType::kF32, DType::kF16, DType::kInt8, DType::kQc4w, DType::kQb4w}) {
    const size_t i = static_cast<size_t>(t);
    if (!(formats & FormatBit(t))) continue;
    std::call_once(once[i], [&] {
      const LinearKernel& k = KernelFor(t);
      std::string f = std::string(" ") + DTypeName(t) + ":" + std::to_string(k.widened_element_bytes) + (k.exact_epilogue ? "e" : "") +
                      (k.create_reads_scales ? "s" : "");
      if (t == DType::kQc4w || t == DType::kQb4w) f += XnnpackInt4Wrong(t) ? ",xnnpack-wrong" : ",xnnpack-right";
      // f16 layers are packed by the f32 operator (widened): its fingerprint is f32's.
      if (InitXnnpack().ok()) f += "," + PackingFingerprint(t == DType::kF16 ? DType::kF32 : t);
      part[i] = std::move(f);
    });
    s += part[i];
  }
  return s;
}

std::string PackedCacheKey(const std::string& real_path, uint32_t formats) {
  if (real_path.empty()) return "";
  return "tern-packed-cache 2\n" + PackerIdentity(formats) + "\nmodel " + real_path + "\n";
}

std::string PackedCacheName(const std::string& real_path) {
  const size_t slash = real_path.rfind('/');
  std::string base = slash == std::string::npos ? real_path : real_path.substr(slash + 1);
  if (base.size() > kMaxNameStemBytes) {  // NAME_MAX is 255 bytes: a long name is cut, at a character's start
    size_t cut = kMaxNameStemBytes;
    while (cut > 0 && (static_cast<unsigned char>(base[cut]) & 0xC0) == 0x80) --cut;
    base.resize(cut);
  }
  return base + "-" + Hex(Hash64(real_path.data(), real_path.size())) + ".ternpack";
}

}  // namespace tern
