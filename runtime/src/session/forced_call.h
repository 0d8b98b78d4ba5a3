// A call's forced target tokens (search/forced_tokens.h) staged per input into the batch buffers: the
// target prefixes of TranslateOptions::target_prefix / target_prefix_ids, or Translator::Score's targets.
#pragma once

#include <cstddef>
#include <string_view>

#include "session/batch.h"
#include "tern/translator.h"

namespace tern {

/// Where a call's forced tokens come from: target-side texts or target ids, one per input (or none).
struct ForcedInput {
  Span<const std::string_view> texts;    // tokenized alone by the target SentencePiece, `</s>` dropped
  Span<const Span<const uint32_t>> ids;  // target ids
  bool scored = false;                   // Translator::Score: `</s>` follows, every token counts
  const char* what = "target_prefix";    // names it in errors

  bool empty() const { return texts.empty() && ids.empty(); }
  /// Input i has forced tokens to decode: a scored target (even an empty one: its `</s>`), or a prefix.
  bool Has(size_t i) const {
    return scored || (!texts.empty() && !texts[i].empty()) || (!ids.empty() && !ids[i].empty());
  }
  /// The forced input of a translate call's options.
  static ForcedInput Of(const TranslateOptions& o) {
    ForcedInput f;
    f.texts = o.target_prefix;
    f.ids = o.target_prefix_ids;
    return f;
  }
};

/// Stages input i's forced tokens (in.forced_ids / forced_len; call it after the input's source is staged),
/// or fails the input alone: kInvalidArgument for an id outside the target vocabulary or `</s>` (naming its
/// position) and for text SentencePiece refuses; kResourceExhausted when the tokens and `</s>` exceed the
/// sentence's cap (max_length, max_length_ratio). Text needs t.target_tokenizer (LoadTargetTokenizer).
void StageForced(Translator::Impl& t, const ForcedInput& f, const ResolvedOptions& o, size_t i);

}  // namespace tern
