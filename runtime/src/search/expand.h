// The first pass of CTranslate2's return_alternatives (decoding.cc, decode_alternatives): one greedy row per
// sentence through its target prefix, then, at the first free position, the k most likely next tokens
// (`</s>` excluded, as CTranslate2's one-step expansion with min_length 1 excludes it) after the logits
// rules, and the sentence ends there. session/alternatives_call.h continues each token by the call's search.
#pragma once

#include <cstddef>
#include <cstdint>

#include "search/search.h"

namespace tern {

/// Where the expansion goes, per input index i: token[i * stride + j] and logprob[...] for j < count[i]
/// (descending log-probability; equal ones: the lower column first; only finite ones are kept).
struct Expansions {
  uint32_t* token = nullptr;  // [batch, stride]
  float* logprob = nullptr;   // [batch, stride] log_softmax of the processed row
  uint32_t* count = nullptr;  // [batch]
  size_t stride = 0;          // >= k
  uint32_t k = 0;             // tokens wanted per sentence (<= kMaxBeam)
};

/// Greedy rows through the forced tokens, then the expansion (Expansions) and the end of the sentence. The
/// row is processed as greedy search processes it (the token mask, the file's rules, the call's processors).
class ExpandSearch final : public SearchStrategy {
 public:
  explicit ExpandSearch(const Expansions& out) : out_(out) {}
  size_t LiveRows(const SearchContext&, size_t, size_t) const override { return 1; }
  void Step(SearchContext& c, size_t n, size_t pos) override;

 private:
  Expansions out_;
};

}  // namespace tern
