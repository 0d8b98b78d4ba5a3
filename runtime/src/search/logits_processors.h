// Logits processors: the rules that rewrite a row of next-token scores before a token is chosen, in the
// order transformers' LogitsProcessorList applies them (generation/utils.py, _get_logits_processor,
// transformers 4.x/5.x): RepetitionPenalty, NoRepeatNGram, NoBadWords (the token mask), MinLength,
// ForcedEOS, then LogitNormalization when renormalize_logits. Greedy search applies them to the raw logits
// and beam search to the log-probabilities, as transformers' generate() does (_sample / _beam_search).
//
// LogitsRule is the one interface of every stage of a search's logits pipeline (search/logits_pipeline.h):
// these file rules, the token mask (tokens never generated: pad and single-token bad_words_ids,
// transformers' NoBadWordsLogitsProcessor with Marian's bad_words_ids = [[pad]]; fused with log_softmax in
// beam search, which it commutes with), a call's own processors (the public tern::LogitsProcessor, through
// one adapter stage), glossary constraints and sampling's warpers. The file's rules are fixed when a
// Translator is created (from the file, LogitsProcessors); each call builds its own RuleSet from its resolved
// options (session/call.h: the Call owns it) and the search reads the call's. No rule allocates while running.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "search/vocab_map.h"
#include "tern/span.h"
#include "tern/model.h"

namespace tern {

struct SearchContext;

/// What a processor may look at for one row (one hypothesis) at one step.
struct RowContext {
  size_t pos = 0;                    // index of the token being chosen (0 = first generated token)
  uint32_t max_len = 0;              // the sentence's cap on generated tokens: pos + 1 == max_len is the last step
  uint32_t start_token = 0;          // the decoder start token (first token of transformers' input_ids)
  const uint32_t* history = nullptr; // tokens generated so far by this hypothesis, [pos]
  size_t sentence = 0;               // the sentence (input index) the row belongs to
  const VocabMap* vocab = nullptr;   // the row's columns: row[k] scores token vocab->Token(k)
  // Where the row sits in the search (the pipeline's own stages read these; the file's rules do not):
  size_t row = 0;                    // its index among the step's active rows (logits row, row_source)
  size_t slot = 0;                   // its beam slot (KV cache, track row)
  size_t b = 0;                      // its sentence in length order
  const SearchContext* search = nullptr;  // the running search (nullptr outside one: tests of single rules)
  /// Token k of transformers' input_ids for this row: the start token, then the history (k <= pos).
  uint32_t input_id(size_t k) const { return k == 0 ? start_token : history[k - 1]; }
};

/// One of the file's rules.
class LogitsRule {
 public:
  virtual ~LogitsRule() = default;
  /// Rewrites row[0..ctx.vocab->size) of one hypothesis in place (row[k] scores token ctx.vocab->Token(k);
  /// a token the map lacks has no column and needs no rule).
  virtual void Process(const RowContext& ctx, float* row) const = 0;
  /// The rule's name: transformers' processor it follows where there is one (tests and the docs list them).
  virtual const char* name() const = 0;
};

/// transformers' RepetitionPenaltyLogitsProcessor: every token of input_ids (start token included) has
/// its score multiplied by `penalty` if negative, divided by it otherwise; once per distinct token.
class RepetitionPenalty : public LogitsRule {
 public:
  explicit RepetitionPenalty(float penalty) : penalty_(penalty) {}
  void Process(const RowContext& ctx, float* row) const override;
  const char* name() const override { return "RepetitionPenalty"; }

 private:
  float penalty_;
};

/// transformers' NoRepeatNGramLogitsProcessor: a token that would complete an n-gram already present in
/// input_ids (start token included) gets -inf.
class NoRepeatNGram : public LogitsRule {
 public:
  explicit NoRepeatNGram(uint32_t n) : n_(n) {}
  void Process(const RowContext& ctx, float* row) const override;
  const char* name() const override { return "NoRepeatNGram"; }

 private:
  uint32_t n_;
};

/// transformers' MinLengthLogitsProcessor: eos gets -inf while fewer than `min_length` tokens have been
/// generated (transformers' min_length counts the start token; this one does not).
class MinLength : public LogitsRule {
 public:
  MinLength(uint32_t min_length, uint32_t eos, Span<const uint32_t> more_ends = {})
      : min_length_(min_length), eos_(eos), more_ends_(more_ends) {}
  void Process(const RowContext& ctx, float* row) const override;
  const char* name() const override { return "MinLength"; }

