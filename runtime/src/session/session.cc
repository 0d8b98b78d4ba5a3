#include "session/session.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "model/model_impl.h"
#include "nn/decoder.h"
#include "nn/encoder.h"
#include "search/expand.h"
#include "search/run.h"
#include "markup/protect.h"
#include "session/call_checks.h"
#include "session/continuous_call.h"
#include "terms/glossary_impl.h"

namespace tern {
namespace {

// The shared shape of a translate call: resolve options, reset each result, stage sentence i with
// stage(i) (which copies its ids to staged_ids/in_len or records its error), match the glossary on
// source_of(i) (the sentence's text), stage its forced target tokens (target prefix, or a scored target),
// translate the batch.
template <typename StageFn, typename SourceFn>
Status RunCall(Translator::Impl& t, Call& call, size_t n, const ForcedInput& forced, StageFn stage, SourceFn source_of) {
  const TranslateOptions& options = *call.options;
  TERN_ASSIGN_OR_RETURN(ResolvedOptions o, ResolveOptions(t.model->generation(), t.dims, n, options, t.alignment_layer));
  if (options.glossary) TERN_RETURN_IF_ERROR(CheckGlossary(t, *options.glossary));
  o.forced = !forced.empty();
  o.scored = forced.scored;
  if (!forced.texts.empty()) TERN_RETURN_IF_ERROR(t.LoadTargetTokenizer());
  for (size_t i = 0; i < n; ++i) {
    // The abort check applies while inputs are staged too (tokenizing a long text takes time in proportion
    // to it): every sentence of the call then fails as cancelled, none having been translated.
    if (options.abort && options.abort(options.abort_user_data)) {
      for (size_t j = 0; j < n; ++j) {
        if (j >= i) t.buf.results.results[j] = TranslationResult();
        SetSentenceError(t.buf.results, t.buf.batch, j, StatusCode::kCancelled, "cancelled by the caller");
      }
      return Status(StatusCode::kCancelled, "cancelled");
    }
    t.buf.results.results[i] = TranslationResult();
    t.buf.batch.sentence_ok[i] = 1;
    t.buf.batch.constraints.count[i] = 0;
    t.buf.batch.forced_len[i] = 0;
    stage(i);
    if (options.glossary && t.buf.results.results[i].ok() && t.buf.batch.sentence_ok[i])
      MatchGlossary(t, *options.glossary, source_of(i), o, i);
    if (o.forced && t.buf.results.results[i].ok() && t.buf.batch.sentence_ok[i]) StageForced(t, forced, o, i);
  }
  const size_t valid = PackBatch(t.dims, t.buf.batch, n, o);
  if (valid == 0) return Status::Ok();
  // Streaming: each sentence's text so far goes to its first result text slot (rewritten at the end).
  for (size_t i = 0; i < n; ++i) t.buf.search.stream_emitted[i] = 0;
  call.stream.Begin(options, t.tokenizer.get(), t.buf.results.out_text, t.dims.n_best * t.dims.text_bytes,
                    t.dims.text_bytes, t.buf.search.stream_emitted, t.buf.batch.order, call.origins);
  call.streaming = options.on_token != nullptr || options.abort != nullptr;
  return t.TranslateStaged(call, valid, o);
}

SourceRanges Sources(const BatchBuffers& in) { return SourceRanges{in.src_off.data(), in.src_len.data()}; }

}  // namespace

Result<StepOutput> Translator::Impl::Decode(const StepRequest& r) {
  // Each step runs on the pool or on this thread alone, whichever the measured step times favour.
  const ThreadPolicy::Way way = threads.Next();
  bool pooled = way != ThreadPolicy::Way::kSingle;
  if (way == ThreadPolicy::Way::kProbePool && net->PingPool() > ThreadPolicy::kStall) threads.PoolStalled(), pooled = false;
  net->SetPooled(pooled);
  DecodeRows rows;
  rows.pos = r.pos;
  rows.positions = r.positions;
  rows.n = r.n;
  rows.slots = r.slots;
  rows.sentences = r.sentences;
  rows.tokens = r.tokens;
  rows.ancestry = r.ancestry;
  rows.columns = OutputColumns{r.columns->tokens, r.columns->size};
  rows.alignment_layer = r.want_alignment ? r.alignment_layer : -1;
  rows.attention = r.attention, rows.attention_stride = dims.src;
  rows.coverage_attention = r.coverage_attention;
  const auto t0 = std::chrono::steady_clock::now();
  TERN_RETURN_IF_ERROR(DecodeStep(*net, *model, dims, rows, Sources(buf.batch), buf.dec, prof));
  threads.Report(pooled, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), r.n);
  if (!pooled) prof.profile.single_thread_steps++;
  StepOutput out;
  out.logits = buf.dec.logits.data();
  out.logits_max = net->LogitsMaxFused(rows.columns) ? buf.dec.logits_max.data() : nullptr;
  out.alignment = rows.alignment_layer >= 0 ? buf.dec.alignment.data() : nullptr;
  return out;
}

