// The exp pass of log-sum-exp, e[k] = exp(x[k] - m), as one inline body that every ISA's translation unit
// compiles (kernels.cc for the portable level, exp_avx2.cc with -mavx2, exp_avx512.cc with -mavx512f): a
// plain loop the compiler vectorizes for that ISA. Internal to kernels/.
//
// e^x for x <= 0 without a library call: x = k ln2 + r with |r| <= ln2/2 (ln2 split in two parts,
// Cody-Waite), e^r by its Taylor series to r^7 (relative error below 1e-8 on that interval, so the float
// result is within about 1 ulp), times 2^k built in the exponent bits. Inputs below -87 give e^-87
// (~1.6e-38) instead of a denormal or 0: negligible in a sum that holds 1. A NaN input (logits of a broken
// model) gives e^-87 too, never undefined behaviour. No fused multiply-add (every unit is built with
// -ffp-contract=off and none with -mfma): every level computes the same floats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tern {
namespace {  // internal linkage: each ISA's unit keeps its own copy

inline float ExpNonPositive(float x) {
  constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693145751953125f, kLn2Lo = 1.42860682030941723e-6f;
  constexpr float kRound = 12582912.f;  // 1.5 * 2^23: adding it rounds to an integer
  x = x > -87.f ? x : -87.f;  // also maps NaN to -87: the integer conversion below never sees a NaN
  const float k = (x * kLog2e + kRound) - kRound;
  const float r = (x - k * kLn2Hi) - k * kLn2Lo;
  float p = 1.f / 5040.f;
  p = p * r + 1.f / 720.f;
  p = p * r + 1.f / 120.f;
  p = p * r + 1.f / 24.f;
  p = p * r + 1.f / 6.f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  const int32_t bits = (static_cast<int32_t>(k) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline void ExpShiftedBody(const float* x, size_t n, float m, float* e) {
  for (size_t k = 0; k < n; ++k) e[k] = ExpNonPositive(x[k] - m);
}

/// x[k] <- swish(x[k]) = x / (1 + e^-x) (SiLU: transformers' ACT2FN["swish"]) in place, with t = e^-|x| from
/// ExpNonPositive: x / (1 + t) for x >= 0 and x t / (1 + t) below (the same function, never e^x of a positive
/// x, so nothing overflows). Within 4 ulp of swish in double; below x = -87, where swish is about 0, it gives
/// x e^-87 (at most 2e-38 |x|); NaN stays NaN.
inline void SwishBody(float* x, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    const float v = x[k];
    const float t = ExpNonPositive(v > 0.f ? -v : v);
    x[k] = (v >= 0.f ? v : v * t) / (1.f + t);
  }
}

}  // namespace
}  // namespace tern
