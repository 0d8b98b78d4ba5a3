#include "session/continuous_call.h"

#include <cstring>

#include "markup/protect.h"
#include "model/model_impl.h"
#include "nn/encoder.h"
#include "search/continuous.h"
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

// The session as search/continuous.h's SentenceSlots: slot b takes the source's next sentence.
class Feed final : public SentenceSlots {
 public:
  Feed(Translator::Impl& t, SentenceSource& source, const TranslateOptions& options, const ResolvedOptions& o)
      : t_(t), source_(source), options_(options), o_(o) {}

  Result<bool> Admit(size_t b) override {
    const BatchBuffers& in = t_.buf.batch;
    const ResultBuffers& out = t_.buf.results;
    const ContinuousCallBuffers& cb = t_.buf.continuous;
    const size_t S = t_.dims.src;
    for (;;) {
      PendingSentence p;
      if (!source_.Next(&p)) return false;
      out.results[b] = TranslationResult();
      in.sentence_ok[b] = 1;
      cb.tags[b] = p.tag;
      cb.by_ids[b] = p.by_ids ? 1 : 0;
      if (p.by_ids) {
        StageIds(t_, b, p.ids, options_);
      } else if (p.text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) {
        Hypothesis& h = out.hypotheses[b * t_.dims.n_best];  // nothing to translate: an empty translation
        h = Hypothesis();
        out.results[b].hypotheses = Span<const Hypothesis>(&h, 1);
        source_.Done(p.tag, out.results[b]);
        continue;
      } else if (Result<bool> several = SeveralSentences(p.text); !several.ok() || several.value()) {
        const Status why = several.ok() ? Status(StatusCode::kUnsupported, kSeveral) : several.status();
        SetSentenceError(out, in, b, why.code(), "%s", why.message().c_str());
      } else if (markup::AutoProtectSyntaxes(options_, p.text)) {
        SetSentenceError(out, in, b, StatusCode::kUnsupported, "%s", kProtected);
      } else {
        size_t len = 0;
        const Status s = t_.tokenizer->Encode(p.text, options_.target_lang, in.staged_ids + b * S, S, &len,
                                              in.src_spans + b * S, options_.max_input_length);
        if (s.ok()) in.in_len[b] = static_cast<uint32_t>(len);
        else SetSentenceError(out, in, b, s.code(), "%s", s.message().c_str());
      }
      if (!out.results[b].ok()) {  // fails alone
        source_.Done(p.tag, out.results[b]);
        continue;
      }
      const uint32_t len = in.in_len[b];
      std::memcpy(in.src_ids + b * S, in.staged_ids + b * S, len * sizeof(uint32_t));
      in.src_off[b] = static_cast<uint32_t>(b * S);
      in.src_len[b] = len;
      in.order[b] = static_cast<uint32_t>(b);
      in.max_len[b] = SentenceCap(o_, len);
      const uint32_t zero = 0;
      t_.net->SetPooled(t_.threads.pooled());
      TERN_RETURN_IF_ERROR(Encode(*t_.net, *t_.model, 1, in.src_ids + b * S, SourceRanges{&zero, &len}, cb.enc,
                                  t_.buf.dec, t_.dims.src_rows, t_.prof, b * S));
      return true;
    }
  }

  void Finished(size_t b, bool cancelled) override {
    const BatchBuffers& in = t_.buf.batch;
    const ResultBuffers& out = t_.buf.results;
    const ContinuousCallBuffers& cb = t_.buf.continuous;
    const size_t S = t_.dims.src;
    if (cancelled) SetSentenceError(out, in, b, StatusCode::kCancelled, "cancelled by the caller");
    TranslationResult& r = out.results[b];
    r.source_ids = Span<const uint32_t>(in.staged_ids + b * S, in.in_len[b]);
    if (!cb.by_ids[b]) {
      r.source_spans = Span<const TextSpan>(in.src_spans + b * S, in.in_len[b]);
      if (r.ok()) DetokenizeResult(t_, b);
    }
    source_.Done(cb.tags[b], r);
  }

 private:
  static constexpr char kProtected[] =
      "a URL, an e-mail address or a placeholder that auto_protect keeps: a continuous call does not take texts apart "
      "(translate it with Translate)";
  static constexpr char kSeveral[] = "several sentences: a continuous call does not split texts (translate it with Translate)";

  // With split_sentences (and ICU), whether `text` holds more than one sentence (Translate would split it).
  Result<bool> SeveralSentences(std::string_view text) {
    if (!options_.split_sentences || !SentenceSplitter::Available()) return false;
    return t_.paragraphs.Prepare(t_.model->source_lang(), Span<const std::string_view>(&text, 1));
  }

  Translator::Impl& t_;
  SentenceSource& source_;
  const TranslateOptions& options_;
  const ResolvedOptions& o_;
};

}  // namespace

void DeclareContinuousBuffers(const Dims& d, ContinuousCallBuffers* b, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kDec = Phase::kDecoder;
  DeclareSentenceEncoderBuffers(d, &b->enc, plan);
  plan->Add(&b->start_step, "continuous.start_step", d.batch, kEnc, kDec);
  plan->Add(&b->positions, "continuous.positions", d.rows, kEnc, kDec);
  plan->Add(&b->tags, "continuous.tags", d.batch, kEnc, kDec);
  plan->Add(&b->by_ids, "continuous.by_ids", d.batch, kEnc, kDec);
}

Status TranslateContinuous(Translator::Impl& t, Call& call, SentenceSource& source, const TranslateOptions& options) {
  if (!t.dims.continuous)
    return Status(StatusCode::kInvalidArgument, "TranslateContinuous: the Translator was created without "
                                                "TranslatorConfig::continuous_batching");
  TERN_RETURN_IF_ERROR(CheckContinuousOptions(t, options));
  TERN_RETURN_IF_ERROR(CheckTargetLang(t, options.target_lang));
  TERN_ASSIGN_OR_RETURN(const ResolvedOptions o, ResolveOptions(t.model->generation(), t.dims, t.dims.batch, options, t.alignment_layer));
  call.stream.Begin(options, t.tokenizer.get(), nullptr, 0, 0, nullptr, nullptr, nullptr);  // the abort check only
  SearchContext ctx = CallSearchContext(t, o);
  ctx.stream = options.abort ? &call.stream : nullptr;
  const ScopedRules rules_for(t.processors, CallLogitsRules(t, o));
  BeamSearch beam;
  GreedySearch greedy;
  SearchStrategy& strategy = o.beam > 1 ? static_cast<SearchStrategy&>(beam) : greedy;
  Feed feed(t, source, options, o);
  const ContinuousCallBuffers& cb = t.buf.continuous;
  return RunContinuous(ctx, t.dims.batch, t, strategy, feed, ContinuousBuffers{cb.start_step.data(), cb.positions.data()});
}

}  // namespace tern
