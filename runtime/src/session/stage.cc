// Pieces of a call shared by the static and the continuous calls (session.h): staging ids and texts,
// detokenizing a result, checking target_lang.
#include <algorithm>
#include <cstring>
#include <string>

#include "model/model_impl.h"
#include "session/session.h"

namespace tern {

void StageIds(Translator::Impl& t, size_t i, Span<const uint32_t> given, const TranslateOptions& options) {
  const BatchBuffers& in = t.buf.batch;
  const ResultBuffers& out = t.buf.results;
  const Dims& dims = t.dims;
  const uint32_t src_vocab = t.model->hparams().source_vocab_size;
  if (given.size() == 0) return SetSentenceError(out, in, i, StatusCode::kInvalidArgument, "no source ids (at least </s> is needed)");
  // max_input_length: the first ids and then </s> (the caller's last id, which is its </s>).
  const size_t cut = options.max_input_length ? std::min<size_t>(options.max_input_length, dims.src) : 0;
  const Span<const uint32_t> s(given.data(), cut && given.size() > cut ? cut : given.size());
  if (s.size() > dims.src)
    return SetSentenceError(out, in, i, StatusCode::kResourceExhausted, "%zu source tokens exceed max_source_tokens %zu",
                            s.size(), dims.src);
  for (size_t k = 0; k <= s.size(); ++k) {  // and the last id given, which a cut source ends with
    const size_t at = k < s.size() ? k : given.size() - 1;
    if (given[at] >= src_vocab)
      return SetSentenceError(out, in, i, StatusCode::kInvalidArgument,
                              "id %u at position %zu is outside the source vocabulary (%u)", given[at], at, src_vocab);
  }
  std::memcpy(in.staged_ids + i * dims.src, s.data(), s.size() * sizeof(uint32_t));
  if (s.size() < given.size()) in.staged_ids[i * dims.src + s.size() - 1] = given[given.size() - 1];
  in.in_len[i] = static_cast<uint32_t>(s.size());
}

Staged StageText(Translator::Impl& t, size_t i, std::string_view text, const TranslateOptions& options, bool forced) {
  const BatchBuffers& in = t.buf.batch;
  const ResultBuffers& out = t.buf.results;
  const size_t S = t.dims.src;
  if (!forced && text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) {
    // Nothing to translate: an empty translation, without running the model. Not when the input has forced
    // tokens (a scored target, a target prefix): they are decoded from the source `</s>` alone.
    Hypothesis& h = out.hypotheses[i * t.dims.n_best];
    h = Hypothesis();
    out.results[i].hypotheses = Span<const Hypothesis>(&h, 1);
    in.sentence_ok[i] = 0;
    return Staged::kEmpty;
  }
  size_t len = 0;
  const Status s = t.tokenizer->Encode(text, options.target_lang, in.staged_ids + i * S, S, &len, in.src_spans + i * S,
                                       options.max_input_length);
  if (!s.ok()) {
    SetSentenceError(out, in, i, s.code(), "%s", s.message().c_str());
    return Staged::kFailed;
  }
  in.in_len[i] = static_cast<uint32_t>(len);
  return Staged::kIds;
}

void DetokenizeResult(Translator::Impl& t, size_t i) {
  const ResultBuffers& out = t.buf.results;
  TranslationResult& r = out.results[i];
  for (size_t k = 0; k < r.hypotheses.size(); ++k) {
    Hypothesis& h = const_cast<Hypothesis&>(r.hypotheses[k]);
    const size_t row = i * t.dims.n_best + k;
    char* text = out.out_text + row * t.dims.text_bytes;
    TextSpan* spans = out.token_spans + row * t.dims.tgt;
    const size_t len = t.tokenizer->Decode(h.tokens.data(), h.tokens.size(), text, t.dims.text_bytes, spans, out.decode_scratch);
    h.text = std::string_view(text, len);
    h.token_spans = Span<const TextSpan>(spans, h.tokens.size());
  }
}

Status CheckTargetLang(const Translator::Impl& t, std::string_view target_lang) {
  if (target_lang.empty()) return Status::Ok();
  const std::string code = LanguageCode(target_lang);
  const auto& langs = t.model->language_tokens();
  if (std::find(langs.begin(), langs.end(), code) != langs.end()) return Status::Ok();
  std::string have;
  for (std::string_view l : langs) have += (have.empty() ? "" : ", ") + std::string(l);
  return Status(StatusCode::kInvalidArgument, "target_lang '" + std::string(target_lang) + "': the model has no " + code +
                                                  " token (" + (have.empty() ? "it has no language tokens" : "it has " + have) + ")");
}

namespace {

// o's logits rules, with the options that act on them applied.
LogitsRules CallLogitsRules(const Translator::Impl& t, const ResolvedOptions& o) {
  LogitsRules rules = o.rules;
  rules.suppress_token = o.disable_unk ? t.model->hparams().unk_id : UINT32_MAX;
  return rules;
}

}  // namespace

SearchContext CallSearchContext(Translator::Impl& t, Call& call, const ResolvedOptions& o) {
  const Hyperparameters& hp = t.model->hparams();
  const BatchBuffers& in = t.buf.batch;
  const SearchOptions& opt = o;  // the resolved options' search part, as it is
  SearchContext ctx{t.dims,
                    SentenceInfo{in.order.data(), in.max_len.data(), in.src_len.data()},
                    t.buf.search,
                    t.buf.results,
                    t.processors,
                    o.call_processors,
                    FinishedSet<TrackPlanes>(t.buf.search.finished, o.beam, t.dims.tgt, o.hf_rules),
                    t.prof,
                    hp.eos_id,
                    hp.decoder_start_id,
                    opt,
                    /*n_sentences=*/0,
                    /*logits=*/nullptr,
                    /*vocab=*/IdentityMap(t.dims.vocab, t.processors.mask()),
                    /*stream=*/nullptr,
                    /*origins=*/nullptr};
  ctx.end_tokens = o.rules.end_tokens;
  call.rules.Build(CallLogitsRules(t, o), hp.eos_id);
  ctx.rules = &call.rules;
  return ctx;
}

}  // namespace tern