Status Translator::Impl::TranslateStaged(Call& call, size_t n_valid, const ResolvedOptions& o) {
  const BatchBuffers& in = buf.batch;
  net->SetPooled(threads.pooled());
  TERN_RETURN_IF_ERROR(Encode(*net, *model, n_valid, in.src_ids, Sources(in), buf.enc, buf.dec, dims.src_rows, prof));
  const Hyperparameters& hp = model->hparams();
  bool constrained = false;
  for (size_t b = 0; b < n_valid; ++b) constrained |= in.constraints.count[in.order[b]] > 0;
  SearchContext ctx = CallSearchContext(*this, call, o);
  if (constrained) ctx.opt.want_alignment = true;  // a constraint is offered where the alignment reaches its term
  ctx.stream = call.streaming ? &call.stream : nullptr;
  ctx.origins = call.origins;
  ctx.sampling_keys = o.sampling_keys.empty() ? nullptr : o.sampling_keys.data();
  ctx.key_group = call.alternatives;
  const PackedSources sources{in.src_ids.data(), in.src_off.data(), in.src_len.data(), n_valid};
  ctx.constraints = constrained ? &in.constraints : nullptr;
  const ForcedTokens forced{in.forced_ids.data(), in.forced_len.data(), dims.tgt, o.scored};
  ctx.forced = o.forced ? &forced : nullptr;
  if (dims.shortlist && o.use_shortlist && !constrained)
    ctx.vocab = BuildShortlistMap(model->impl().shortlist(), sources, hp.eos_id, processors.mask(), dims.vocab, buf.vocab);
  BeamSearch beam;
  GreedySearch greedy;
  ExpandSearch expand_search(Expansions{buf.alternatives.token, buf.alternatives.logprob, buf.alternatives.count, dims.n_best, call.expand});
  SearchStrategy& strategy = call.expand ? static_cast<SearchStrategy&>(expand_search)
                             : o.beam > 1 ? static_cast<SearchStrategy&>(beam) : greedy;
  BatchSlots batch(ctx, n_valid);
  Status st = RunSearch(ctx, n_valid, *this, strategy, batch);
  if (st.ok() && o.want_attention && !call.expand) st = AttentionPass(*this, n_valid, ctx.vocab, o.alignment_layer);
  for (size_t b = 0; b < n_valid; ++b) {
    const size_t i = in.order[b];
    buf.results.results[i].source_ids = Span<const uint32_t>(in.staged_ids + i * dims.src, in.in_len[i]);
  }
  if (st.code() == StatusCode::kCancelled) {
    for (size_t b = 0; b < n_valid; ++b)
      if (!buf.search.done[b])
        SetSentenceError(buf.results, in, in.order[b], StatusCode::kCancelled, "cancelled by the caller");
  }
  return st;
}

