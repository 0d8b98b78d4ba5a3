#include "session/call_checks.h"

#include <string>

#include "session/batch.h"

namespace tern {

void MatchGlossary(Translator::Impl& t, const Glossary& g, const SourceText& source, const ResolvedOptions& o, size_t i) {
  BatchBuffers& in = t.buf.batch;
  in.constraints.word_inside = g.impl().target_inside.data();
  if (!MatchTerms(g.impl(), source, in.constraints, i)) {
    SetSentenceError(t.buf.results, in, i, StatusCode::kResourceExhausted,
                     "glossary terms exceed %zu occurrences or %zu target tokens in one sentence", kMaxConstraints,
                     kMaxConstraintTokens);
    return;
  }
  const SentenceConstraints sc = ConstraintsOf(in.constraints, i);
  uint32_t need = 0;
  for (uint32_t c = 0; c < sc.n; ++c) need += sc.len[c];
  const uint32_t cap = SentenceCap(o, in.in_len[i]);
  if (sc.n && need + 1 > cap)  // the last position belongs to </s>
    SetSentenceError(t.buf.results, in, i, StatusCode::kResourceExhausted,
                     "glossary terms need %u target tokens; this sentence may generate %u (max_length or "
                     "max_length_ratio), </s> included",
                     need, cap);
}

// A glossary holds the token ids of the model it was made for: another vocabulary fails the call.
Status CheckGlossary(const Translator::Impl& t, const Glossary& g) {
  const Glossary::Impl& G = g.impl();
  if (t.vocab_fingerprint == 0) t.vocab_fingerprint = VocabFingerprint(*t.model);  // the first call with a glossary
  if (G.vocab_fingerprint == t.vocab_fingerprint) return Status::Ok();
  return Status(StatusCode::kInvalidArgument,
                "glossary: made for a model with other vocabularies (" + std::to_string(G.source_vocab_size) + " source and " +
                    std::to_string(G.target_vocab_size) + " target pieces; this Translator's model has " +
                    std::to_string(t.model->hparams().source_vocab_size) + " and " + std::to_string(t.model->hparams().target_vocab_size) +
                    ", or pieces that differ): a glossary holds its model's token ids");
}

Status CheckMarkup(const TranslateOptions& options) {
  const bool keep = options.keep_placeholders || !options.keep_spans.empty();
  TERN_RETURN_IF_ERROR(CheckOptionRanges(options));  // the field table's rules (markup's value among them)
  if ((options.markup != Markup::kNone || keep) && options.on_token)
    return Status(StatusCode::kInvalidArgument, keep ? "do-not-translate spans cannot be combined with on_token: they go back in "
                                                       "when a sentence is complete"
                                                     : "markup cannot be combined with on_token: tags go in when a sentence is complete");
  return Status::Ok();
}

Status Translator::Impl::CheckOptions(const TranslateOptions& options) const {
  TERN_RETURN_IF_ERROR(ResolveOptions(model->generation(), dims, 0, options, alignment_layer).status());
  TERN_RETURN_IF_ERROR(CheckMarkup(options));
  const bool prefixed = !options.target_prefix.empty() || !options.target_prefix_ids.empty();
  if (prefixed && (options.markup != Markup::kNone || options.keep_placeholders || !options.keep_spans.empty()))
    return Status(StatusCode::kInvalidArgument, "target_prefix is for plain texts: not with markup, keep_placeholders or keep_spans");
  if (options.glossary) TERN_RETURN_IF_ERROR(CheckGlossary(*this, *options.glossary));
  if (options.alternatives) TERN_RETURN_IF_ERROR(CheckAlternatives(dims, 0, options));
  return Status::Ok();
}

}  // namespace tern
