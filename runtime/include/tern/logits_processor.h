// Per-call logits processors: an application's own rule over the next-token scores of every hypothesis at
// every step, given to one translate call (TranslateOptions::logits_processors; C: tern_translate_params's
// logits_callback). They run after the model file's rules (transformers' LogitsProcessorList order: the
// generation config's processors, then the caller's, then renormalize_logits), before the token is chosen,
// on the translating thread. Uses: banning or forcing tokens, terminology constraints, biasing a domain's
// words. (transformers' generate(logits_processor=...); CTranslate2's LogitsProcessor.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "tern/export.h"
#include "tern/translator.h"

namespace tern {

/// One hypothesis' next-token scores at one step, as a per-call logits processor sees them. Views are valid
/// during the call to Process only.
struct LogitsRow {
  size_t input = 0;        ///< the input (text or id list) the hypothesis translates, as results are indexed
  size_t part = 0;         ///< its sentence within that input when texts are split, else 0
  size_t hypothesis = 0;   ///< its beam slot within its sentence, 0..beam-1 (0 in greedy search)
  size_t step = 0;         ///< the position being chosen: 0 = the first generated token
  Span<const uint32_t> prefix;   ///< the tokens this hypothesis generated so far (`step` of them)
  /// One score per column, rewritten in place: log-probabilities (beam search) or logits (greedy search)
  /// after the file's rules; -inf bans a token. A row left with no finite score has nothing to choose:
  /// greedy search then ends the hypothesis with `</s>`, beam search ranks its candidates last (transformers'
  /// topk over -inf).
  Span<float> scores;
  /// The token of each column; empty: column k scores token k (the whole target vocabulary). A model with
  /// a lexical shortlist scores only its tokens.
  Span<const uint32_t> columns;

  /// The column of target token t, or -1 when the row has none for it.
  int64_t Column(uint32_t t) const {
    if (t >= vocab_) return -1;
    return columns.empty() ? static_cast<int64_t>(t) : column_of_[t];
  }

  size_t vocab_ = 0;                    ///< set by tern: the target vocabulary's size
  const int32_t* column_of_ = nullptr;  ///< set by tern: with a shortlist, each token's column (-1 where absent)
};

/// An application's own rule on the scores of every hypothesis at every step (transformers'
/// generate(logits_processor=...)), passed in TranslateOptions::logits_processors.
class LogitsProcessor {
 public:
  virtual ~LogitsProcessor() = default;
  /// Rewrites row.scores. Called once per live hypothesis per step; a call it makes into the same Translator returns kBusy. A
  /// processor that allocates makes the call allocate; tern's own allocate nothing.
  virtual void Process(LogitsRow& row) = 0;
};

}  // namespace tern
