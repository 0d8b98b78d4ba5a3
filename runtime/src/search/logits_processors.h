// Logits processors: the rules that rewrite a row of next-token scores before a token is chosen, applied
// in one place for greedy and beam search, in the order transformers' LogitsProcessorList applies them.
// Greedy search applies them to the raw logits and beam search to the log-probabilities, as
// transformers' generate() does (generation/utils.py: _sample / _beam_search).
//
// Two kinds: a static token mask (tokens never generated: pad and single-token bad_words_ids, as
// transformers' NoBadWordsLogitsProcessor with Marian's bad_words_ids=[[pad]]) that the fused scoring
// passes read directly, and per-row processors with state of their own (ForcedEOS; later rules such as
// terminology constraints plug in through LogitsProcessors::Add). No processor allocates while running.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tern/model.h"

namespace tern {

/// What a processor may look at for one row (one hypothesis) at one step.
struct RowContext {
  size_t pos = 0;                    // index of the token being chosen (0 = first generated token)
  uint32_t max_len = 0;              // the sentence's cap on generated tokens: pos + 1 == max_len is the last step
  const uint32_t* history = nullptr; // tokens generated so far by this hypothesis, [pos]
  size_t sentence = 0;               // the sentence (input index) the row belongs to
};

class LogitsProcessor {
 public:
  virtual ~LogitsProcessor() = default;
  /// Rewrites row[0..vocab) of one hypothesis in place (e.g. -inf for tokens it forbids).
  virtual void Process(const RowContext& ctx, float* row, size_t vocab) const = 0;
};

/// Matches transformers' ForcedEOSTokenLogitsProcessor: when pos + 1 == max_len (the last token a
/// sentence may get), every token but eos gets -inf. eos keeps its score (transformers sets it to 0,
/// which changes beam scores: the Marian conformance issue decides which tern follows).
class ForcedEos : public LogitsProcessor {
 public:
  explicit ForcedEos(uint32_t eos) : eos_(eos) {}
  void Process(const RowContext& ctx, float* row, size_t vocab) const override;

 private:
  uint32_t eos_;
};

/// The processors of one Translator: fixed at creation, no allocation per call.
class LogitsProcessors {
 public:
  static constexpr size_t kMaxProcessors = 8;
  /// From the model's generation defaults: mask pad and bad_word_ids; ForcedEos if forced_eos.
  void Init(const Model& model);
  /// [vocab] 1 = never generated.
  const uint8_t* mask() const { return mask_.data(); }
  bool masked(uint32_t token) const { return mask_[token] != 0; }
  /// Appends a processor (not owned; it must outlive this object). False when kMaxProcessors are in use.
  bool Add(const LogitsProcessor* p);
  /// Runs the per-row processors, in the order they were added.
  void Apply(const RowContext& ctx, float* row, size_t vocab) const {
    for (size_t i = 0; i < count_; ++i) list_[i]->Process(ctx, row, vocab);
  }
  bool empty() const { return count_ == 0; }

 private:
  std::vector<uint8_t> mask_;
  const LogitsProcessor* list_[kMaxProcessors] = {};
  size_t count_ = 0;
  ForcedEos forced_eos_{0};
};

}  // namespace tern
