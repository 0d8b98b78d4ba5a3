// Continuous batching on one Translator (Translator::TranslateContinuous; the iteration-level scheduling of
// Orca, Yu et al., OSDI 2022, as vLLM and CTranslate2's generator servers use it).
//
// A static batch runs until its longest sentence ends; rows of finished sentences idle. In a continuous call
// the Translator's max_batch sentence slots are refilled: when a sentence ends (greedy: its row; beam: its
// whole group), its result goes to SentenceSource::Done at once and the next waiting sentence
// (SentenceSource::Next) is encoded and joins the running decoder at its own position 0. A sentence's tokens
// and scores do not depend on which sentences ran beside it or when it joined (int8, int4 and f32 rows are
// computed independently; tests/test_continuous.cc checks greedy and beam against each sentence alone).
//
// tern::Engine runs its calls this way (EngineConfig::continuous_batching); a program that feeds one
// Translator from its own queue can too.
#pragma once

#include <cstdint>
#include <string_view>

#include "tern/span.h"

namespace tern {

struct TranslationResult;

/// One sentence for a continuous call. Its views must stay valid until SentenceSource::Done(tag).
struct PendingSentence {
  std::string_view text;     ///< UTF-8 (with split_sentences, a text of several sentences is split), or:
  Span<const uint32_t> ids;  ///< with by_ids: source ids, `</s>` last
  bool by_ids = false;       ///< the sentence is `ids`, not `text`
  uint64_t tag = 0;          ///< the caller's: handed back with the result
};

/// Where a continuous call's sentences come from and its results go (implemented by the caller; called on
/// the translating thread only, never concurrently).
class SentenceSource {
 public:
  virtual ~SentenceSource() = default;
  /// Fills *next with the next waiting sentence and returns true, or returns false when none waits now
  /// (asked again at the next decoder step; the call returns once none waits and none runs).
  virtual bool Next(PendingSentence* next) = 0;
  /// The result of the sentence `tag` (a text of several sentences: its sentences' results joined, as
  /// Translate joins them): translated, failed alone (its error), kCancelled (the call's abort callback
  /// stopped it first); a text with spans auto_protect keeps gets them back as Translate gives them. Its views
  /// are valid during this call only.
  virtual void Done(uint64_t tag, const TranslationResult& result) = 0;
};

}  // namespace tern
