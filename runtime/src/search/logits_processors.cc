#include "search/logits_processors.h"

#include <limits>

namespace tern {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

}  // namespace

void RepetitionPenalty::Process(const RowContext& ctx, float* row) const {
  const size_t n = ctx.pos + 1;  // input_ids: start token + history
  for (size_t k = 0; k < n; ++k) {
    const uint32_t t = ctx.input_id(k);
    const int64_t c = ctx.vocab->Index(t);
    if (c < 0) continue;
    bool seen = false;  // transformers gathers and scatters: each distinct token is penalized once
    for (size_t j = 0; j < k && !seen; ++j) seen = ctx.input_id(j) == t;
    if (seen) continue;
    row[c] = row[c] < 0.f ? row[c] * penalty_ : row[c] / penalty_;
  }
}

void NoRepeatNGram::Process(const RowContext& ctx, float* row) const {
  const size_t len = ctx.pos + 1;  // cur_len of transformers' input_ids
  if (n_ == 0 || len + 1 < n_) return;
  const size_t prefix = n_ - 1, start = len - prefix;  // the last n-1 tokens
  // Every earlier window i..i+n-1 whose first n-1 tokens equal the prefix bans its last token.
  for (size_t i = 0; i + n_ <= len; ++i) {
    bool same = true;
    for (size_t k = 0; k < prefix && same; ++k) same = ctx.input_id(i + k) == ctx.input_id(start + k);
    if (!same) continue;
    const int64_t banned = ctx.vocab->Index(ctx.input_id(i + prefix));
    if (banned >= 0) row[banned] = kNegInf;
  }
}

void NoBadSequences::Process(const RowContext& ctx, float* row) const {
  if (unk_ != UINT32_MAX) {
    const int64_t c = ctx.vocab->Index(unk_);
    if (c >= 0) row[c] = kNegInf;
  }
  const size_t len = ctx.pos + 1;  // transformers' input_ids: the start token and the history
  for (const Span<const uint32_t>& seq : sequences_) {
    const size_t before = seq.size() - 1;  // tokens that must end input_ids (ResolveOptions: size >= 1)
    if (before > len) continue;
    bool match = true;
    for (size_t k = 0; k < before && match; ++k) match = ctx.input_id(len - before + k) == seq[k];
    if (!match) continue;
    const int64_t c = ctx.vocab->Index(seq[before]);
    if (c >= 0) row[c] = kNegInf;
  }
}

void MinLength::Process(const RowContext& ctx, float* row) const {
  if (ctx.pos >= min_length_) return;
  const int64_t e = ctx.vocab->Index(eos_);
  if (e >= 0) row[e] = kNegInf;
  for (uint32_t t : more_ends_)
    if (const int64_t c = ctx.vocab->Index(t); c >= 0) row[c] = kNegInf;
}

void ForcedEos::Process(const RowContext& ctx, float* row) const {
  if (ctx.pos + 1 < ctx.max_len) return;
  for (size_t v = 0; v < ctx.vocab->size; ++v) row[v] = kNegInf;
  const int64_t e = ctx.vocab->Index(eos_);
  if (e >= 0) row[e] = 0.f;
}

void LogitsProcessors::Init(const Model& model) {
  const Hyperparameters& hp = model.hparams();
  const GenerationDefaults& g = model.generation();
  mask_.assign(hp.target_vocab_size, 0);
  // pad is never generated (transformers masks it through Marian's bad_words_ids = [[pad]]; tern does
  // for every model, as Marian itself and transformers' older MarianMTModel.adjust_logits_during_generation do).
  mask_[hp.pad_id] = 1;
  for (uint32_t id : g.bad_word_ids) mask_[id] = 1;
  eos_ = hp.eos_id;
  file_rules_ = LogitsRules{g.repetition_penalty, g.no_repeat_ngram_size, g.min_length};
  file_rules_.forced_eos = g.forced_eos;
  file_set_.Build(file_rules_, eos_);
  renormalize_ = g.renormalize_logits;
}

void RuleSet::Build(const LogitsRules& r, uint32_t eos) {
  count_ = 0;  // in transformers' order: repetition penalty, no-repeat n-grams, bad words, min length, forced </s>
  if (r.repetition_penalty != 1.f) {
    repetition_ = RepetitionPenalty(r.repetition_penalty);
    Add(&repetition_);
  }
  if (r.no_repeat_ngram_size > 0) {
    no_repeat_ = NoRepeatNGram(r.no_repeat_ngram_size);
    Add(&no_repeat_);
  }
  if (!r.suppress_sequences.empty() || r.suppress_token != UINT32_MAX) {  // NoBadWords: before MinLength
    bad_sequences_ = NoBadSequences(r.suppress_sequences, r.suppress_token);
    Add(&bad_sequences_);
  }
  if (r.min_length > 0) {
    min_length_ = MinLength(r.min_length, eos, r.end_tokens);
    Add(&min_length_);
  }
  if (r.forced_eos) {
    forced_eos_ = ForcedEos(eos);
    Add(&forced_eos_);
  }
}

}  // namespace tern