 private:
  uint32_t min_length_, eos_;
  Span<const uint32_t> more_ends_;  // the call's end tokens: held back too (transformers' eos_token_id list)
};

/// transformers' ForcedEOSTokenLogitsProcessor: at the last step a sentence may take (pos + 1 == max_len),
/// every token gets -inf and eos gets 0. In beam search that 0 is the log-probability the forced </s>
/// adds to the hypothesis' score.
class ForcedEos : public LogitsRule {
 public:
  explicit ForcedEos(uint32_t eos) : eos_(eos) {}
  void Process(const RowContext& ctx, float* row) const override;
  const char* name() const override { return "ForcedEOSToken"; }

 private:
  uint32_t eos_;
};

/// transformers' NoBadWordsLogitsProcessor for a call's own sequences (CTranslate2's suppress_sequences, and its
/// banned <unk>): a sequence of one token bans it everywhere; a longer one bans its last token where the
/// input_ids (start token, then the history, a target prefix included) end with the tokens before it.
/// `unk` (or UINT32_MAX for none) is banned everywhere.
class NoBadSequences : public LogitsRule {
 public:
  NoBadSequences(Span<const Span<const uint32_t>> sequences, uint32_t unk) : sequences_(sequences), unk_(unk) {}
  void Process(const RowContext& ctx, float* row) const override;
  const char* name() const override { return "NoBadWords (the call's sequences)"; }

 private:
  Span<const Span<const uint32_t>> sequences_;
  uint32_t unk_;
};

/// The rules a call may set for itself (TranslateOptions; the file's GenerationDefaults otherwise).
struct LogitsRules {
  float repetition_penalty = 1.f;     // 1: off
  uint32_t no_repeat_ngram_size = 0;  // 0: off
  uint32_t min_length = 0;            // generated tokens before </s> is allowed
  Span<const Span<const uint32_t>> suppress_sequences = {};  // the call's (not owned; checked by ResolveOptions)
  uint32_t suppress_token = UINT32_MAX;                 // one token banned everywhere (<unk>); UINT32_MAX: none
  Span<const uint32_t> end_tokens = {};                 // the call's end tokens besides eos (MinLength bans them)
  bool forced_eos = false;                              // ForcedEos at the last position
  bool operator==(const LogitsRules& o) const {
    return repetition_penalty == o.repetition_penalty && no_repeat_ngram_size == o.no_repeat_ngram_size &&
           forced_eos == o.forced_eos &&
           min_length == o.min_length && suppress_sequences.data() == o.suppress_sequences.data() &&
           suppress_sequences.size() == o.suppress_sequences.size() && suppress_token == o.suppress_token &&
           end_tokens.data() == o.end_tokens.data() && end_tokens.size() == o.end_tokens.size();
  }
};

/// The rules of one call, in transformers' order: made from a LogitsRules (the call's resolved options, or
/// the file's). Holds its rule objects (no heap); a search reads it through SearchContext::rules.
class RuleSet {
 public:
  static constexpr size_t kMax = 8;
  /// Rebuilds the list from `r` (eos: the model's `</s>`, for MinLength and ForcedEOS).
  void Build(const LogitsRules& r, uint32_t eos);
  /// The rules in transformers' order (search/logits_pipeline.h puts them into a search's one pipeline).
  Span<const LogitsRule* const> rules() const { return Span<const LogitsRule* const>(list_, count_); }
  bool empty() const { return count_ == 0; }

 private:
  void Add(const LogitsRule* p) { list_[count_++] = p; }
  const LogitsRule* list_[kMax] = {};
  size_t count_ = 0;
  RepetitionPenalty repetition_{1.f};
  NoRepeatNGram no_repeat_{0};
  MinLength min_length_{0, 0};
  NoBadSequences bad_sequences_{{}, UINT32_MAX};
  ForcedEos forced_eos_{0};
};

/// What one Translator's file fixes at creation: the token mask, renormalize_logits, and its rules
/// (GenerationDefaults) as a RuleSet, the rules of a search given no call's own.
class LogitsProcessors {
 public:
  static constexpr size_t kMaxProcessors = RuleSet::kMax;
  void Init(const Model& model);
  /// The file's rules (GenerationDefaults), and built.
  const LogitsRules& file_rules() const { return file_rules_; }
  const RuleSet& file_set() const { return file_set_; }
  /// The model's `</s>`.
  uint32_t eos() const { return eos_; }
  /// [target vocab] 1 = never generated.
  const uint8_t* mask() const { return mask_.data(); }
  /// transformers' renormalize_logits: log_softmax again after the processors.
  bool renormalize() const { return renormalize_; }

 private:
  std::vector<uint8_t> mask_;
  bool renormalize_ = false;
  uint32_t eos_ = 0;
  LogitsRules file_rules_;
  RuleSet file_set_;
};

}  // namespace tern
