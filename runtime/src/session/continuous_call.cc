#include "session/continuous_call.h"

#include <string>

#include "session/continuous_feed.h"
#include "session/session.h"

namespace tern {
namespace {

#include "session/continuous_fields.inc"

// What a continuous call refuses (tern/translator.h, TranslateContinuous), or OK: the options of the table's
// CONTINUOUS column, and a model's shortlist (its rows differ per sentence).
Status CheckContinuousOptions(const Translator::Impl& t, const TranslateOptions& o) {
  const char* what = ContinuousRefusal(o);
  if (!what && t.dims.shortlist && o.use_shortlist) what = "a shortlist (use_shortlist false translates without it)";
  if (what) return Status(StatusCode::kInvalidArgument, std::string("TranslateContinuous: not with ") + what);
  return Status::Ok();
}

}  // namespace

void DeclareContinuousBuffers(const Dims& d, ContinuousCallBuffers* b, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kDec = Phase::kDecoder;
  DeclareSentenceEncoderBuffers(d, &b->enc, plan);
  plan->Add(&b->start_step, "continuous.start_step", d.batch, kEnc, kDec);
  plan->Add(&b->positions, "continuous.positions", d.rows, kEnc, kDec);
  plan->Add(&b->tags, "continuous.tags", d.batch, kEnc, kDec);
  plan->Add(&b->by_ids, "continuous.by_ids", d.batch, kEnc, kDec);
  plan->Add(&b->aligned, "continuous.aligned", d.batch, kEnc, kDec);
}

Status TranslateContinuous(Translator::Impl& t, Call& call, SentenceSource& source) {
  const TranslateOptions& options = *call.options;
  if (!t.dims.continuous)
    return Status(StatusCode::kInvalidArgument, "TranslateContinuous: the Translator was created without "
                                                "TranslatorConfig::continuous_batching");
  TERN_RETURN_IF_ERROR(CheckContinuousOptions(t, options));
  TERN_RETURN_IF_ERROR(CheckTargetLang(t, options.target_lang));
  TERN_ASSIGN_OR_RETURN(const ResolvedOptions o, ResolveOptions(t.model->generation(), t.dims, t.dims.batch, options, t.alignment_layer));
  call.stream.Begin(options, t.tokenizer.get(), nullptr, 0, 0, nullptr, nullptr, nullptr);  // the abort check only
  SearchContext ctx = CallSearchContext(t, call, o);
  ctx.stream = options.abort ? &call.stream : nullptr;
  // Alignment per sentence: the caller's return_alignment, and the texts auto_protect takes apart (their spans
  // go back by it).
  ctx.opt.want_alignment = o.want_alignment || options.auto_protect;
  ctx.aligned = t.buf.continuous.aligned.data();
  BeamSearch beam;
  GreedySearch greedy;
  SearchStrategy& strategy = o.beam > 1 ? static_cast<SearchStrategy&>(beam) : greedy;
  return RunFeed(t, ctx, strategy, source, options, o);
}

}  // namespace tern
