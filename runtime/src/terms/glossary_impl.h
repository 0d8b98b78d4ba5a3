// What a Glossary holds (tern/glossary.h): each entry's source term as source ids (with case_insensitive,
// the case variants too), sorted by first id for lookup, and its target term as target ids.
#pragma once

#include <cstdint>
#include <vector>

#include "search/constraints.h"
#include "tern/glossary.h"

namespace tern {

class Glossary::Impl {
 public:
  struct Variant {
    uint32_t entry;     // index of its entry
    uint32_t off, len;  // its source ids: source_ids[off .. off + len)
  };
  std::vector<uint32_t> source_ids;
  std::vector<Variant> variants;        // sorted by (first source id, longer first)
  std::vector<uint32_t> target_ids;
  std::vector<uint32_t> target_off, target_len;  // [entries]
  std::vector<uint8_t> word_start;      // [source vocab] the piece starts a word (U+2581 first)
  std::vector<uint8_t> word_inside;     // [source vocab] the piece goes on a word (no U+2581, a letter or digit first)
  std::vector<uint8_t> target_inside;   // [target vocab] the same for target pieces, and a '-' first
};

/// Writes the constraints of input sentence i (its source ids ids[0..n), </s> last) into buf: every
/// occurrence of a source term, whole words, longest first, left to right. False (and no constraints) when
/// there are more than kMaxConstraints occurrences or kMaxConstraintTokens target tokens. No allocation.
bool MatchTerms(const Glossary::Impl& g, const uint32_t* ids, size_t n, const ConstraintBuffers& buf, size_t i);

}  // namespace tern
