#include "search/vocab_map.h"

#include <cstring>

namespace tern {

VocabMap IdentityMap(size_t vocab, const uint8_t* mask) {
  VocabMap m;
  m.size = vocab;
  m.vocab = vocab;
  m.mask = mask;
  return m;
}

VocabMap BuildShortlistMap(const ShortlistView& sl, const PackedSources& in, uint32_t eos, const uint8_t* mask, size_t vocab,
                           const VocabBuffers& buf) {
  int32_t* index = buf.index;
  for (size_t t = 0; t < vocab; ++t) index[t] = -1;
  auto mark = [&](uint32_t t) {
    if (t < vocab) index[t] = 0;  // ids were range-checked at load; this keeps a bad one harmless
  };
  for (size_t i = 0; i < sl.frequent_count; ++i) mark(sl.frequent[i]);
  mark(eos);
  for (size_t b = 0; b < in.n; ++b)
    for (size_t p = 0; p < in.len[b]; ++p) {
      const uint32_t s = in.ids[in.off[b] + p];
      for (uint32_t c = sl.offsets[s]; c < sl.offsets[s + 1]; ++c) mark(sl.candidates[c]);
    }
  // Columns in ascending token order: the same map for the same set, whatever the order of marking.
  size_t k = 0;
  for (size_t t = 0; t < vocab; ++t) {
    if (index[t] < 0) continue;
    buf.tokens[k] = static_cast<uint32_t>(t);
    buf.mask[k] = mask[t];
    index[t] = static_cast<int32_t>(k++);
  }
  VocabMap m;
  m.tokens = buf.tokens;
  m.index = buf.index;
  m.mask = buf.mask;
  m.size = k;
  m.vocab = vocab;
  return m;
}

}  // namespace tern
