#include "search/search.h"

#include <algorithm>
#include <cstring>

#include "search/coverage.h"
#include "search/track_copy.h"

namespace tern {

void FinishSentence(SearchContext& c, size_t b) {
  const size_t T = c.dims.tgt;
  {
    const size_t input = c.in.order[b];
    const uint32_t count = c.hyps.count(b);
    uint32_t idx[kMaxBeam];  // count <= beam <= kMaxBeam (ResolveDims)
    c.hyps.Ranked(b, idx);
    const uint32_t k_out = std::min<uint32_t>(c.opt.n_best, count);
    for (uint32_t k = 0; k < k_out; ++k) {
      const uint32_t h = idx[k];
      const size_t row = input * c.dims.n_best + k;
      const uint32_t len = c.hyps.length(b, h);
      CopyTrackRow(c.out.tracks, row, c.hyps.planes(), c.hyps.row(b, h), len, T);
      const uint32_t ids = c.hyps.ended_eos(b, h) ? len - 1 : len;
      Hypothesis& out = c.out.hypotheses[row];
      out = Hypothesis();
      out.ids = Span<const uint32_t>(c.out.tracks.token + row * T, ids);
      out.score = c.opt.want_scores ? c.hyps.score(b, h) : 0.f;
#define TERN_BIND(Type, ch, member) out.member = Span<const Type>(c.out.tracks.ch + row * T, len);
      TERN_RESULT_CHANNELS(TERN_BIND)
#undef TERN_BIND
      if (!c.opt.want_scores) std::fill(c.out.tracks.logprob + row * T, c.out.tracks.logprob + row * T + len, 0.f);
      // A generated </s> aligns to the source's </s> (the decoder's alignment leaves that one out).
      if (c.Aligned(b) && c.hyps.ended_eos(b, h) && len > 0) c.out.tracks.source[row * T + len - 1] = c.in.src_len[b] - 1;
      c.prof.profile.generated_tokens += ids;
    }
    TranslationResult& r = c.out.results[input];
    r.error = StatusCode::kOk;
    r.error_message = {};
    r.hypotheses = Span<const Hypothesis>(c.out.hypotheses + input * c.dims.n_best, k_out);
    if (count == 0 && c.s.done[b]) {  // (not done: cancelled, which the session reports)
      // Every hypothesis ended at -inf (the logits rules banned each continuation): the sentence fails
      // alone rather than return a translation no rule allowed.
      static constexpr char kNone[] = "no translation: the logits rules banned every continuation (every hypothesis scored -inf)";
      static constexpr char kBanned[] =
          "score -inf: the logits rules ban a token of this target (pad, a bad word, </s> before min_length, ...)";
      const bool scored = c.forced && c.forced->scored;
      const char* msg = scored ? kBanned : kNone;
      const size_t len = scored ? sizeof(kBanned) - 1 : sizeof(kNone) - 1;
      char* buf = c.out.out_errors + input * kErrorBytes;
      std::memcpy(buf, msg, len + 1);
      r.error = StatusCode::kInvalidArgument;
      r.error_message = std::string_view(buf, len);
    }
  }
}

size_t ActiveRows(SearchContext& c, size_t ns, size_t step, const SearchStrategy& strategy, uint32_t* positions) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, B = c.opt.beam;
  size_t n = 0;
  for (size_t b = 0; b < ns; ++b) {
    if (S.done[b]) continue;
    const size_t pos = c.Pos(b, step), live = strategy.LiveRows(c, b, pos);
    for (size_t j = 0; j < live; ++j) {
      const size_t slot = b * B + j;
      S.active[n] = static_cast<uint32_t>(slot);
      S.active_sentence[n] = static_cast<uint32_t>(b);
      S.step_tokens[n] = pos == 0 ? c.start : S.track.token[slot * T + pos - 1];
      if (positions) positions[n] = static_cast<uint32_t>(pos);
      if (pos == 0) S.beam_scores[slot] = 0.f;
      if (pos == 0) ClearCoverage(c, slot);
      ++n;
    }
  }
  return n;
}

Status DecodeAndStep(SearchContext& c, size_t n, size_t step, StepDecoder& decoder, SearchStrategy& strategy,
                     const uint32_t* positions) {
  SearchBuffers& S = c.s;
  StepRequest req;
  req.pos = step;
  req.positions = positions;
  req.n = n;
  req.slots = S.active;
  req.sentences = S.active_sentence;
  req.tokens = S.step_tokens;
  req.ancestry = S.track.kv_slot;
  req.columns = &c.vocab;
  bool align = c.opt.want_alignment && !c.aligned;
  for (size_t i = 0; i < n && !align; ++i) align = c.Aligned(S.active_sentence[i]);
  req.want_alignment = align;
  req.alignment_layer = c.opt.alignment_layer;
  if (c.opt.coverage_penalty != 0.f) req.coverage_attention = S.step_attention.data();
  TERN_ASSIGN_OR_RETURN(const StepOutput out, decoder.Decode(req));
  c.logits = out.logits;
  c.logits_max = out.logits_max;
  for (size_t i = 0; i < n; ++i)
    S.row_source[i] = out.alignment && c.Aligned(S.active_sentence[i]) ? out.alignment[i] : -1;
  strategy.Step(c, n, step);
  return Status::Ok();
}

