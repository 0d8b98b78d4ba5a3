#include "session/attention_pass.h"

#include <algorithm>
#include <cstring>

#include "session/session.h"

namespace tern {

void DeclareAttentionBuffers(const Dims& d, AttentionBuffers* a, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kDec = Phase::kDecoder;
  const uint64_t rows = d.rows, T = d.tgt, S = d.src;
  plan->Add(&a->out, "attention.out", uint64_t{d.batch} * d.n_best * T * S, kEnc, kDec);
  plan->Add(&a->step, "attention.step", rows * S, kDec, kDec);
  plan->Add(&a->hyp_row, "attention.hyp_row", rows, kDec, kDec);
  plan->Add(&a->hyp_sentence, "attention.hyp_sentence", rows, kDec, kDec);
  plan->Add(&a->slots, "attention.slots", rows, kDec, kDec);
  plan->Add(&a->sentences, "attention.sentences", rows, kDec, kDec);
  plan->Add(&a->tokens, "attention.tokens", rows, kDec, kDec);
  plan->Add(&a->ancestry, "attention.ancestry", rows * T, kDec, kDec);
}

Status AttentionPass(Translator::Impl& t, size_t n_valid, const VocabMap& columns, int alignment_layer) {
  const Dims& d = t.dims;
  const AttentionBuffers& a = t.buf.attention;
  const BatchBuffers& in = t.buf.batch;
  const ResultBuffers& out = t.buf.results;
  const size_t T = d.tgt, S = d.src;
  size_t m = 0, longest = 0;  // hypotheses (<= batch x n_best <= rows), the longest one's tokens
  for (size_t b = 0; b < n_valid; ++b) {
    const size_t i = in.order[b];
    const TranslationResult& r = out.results[i];
    if (!r.ok()) continue;
    for (size_t k = 0; k < r.hypotheses.size(); ++k) {
      a.hyp_row[m] = static_cast<uint32_t>(i * d.n_best + k);
      a.hyp_sentence[m] = static_cast<uint32_t>(b);
      longest = std::max(longest, r.hypotheses[k].tokens.size());
      for (size_t p = 0; p < T; ++p) a.ancestry[m * T + p] = static_cast<uint32_t>(m);
      ++m;
    }
  }
  StepRequest req;
  req.attention = a.step, req.alignment_layer = alignment_layer;
  req.slots = a.slots, req.sentences = a.sentences, req.tokens = a.tokens, req.ancestry = a.ancestry;
  req.columns = &columns;
  req.want_alignment = true;
  const uint32_t start = t.model->hparams().decoder_start_id;
  for (size_t pos = 0; pos < longest; ++pos) {
    size_t n = 0;
    for (size_t j = 0; j < m; ++j) {
      const Hypothesis& h = out.hypotheses[a.hyp_row[j]];
      if (pos >= h.tokens.size()) continue;
      a.slots[n] = static_cast<uint32_t>(j), a.sentences[n] = a.hyp_sentence[j];
      a.tokens[n] = pos == 0 ? start : h.tokens[pos - 1];
      ++n;
    }
    req.pos = pos, req.n = n;
    const Result<StepOutput> step = t.Decode(req);
    if (!step.ok()) return step.status();
    for (size_t i = 0; i < n; ++i) {
      const size_t j = a.slots[i], len = in.src_len[a.hyp_sentence[j]];
      std::memcpy(a.out + a.hyp_row[j] * T * S + pos * len, a.step + i * S, len * sizeof(float));
    }
  }
  for (size_t j = 0; j < m; ++j) {
    Hypothesis& h = out.hypotheses[a.hyp_row[j]];
    h.attention = Span<const float>(a.out + a.hyp_row[j] * T * S, h.tokens.size() * in.src_len[a.hyp_sentence[j]]);
  }
  return Status::Ok();
}

}  // namespace tern
