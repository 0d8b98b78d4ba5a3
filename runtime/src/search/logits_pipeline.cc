#include "search/logits_pipeline.h"

#include <cmath>

#include "kernels/kernels.h"
#include "search/sampling.h"
#include "search/search.h"
#include "tern/logits_processor.h"

namespace tern {
namespace {

// Whether the row's token is forced (its target prefix or scored target): a stage for a chosen token skips it.
bool ForcedRow(const RowContext& ctx) {
  uint32_t token = 0;
  return ctx.search->Forced(ctx.b, ctx.pos, &token);
}

// The token mask on the raw logits (greedy, expansion): transformers' NoBadWordsLogitsProcessor for pad and
// single-token bad_words_ids.
class TokenMask final : public LogitsRule {
 public:
  const char* name() const override { return "token mask (NoBadWords: pad, bad_words_ids)"; }
  void Process(const RowContext& ctx, float* row) const override { MaskRow(row, ctx.vocab->mask, ctx.vocab->size); }
};

// log_softmax with the token mask in one pass (beam search); the network's fused row max when it gave one.
class LogSoftmaxMask final : public LogitsRule {
 public:
  const char* name() const override { return "log_softmax + token mask"; }
  void Process(const RowContext& ctx, float* row) const override {
    const SearchContext& c = *ctx.search;
    const size_t V = ctx.vocab->size;
    const float lse = c.logits_max ? LogSumExpWithMax(row, V, c.logits_max[ctx.row]) : LogSumExp(row, V);
    ScoreRow(row, ctx.vocab->mask, lse, 0.f, V);
  }
};

// The call's own processors (TranslateOptions::logits_processors, the public tern::LogitsProcessor), in the
// order given, each seeing the row as the public LogitsRow.
class CallProcessors final : public LogitsRule {
 public:
  const char* name() const override { return "the call's processors"; }
  void Process(const RowContext& ctx, float* row) const override {
    const SearchContext& c = *ctx.search;
    const size_t input = c.in.order[ctx.b];
    LogitsRow r;
    r.input = c.origins ? c.origins[input].index : input;
    r.part = c.origins ? c.origins[input].part : 0;
    r.hypothesis = ctx.slot - ctx.b * c.opt.beam;
    r.step = ctx.pos;
    r.prefix = Span<const uint32_t>(ctx.history, ctx.pos);
    r.scores = Span<float>(row, ctx.vocab->size);
    if (!ctx.vocab->identity()) r.columns = Span<const uint32_t>(ctx.vocab->tokens, ctx.vocab->size);
    r.vocab_ = ctx.vocab->vocab;
    r.column_of_ = ctx.vocab->index;
    for (LogitsProcessor* p : c.call_processors) p->Process(r);
  }
};

// transformers' LogitNormalization (renormalize_logits) in beam search: log_softmax again after the rules.
class Renormalize final : public LogitsRule {
 public:
  const char* name() const override { return "LogitNormalization (renormalize_logits)"; }
  void Process(const RowContext& ctx, float* row) const override {
    const size_t V = ctx.vocab->size;
    const float lse = LogSumExp(row, V);
    if (std::isfinite(lse)) AddScalar(row, -lse, V);
  }
};

// Glossary constraints (search/constraints.h): a started term's next token forced, </s> held back while one
// is unmet, a term started where the alignment reaches it or where it must to fit.
class GlossaryConstraints final : public LogitsRule {
 public:
  const char* name() const override { return "glossary constraints"; }
  void Process(const RowContext& ctx, float* row) const override {
    const SearchContext& c = *ctx.search;
    const SentenceConstraints sc = c.Constraints(ctx.b);
    if (sc.n)
      ConstrainRow(sc, c.ConstraintState(ctx.slot, ctx.pos), ctx.pos, ctx.max_len, c.eos, c.vocab, c.s.row_source[ctx.row],
                   /*start_by_alignment=*/true, row);
  }
};

// Expansion's ban on every end token (eos and the call's), as CTranslate2's return_alternatives disables its
// end ids; a row whose token is forced (its target prefix) keeps them.
class BanEndTokens final : public LogitsRule {
 public:
  const char* name() const override { return "end tokens banned (expansion)"; }
  void Process(const RowContext& ctx, float* row) const override {
    if (ForcedRow(ctx)) return;
    const SearchContext& c = *ctx.search;
    if (const int64_t col = c.vocab.Index(c.eos); col >= 0) row[col] = -INFINITY;
    for (uint32_t t : c.end_tokens)
      if (const int64_t col = c.vocab.Index(t); col >= 0) row[col] = -INFINITY;
  }
};

// Sampling's warpers (temperature, top-k, top-p: search/sampling.h) after the processors, as transformers'
// _sample applies its logits_warper; a forced token is taken without them.
class SamplingWarpers final : public LogitsRule {
 public:
  const char* name() const override { return "sampling warpers (temperature, top-k, top-p)"; }
  void Process(const RowContext& ctx, float* row) const override {
    if (ForcedRow(ctx)) return;
    const SearchContext& c = *ctx.search;
    WarpRow(c.opt.sampling, row, ctx.vocab->size, c.s.sample_order.data());
  }
};

const TokenMask kTokenMask;
const LogSoftmaxMask kLogSoftmaxMask;
const CallProcessors kCallProcessors;
const Renormalize kRenormalize;
const GlossaryConstraints kGlossaryConstraints;
const BanEndTokens kBanEndTokens;
const SamplingWarpers kSamplingWarpers;

}  // namespace

LogitsPipeline LogitsPipeline::For(const SearchContext& c, RowPass pass) {
  LogitsPipeline p;
  p.Add(pass == RowPass::kBeam ? static_cast<const LogitsRule*>(&kLogSoftmaxMask) : &kTokenMask);
  for (const LogitsRule* r : (c.rules ? *c.rules : c.processors.file_set()).rules()) p.Add(r);
  if (!c.call_processors.empty()) p.Add(&kCallProcessors);
  if (pass == RowPass::kBeam && c.processors.renormalize()) p.Add(&kRenormalize);
  if (pass != RowPass::kExpansion && c.constraints) p.Add(&kGlossaryConstraints);
  if (pass == RowPass::kExpansion) p.Add(&kBanEndTokens);
  if (pass == RowPass::kGreedy && c.opt.sampling.enabled) p.Add(&kSamplingWarpers);
  return p;
}

void ProcessRows(const SearchContext& c, const LogitsPipeline& pipeline, size_t n, size_t step) {
  const size_t V = c.vocab.size;
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = c.s.active[i], b = c.s.active_sentence[i];
    pipeline.Apply(c.Row(slot, b, c.Pos(b, step), i), c.logits + i * V);
  }
}

}  // namespace tern