void DeclareSearchBuffers(const Dims& d, SearchBuffers* s, ResultBuffers* r, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kDec = Phase::kDecoder;
  const uint64_t rows = d.rows, T = d.tgt, batch = d.batch, beam = d.beam;
#define TERN_NAME(T_, name) "search.track." #name,
  static const char* const kTrack[] = {TERN_TRACK_CHANNELS(TERN_NAME)};
#undef TERN_NAME
#define TERN_NAME(T_, name) "search.track_next." #name,
  static const char* const kNext[] = {TERN_TRACK_CHANNELS(TERN_NAME)};
#undef TERN_NAME
#define TERN_NAME(T_, name) "search.finished." #name,
  static const char* const kFinished[] = {TERN_TRACK_CHANNELS(TERN_NAME)};
#undef TERN_NAME
#define TERN_NAME(T_, name) "search.candidate." #name,
  static const char* const kCandidate[] = {TERN_TRACK_CHANNELS(TERN_NAME)};
#undef TERN_NAME
#define TERN_NAME(T_, name) "results.track." #name,
  static const char* const kResults[] = {TERN_TRACK_CHANNELS(TERN_NAME)};
#undef TERN_NAME
  TrackPlanes::Declare(&s->track, plan, kTrack, rows * T, kDec, kDec);
  TrackPlanes::Declare(&s->track_next, plan, kNext, rows * T, kDec, kDec);
  TrackPlanes::Declare(&s->finished.planes, plan, kFinished, batch * beam * T, kDec, kDec);
  TrackPlanes::Declare(&s->candidate, plan, kCandidate, T, kDec, kDec);
  plan->Add(&s->finished.score, "search.finished.score", batch * beam, kDec, kDec);
  plan->Add(&s->finished.length, "search.finished.length", batch * beam, kDec, kDec);
  plan->Add(&s->finished.ended_eos, "search.finished.ended_eos", batch * beam, kDec, kDec);
  plan->Add(&s->finished.count, "search.finished.count", batch, kDec, kDec);
  plan->Add(&s->beam_scores, "search.beam_scores", rows, kDec, kDec);
  plan->Add(&s->step_scores, "search.step_scores", rows, kDec, kDec);
  plan->Add(&s->step_tokens, "search.step_tokens", rows, kDec, kDec);
  plan->Add(&s->active, "search.active", rows, kDec, kDec);
  plan->Add(&s->active_sentence, "search.active_sentence", rows, kDec, kDec);
  plan->Add(&s->row_source, "search.row_source", rows, kDec, kDec);
  plan->Add(&s->done, "search.done", batch, kDec, kDec);
  plan->Add(&s->cand_score, "search.cand_score", CandidateCapacity(beam), kDec, kDec);
  plan->Add(&s->cand_logprob, "search.cand_logprob", CandidateCapacity(beam), kDec, kDec);
  plan->Add(&s->cand_token, "search.cand_token", CandidateCapacity(beam), kDec, kDec);
  plan->Add(&s->cand_beam, "search.cand_beam", CandidateCapacity(beam), kDec, kDec);
  plan->Add(&s->cand_met, "search.cand_met", CandidateCapacity(beam), kDec, kDec);
  plan->Add(&s->stream_emitted, "search.stream_emitted", batch, kEnc, kDec);
  plan->Add(&s->sample_order, "search.sample_order", d.vocab, kDec, kDec);
  if (d.attention) {  // the coverage penalty's (TranslatorConfig::attention plans it with return_attention)
    plan->Add(&s->step_attention, "search.step_attention", rows * d.src, kDec, kDec);
    plan->Add(&s->coverage, "search.coverage", rows * d.src, kDec, kDec);
    plan->Add(&s->coverage_next, "search.coverage_next", rows * d.src, kDec, kDec);
  }
  TrackPlanes::Declare(&r->tracks, plan, kResults, batch * d.n_best * T, kEnc, kDec);
  plan->Add(&r->out_text, "results.text", batch * d.n_best * d.text_bytes, kEnc, kDec);
  plan->Add(&r->token_spans, "results.token_spans", batch * d.n_best * T, kEnc, kDec);
  plan->Add(&r->decode_scratch, "results.decode_scratch", d.text_bytes, kEnc, kDec);
  plan->Add(&r->out_errors, "results.errors", batch * kErrorBytes, kEnc, kDec);
  plan->Add(&r->hypotheses, "results.hypotheses", batch * d.n_best, kEnc, kDec);
  plan->Add(&r->results, "results.results", batch, kEnc, kDec);
}

}  // namespace tern
