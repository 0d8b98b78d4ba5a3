#include "session/forced_call.h"

#include "session/session.h"

#include <string>

namespace tern {

void StageForced(Translator::Impl& t, const ForcedInput& f, const ResolvedOptions& o, size_t i) {
  BatchBuffers& in = t.buf.batch;
  const ResultBuffers& out = t.buf.results;
  in.forced_len[i] = 0;
  if (f.empty()) return;
  uint32_t* dst = in.forced_ids + i * t.dims.tgt;
  size_t n = 0;
  if (!f.texts.empty()) {
    if (f.texts[i].empty() && !f.scored) return;
    const Status s = t.target_tokenizer->Encode(f.texts[i], {}, dst, t.dims.tgt, &n);
    if (!s.ok())
      return SetSentenceError(out, in, i, s.code(), "%s: %s", f.what,
                              s.code() == StatusCode::kResourceExhausted ? "more target tokens than max_target_tokens"
                                                                         : s.message().c_str());
    --n;  // Encode appends </s>
  } else {
    const Span<const uint32_t> ids = f.ids[i];
    if (ids.size() >= t.dims.tgt)
      return SetSentenceError(out, in, i, StatusCode::kResourceExhausted, "%s: %zu tokens and </s> exceed max_target_tokens %zu",
                              f.what, ids.size(), t.dims.tgt);
    const uint32_t vocab = t.model->hparams().target_vocab_size, eos = t.model->hparams().eos_id;
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= vocab)
        return SetSentenceError(out, in, i, StatusCode::kInvalidArgument,
                                "%s: id %u at position %zu is outside the target vocabulary (%u)", f.what, ids[k], k, vocab);
      if (ids[k] == eos)
        return SetSentenceError(out, in, i, StatusCode::kInvalidArgument, "%s: </s> at position %zu (give the tokens before it)",
                                f.what, k);
      dst[k] = ids[k];
    }
    n = ids.size();
  }
  const uint32_t cap = SentenceCap(o, in.in_len[i]);
  if (n + 1 > cap)
    return SetSentenceError(out, in, i, StatusCode::kResourceExhausted,
                            "%s: %zu tokens and </s> exceed this sentence's cap of %u generated tokens (max_length or "
                            "max_length_ratio)",
                            f.what, n, cap);
  in.forced_len[i] = static_cast<uint32_t>(n);
}

Status Translator::Impl::LoadTargetTokenizer() {
  if (target_tokenizer) return Status::Ok();
  TERN_ASSIGN_OR_RETURN(target_tokenizer, Tokenizer::Shared(*model, Tokenizer::Side::kTarget));
  return Status::Ok();
}

namespace {

// Score's options: one greedy row per sentence through its target, every token scored, no shortlist (the
// target's tokens need their columns), one sentence per text; the caps and the rules as a translate call's.
Result<TranslateOptions> ScoreOptions(const TranslateOptions& options, size_t sources, size_t targets) {
  if (sources != targets)
    return Status(StatusCode::kInvalidArgument, "score: " + std::to_string(sources) + " sources and " +
                                                    std::to_string(targets) + " targets (one target per source)");
  if (options.markup != Markup::kNone || options.keep_placeholders || !options.keep_spans.empty() ||
      !options.target_prefix.empty() || !options.target_prefix_ids.empty() || options.glossary || options.alternatives)
    return Status(StatusCode::kInvalidArgument,
                  "score: markup, keep_placeholders, keep_spans, target_prefix, glossary and alternatives do not apply to scoring");
  TranslateOptions o = options;
  o.beam_size = 1;
  o.n_best = 1;
  o.return_scores = true;
  o.use_shortlist = false;
  o.split_sentences = false;
  return o;
}

}  // namespace

Status Translator::Impl::Score(Call& call, Span<const std::string_view> sources, Span<const std::string_view> targets) {
  TERN_ASSIGN_OR_RETURN(const TranslateOptions o, ScoreOptions(*call.options, sources.size(), targets.size()));
  OptionsScope scope(call, o);
  ForcedInput f;
  f.texts = targets;
  f.scored = true;
  f.what = "target";
  call.origins = nullptr;
  return TranslateTexts(call, sources, &f);
}

Status Translator::Impl::ScoreIds(Call& call, Span<const Span<const uint32_t>> sources, Span<const Span<const uint32_t>> targets) {
  TERN_ASSIGN_OR_RETURN(const TranslateOptions o, ScoreOptions(*call.options, sources.size(), targets.size()));
  OptionsScope scope(call, o);
  ForcedInput f;
  f.ids = targets;
  f.scored = true;
  f.what = "target";
  return TranslateIds(call, sources, &f);
}

}  // namespace tern
