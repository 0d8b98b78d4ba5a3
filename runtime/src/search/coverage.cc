#include "search/coverage.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace tern {
namespace {

bool On(const SearchContext& c) { return c.opt.coverage_penalty != 0.f; }

// beta x sum over sentence b's source tokens of log(min(parent_j + attention_j, 1)), attention optional.
float Penalty(const SearchContext& c, size_t b, const float* parent, const float* attention) {
  double sum = 0.0;
  const size_t n = c.in.src_len[b];  // the sentence's source tokens, </s> included
  for (size_t j = 0; j < n; ++j) {
    const float cov = parent[j] + (attention ? attention[j] : 0.f);
    if (cov > 0.f) sum += std::log(std::min(cov, 1.f));
  }
  return c.opt.coverage_penalty * static_cast<float>(sum);
}

}  // namespace

void ClearCoverage(SearchContext& c, size_t slot) {
  if (!On(c)) return;
  std::fill(c.s.coverage.data() + slot * c.dims.src, c.s.coverage.data() + (slot + 1) * c.dims.src, 0.f);
}

float CandidatePenalty(const SearchContext& c, size_t b, size_t i0, size_t r) {
  if (!On(c)) return 0.f;
  const size_t row = i0 + c.s.cand_beam[r], parent = c.s.active[row], S = c.dims.src;
  return Penalty(c, b, c.s.coverage.data() + parent * S, c.s.step_attention.data() + row * S);
}

float SlotPenalty(const SearchContext& c, size_t b, size_t slot) {
  return On(c) ? Penalty(c, b, c.s.coverage_next.data() + slot * c.dims.src, nullptr) : 0.f;
}

void ExtendCoverage(SearchContext& c, size_t b, size_t slot, size_t parent, size_t row) {
  if (!On(c)) return;
  const size_t S = c.dims.src, n = c.in.src_len[b];
  float* out = c.s.coverage_next.data() + slot * S;
  const float* in = c.s.coverage.data() + parent * S;
  const float* a = row == kForcedRow ? nullptr : c.s.step_attention.data() + row * S;
  for (size_t j = 0; j < n; ++j) out[j] = in[j] + (a ? a[j] : 0.f);
}

void CopyCoverage(SearchContext& c, size_t slot, size_t from) {
  if (!On(c)) return;
  const size_t S = c.dims.src;  // the whole row: cheap, and never read past a sentence's src_len
  std::memcpy(c.s.coverage_next.data() + slot * S, c.s.coverage_next.data() + from * S, S * sizeof(float));
}

void SwapCoverage(SearchContext& c) {
  if (On(c)) std::swap(c.s.coverage, c.s.coverage_next);
}

}  // namespace tern