Status Translator::Impl::Run(Call& call) {
  const CallRequest& r = call.request;
  call.options = r.options;
  call.markup = &markup;
  call.paragraphs = &paragraphs;
  switch (r.kind) {
    case CallRequest::Kind::kTranslate: return Translate(call, r.texts);
    case CallRequest::Kind::kTranslateIds: return TranslateIds(call, r.ids);
    case CallRequest::Kind::kScore: return Score(call, r.texts, r.target_texts);
    case CallRequest::Kind::kScoreIds: return ScoreIds(call, r.ids, r.target_ids);
    case CallRequest::Kind::kContinuous: return tern::TranslateContinuous(*this, call, *r.source);
  }
  return Status(StatusCode::kInternal, "Translator: a call of no kind");
}

Status Translator::Impl::TranslateIds(Call& call, Span<const Span<const uint32_t>> sources, const ForcedInput* scored) {
  const BatchBuffers& in = buf.batch;
  const ResultBuffers& out = buf.results;
  const TranslateOptions& options = *call.options;
  call.origins = nullptr;
  if (options.alternatives && !scored) return TranslateAlternatives(call, {}, sources, false);
  const Status st = RunCall(*this, call, sources.size(), scored ? *scored : ForcedInput::Of(options), [&](size_t i) {
    StageIds(*this, i, sources[i], options);
  }, [&](size_t i) {  // a glossary matches the text the pieces spell
    SourceText src;
    src.spans = in.src_spans + i * dims.src;
    src.n = in.in_len[i];
    const size_t len = tokenizer->PiecesText(in.staged_ids + i * dims.src, src.n, in.ids_text, dims.src_text_bytes,
                                             in.src_spans + i * dims.src);
    src.text = std::string_view(in.ids_text.data(), len);
    return src;
  });
  if (!HasResults(st)) return st;
  call.results = Span<const TranslationResult>(out.results, sources.size());
  return st;
}

Status Translator::Impl::TranslateTexts(Call& call, Span<const std::string_view> texts, const ForcedInput* scored) {
  const BatchBuffers& in = buf.batch;
  const ResultBuffers& out = buf.results;
  const TranslateOptions& options = *call.options;
  const size_t n = texts.size();
  TERN_RETURN_IF_ERROR(CheckTargetLang(*this, options.target_lang));  // a language the model lacks fails the call
  const ForcedInput forced = scored ? *scored : ForcedInput::Of(options);
  const Status st = RunCall(*this, call, n, forced, [&](size_t i) {
    StageText(*this, i, texts[i], options, forced.Has(i));
  }, [&](size_t i) {
    SourceText src;
    src.text = texts[i];
    src.from = LeadingLanguageCode(texts[i]).size();
    src.spans = in.src_spans + i * dims.src;
    src.n = in.in_len[i];
    return src;
  });
  if (!HasResults(st)) return st;
  // Detokenize every hypothesis into the arena's text buffer, with each token's bytes in it.
  for (size_t i = 0; i < n; ++i) {
    TranslationResult& r = out.results[i];
    if (!r.ok() || !in.sentence_ok[i]) continue;
    r.source_spans = Span<const TextSpan>(in.src_spans + i * dims.src, in.in_len[i]);
    DetokenizeResult(*this, i);
    if (options.replace_unknowns) ReplaceUnknowns(*this, i, texts[i]);
  }
  call.results = Span<const TranslationResult>(out.results, n);
  return st;
}

