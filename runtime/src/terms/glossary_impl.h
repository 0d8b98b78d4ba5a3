// What a Glossary holds (tern/glossary.h): each entry's source term as text (NormalizeTerm), indexed by the
// case-folded hash of its first unit (terms/term_text.h), and its target term as target ids; and the
// identity of the vocabularies it was made for.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "search/constraints.h"
#include "tern/glossary.h"
#include "tern/translator.h"

namespace tern {

class Glossary::Impl {
 public:
  struct Term {
    uint64_t key;       // FoldedUnitHash of its first unit
    uint32_t entry;     // index of its entry
    uint32_t off, len;  // its source text: text[off .. off + len)
  };
  bool case_insensitive = false;
  std::string text;                       // the source terms, normalized, one after another
  std::vector<Term> terms;                // sorted by (key, longer first)
  std::vector<uint32_t> target_ids;
  std::vector<uint32_t> target_off, target_len;  // [entries]
  std::vector<uint8_t> target_inside;     // [target vocab] the piece goes on a word (no U+2581; a letter, digit or '-' first)
  // The model it was made for: its token ids are that model's (tern/glossary.h).
  uint32_t source_vocab_size = 0, target_vocab_size = 0;
  uint64_t vocab_fingerprint = 0;
};

/// A 64-bit fingerprint of a model's source and target vocabularies (FNV-1a over every piece): a glossary
/// works with any model whose vocabularies are the same.
uint64_t VocabFingerprint(const Model& model);

/// The source of one sentence as the matcher reads it: its text, from byte `from` (after a language code),
/// and each of its n source tokens' byte range in the text (Tokenizer::Encode's spans).
struct SourceText {
  std::string_view text;
  size_t from = 0;
  const TextSpan* spans = nullptr;
  size_t n = 0;
};

/// Writes the constraints of input sentence i into buf: every occurrence of a source term in the text,
/// longest first, left to right (terms/match.cc says where a term matches). False (and no constraints) when
/// there are more than kMaxConstraints occurrences or kMaxConstraintTokens target tokens. No allocation.
bool MatchTerms(const Glossary::Impl& g, const SourceText& source, const ConstraintBuffers& buf, size_t i);

}  // namespace tern