namespace {

// Paragraphs' engine: a chunk of sentences through TranslateTexts, splitting off.
class SentenceEngine : public Paragraphs::Engine {
 public:
  SentenceEngine(Translator::Impl& t, Call& call, const TranslateOptions& o) : t_(t), call_(call), o_(o), ids_(t.dims.src) {
    o_.split_sentences = false;
  }
  Status TranslateSentences(Span<const std::string_view> sentences, const TokenStream::Origin* origins,
                            Span<const TranslationResult>* out) override {
    OptionsScope scope(call_, o_);
    call_.origins = origins;
    const Status s = t_.TranslateTexts(call_, sentences);
    call_.origins = nullptr;
    *out = call_.results;
    return s;
  }
  Status CheckSentence(std::string_view s) override {
    if (s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return Status::Ok();
    size_t len = 0;
    return t_.tokenizer->Encode(s, o_.target_lang, ids_.data(), ids_.size(), &len, nullptr, o_.max_input_length);
  }

 private:
  Translator::Impl& t_;
  Call& call_;
  TranslateOptions o_;
  std::vector<uint32_t> ids_;  // scratch for CheckSentence
};

}  // namespace

// The text pipeline as stages over the call's texts (no stage calls Translate again):
//   protect (markup, placeholders and keep_spans out: plain texts) -> split (paragraphs into sentences) ->
//   translate (tokenize, the model, detokenize: TranslateTexts) -> join (sentences back into texts) ->
//   restore (markup and spans back into the translations).
Status Translator::Impl::Translate(Call& call, Span<const std::string_view> texts) {
  const TranslateOptions& options_in = *call.options;
  if (texts.size() > dims.batch)
    return Status(StatusCode::kInvalidArgument, std::to_string(texts.size()) + " sentences exceed max_batch " + std::to_string(dims.batch));
  call.origins = nullptr;
  // auto_protect: a call whose texts hold a URL, an e-mail address or a printf or brace placeholder keeps
  // them as keep_placeholders would (texts without one come out as without it: the protect stage leaves
  // them as they are).
  uint32_t auto_syntaxes = 0;
  for (std::string_view t : texts) auto_syntaxes |= markup::AutoProtectSyntaxes(options_in, t);
  TranslateOptions protected_options;
  if (auto_syntaxes) {
    protected_options = options_in;
    protected_options.keep_placeholders = true;
    protected_options.placeholder_syntaxes = auto_syntaxes;
  }
  const TranslateOptions& options = auto_syntaxes ? protected_options : options_in;
  OptionsScope protect(call, options);
  const bool keep = options.keep_placeholders || !options.keep_spans.empty();
  const bool prefixed = !options.target_prefix.empty() || !options.target_prefix_ids.empty();
  if (options.alternatives) return TranslateAlternatives(call, texts, {}, true);
  if (prefixed) TERN_RETURN_IF_ERROR(CheckOptions(options));
  if (prefixed) return TranslateTexts(call, texts);  // a prefix continues one sentence: no splitting
  // Stage 1, protect.
  const bool marked = options.markup != Markup::kNone || keep;
  TranslateOptions plain = options;
  if (marked) {
    TERN_RETURN_IF_ERROR(CheckMarkup(options));
    for (const KeepSpan& k : options.keep_spans)
      if (k.text >= texts.size())
        return Status(StatusCode::kInvalidArgument, "keep_spans: text " + std::to_string(k.text) + " of " + std::to_string(texts.size()));
    call.markup->Prepare(texts, options);
    texts = call.markup->plain();
    plain.markup = Markup::kNone;
    plain.keep_placeholders = false;
    plain.keep_spans = {};
    plain.return_alignment = true;
  }
  // Stages 2-4, split, translate, join.
  Status st = Status::Ok();
  bool several = false;
  if (plain.split_sentences && SentenceSplitter::Available()) {
    TERN_ASSIGN_OR_RETURN(several, call.paragraphs->Prepare(splitter, model->source_lang(), texts));
  }
  if (several) {
    SentenceEngine engine(*this, call, plain);
    Span<const TranslationResult> joined;
    st = call.paragraphs->Translate(engine, dims.batch, &joined);
    call.results = joined;
  } else {
    OptionsScope unmarked(call, plain);
    st = TranslateTexts(call, texts);
  }
  if (!HasResults(st)) return st;
  // Stage 5, restore.
  if (marked) call.results = call.markup->Finish(call.results);
  return st;
}

}  // namespace tern
