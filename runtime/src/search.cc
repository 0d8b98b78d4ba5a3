// Greedy and beam search with the semantics of Hugging Face transformers' generate() for Marian
// (GreedySearch / BeamSearchScorer + BeamHypotheses, early_stopping=False):
//  - greedy: argmax of the logits with pad and bad_words_ids masked; at the last allowed step only </s>
//    (forced_eos_token_id); stop at </s>. Score: sum of log-probabilities of the chosen tokens.
//  - beam: log_softmax, then the same masks (applied after log_softmax, not renormalized), add each
//    beam's running score, keep the top 2 x beam candidates of the sentence; a candidate ending in </s>
//    within the first `beam` ranks finishes with score sum_logprob / generated_len ^ length_penalty
//    (generated_len counts the </s>); the others fill the beam slots in rank order. A sentence is done
//    when `beam` hypotheses are finished and the worst of them is >= best candidate score /
//    generated_len ^ length_penalty. At the maximum length the running beams are finished as they are.
//    At step 0 only beam 0 is expanded (HF gives the other beams -1e9, which is the same thing).
//  - n-best: finished hypotheses sorted by score, best first (ties: the later one first, as HF pops
//    from a stably sorted list).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels.h"
#include "translator_impl.h"

namespace tern {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

}  // namespace

Status Translator::Impl::Search(size_t ns, uint32_t beam, float length_penalty, uint32_t n_best, bool want_scores) {
  ArenaViews& A = a;
  const size_t T = dims.tgt, V = dims.vocab;
  const uint32_t eos = hp->eos_id, start = hp->decoder_start_id;
  const bool forced_eos = model->generation().forced_eos;
  const size_t B = beam;  // slots per sentence

  for (size_t b = 0; b < ns; ++b) {
    A.done[b] = 0;
    A.hyp_count[b] = 0;
  }
  // Worst finished score per sentence (HF starts it at 1e9); kept in hyp_score's spare slot semantics.
  auto add_hyp = [&](size_t b, const uint32_t* toks, uint32_t len, float score) {
    uint32_t& count = A.hyp_count[b];
    float* scores = A.hyp_score + b * B;
    uint32_t* lens = A.hyp_len + b * B;
    uint32_t* tok = A.hyp_tokens + b * B * T;
    float worst = 1e9f;
    for (uint32_t i = 0; i < count; ++i) worst = std::min(worst, scores[i]);
    if (count < B) {
      scores[count] = score, lens[count] = len;
      std::memcpy(tok + count * T, toks, len * sizeof(uint32_t));
      ++count;
      return;
    }
    if (!(score > worst)) return;
    // Remove the worst (lowest index among equals), keep order, append the new one.
    uint32_t w = 0;
    for (uint32_t i = 1; i < count; ++i)
      if (scores[i] < scores[w]) w = i;
    for (uint32_t i = w; i + 1 < count; ++i) {
      scores[i] = scores[i + 1], lens[i] = lens[i + 1];
      std::memcpy(tok + i * T, tok + (i + 1) * T, lens[i] * sizeof(uint32_t));
    }
    scores[count - 1] = score, lens[count - 1] = len;
    std::memcpy(tok + (count - 1) * T, toks, len * sizeof(uint32_t));
  };
  auto worst_of = [&](size_t b) {
    float worst = 1e9f;
    for (uint32_t i = 0; i < A.hyp_count[b]; ++i) worst = std::min(worst, A.hyp_score[b * B + i]);
    return worst;
  };

  for (size_t pos = 0; pos < T; ++pos) {
    // Active rows: every live beam of every unfinished sentence (only beam 0 at step 0).
    size_t n = 0;
    for (size_t b = 0; b < ns; ++b) {
      if (A.done[b]) continue;
      const size_t live = pos == 0 ? 1 : B;
      for (size_t j = 0; j < live; ++j) {
        const size_t slot = b * B + j;
        A.active[n] = static_cast<uint32_t>(slot);
        A.active_sentence[n] = static_cast<uint32_t>(b);
        A.step_tokens[n] = pos == 0 ? start : A.tokens[slot * T + pos - 1];
        if (pos == 0) A.beam_scores[slot] = 0.f;
        ++n;
      }
    }
    if (n == 0) break;
    TERN_RETURN_IF_ERROR(DecodeStep(n, pos, A.step_tokens));

    auto t0 = Tick();
    if (beam == 1) {
      // Greedy.
      for (size_t i = 0; i < n; ++i) {
        const size_t slot = A.active[i], b = A.active_sentence[i];
        float* row = A.logits + i * V;
        const bool last = pos + 1 >= A.max_len[b];
        uint32_t best = eos;
        if (!(last && forced_eos)) {
          float bv = kNegInf;
          for (size_t v = 0; v < V; ++v)
            if (!bad_token[v] && row[v] > bv) bv = row[v], best = static_cast<uint32_t>(v);
        }
        if (want_scores) {
          LogSoftmaxInPlace(row, V);
          A.beam_scores[slot] += row[best];
        }
        A.tokens[slot * T + pos] = best;
        A.anc[slot * T + pos] = static_cast<uint32_t>(slot);
        if (best == eos || last) {
          add_hyp(b, A.tokens + slot * T, static_cast<uint32_t>(best == eos ? pos : pos + 1), A.beam_scores[slot]);
          A.done[b] = 1;
        }
      }
      Tock(t0, &profile.softmax_topk_ms);
      continue;
    }

    // Beam: log-probabilities + masks + running score, per row.
    for (size_t i = 0; i < n; ++i) {
      const size_t slot = A.active[i], b = A.active_sentence[i];
      float* row = A.logits + i * V;
      ScoreRow(row, bad_token.data(), LogSumExp(row, V), A.beam_scores[slot], V);
      if (forced_eos && pos + 1 >= A.max_len[b])
        for (size_t v = 0; v < V; ++v)
          if (v != eos) row[v] = kNegInf;
    }
    // Per sentence: top 2 x beam candidates over its rows (rows of a sentence are consecutive).
    const size_t K = 2 * B;
    size_t i0 = 0;
    for (size_t b = 0; b < ns; ++b) {
      if (A.done[b]) continue;
      const size_t live = pos == 0 ? 1 : B;
      size_t nc = 0;
      for (size_t j = 0; j < live; ++j) {
        const float* row = A.logits + (i0 + j) * V;
        constexpr size_t kBlock = 32;
        for (size_t v0 = 0; v0 < V; v0 += kBlock) {
          const size_t end = std::min(v0 + kBlock, V);
          // Once the list is full, a block whose max cannot enter it is skipped (one vectorized max).
          if (nc == K && !(MaxOf(row + v0, end - v0) > A.cand_score[K - 1])) continue;
          for (size_t v = v0; v < end; ++v) {
            const float s = row[v];
            if (nc == K && !(s > A.cand_score[K - 1])) continue;
            // Insert keeping descending order; equal scores keep the earlier (lower flat index) first.
            size_t k = nc < K ? nc++ : K - 1;
            while (k > 0 && A.cand_score[k - 1] < s) {
              A.cand_score[k] = A.cand_score[k - 1], A.cand_token[k] = A.cand_token[k - 1], A.cand_beam[k] = A.cand_beam[k - 1];
              --k;
            }
            A.cand_score[k] = s, A.cand_token[k] = static_cast<uint32_t>(v), A.cand_beam[k] = static_cast<uint32_t>(j);
          }
        }
      }
      Tock(t0, &profile.softmax_topk_ms);
      t0 = Tick();
      // Process the candidates in rank order (BeamSearchScorer.process).
      const float gen_len_pow = std::pow(static_cast<float>(pos + 1), length_penalty);
      size_t filled = 0;
      for (size_t r = 0; r < nc && filled < B; ++r) {
        const size_t parent = b * B + A.cand_beam[r];
        if (A.cand_token[r] == eos) {
          if (r >= B) continue;
          add_hyp(b, A.tokens + parent * T, static_cast<uint32_t>(pos), A.cand_score[r] / gen_len_pow);
        } else {
          const size_t slot = b * B + filled;
          std::memcpy(A.tokens_next + slot * T, A.tokens + parent * T, pos * sizeof(uint32_t));
          std::memcpy(A.anc_next + slot * T, A.anc + parent * T, pos * sizeof(uint32_t));
          A.tokens_next[slot * T + pos] = A.cand_token[r];
          A.anc_next[slot * T + pos] = static_cast<uint32_t>(parent);
          A.step_scores[slot] = A.cand_score[r];
          ++filled;
        }
      }
      for (size_t j = 0; j < filled; ++j) A.beam_scores[b * B + j] = A.step_scores[b * B + j];
      for (size_t j = filled; j < B; ++j) A.beam_scores[b * B + j] = kNegInf;  // only with tiny vocabularies
      // Done when `beam` hypotheses are finished and none of the candidates can beat the worst of them.
      if (A.hyp_count[b] >= B && worst_of(b) >= A.cand_score[0] / gen_len_pow) A.done[b] = 1;
      if (!A.done[b] && pos + 1 >= A.max_len[b]) {
        for (size_t j = 0; j < B; ++j) {
          const size_t slot = b * B + j;
          add_hyp(b, A.tokens_next + slot * T, static_cast<uint32_t>(pos + 1), A.beam_scores[slot] / gen_len_pow);
        }
        A.done[b] = 1;
      }
      i0 += live;
      Tock(t0, &profile.beam_bookkeeping_ms);
      t0 = Tick();
    }
    std::swap(A.tokens, A.tokens_next);
    std::swap(A.anc, A.anc_next);
  }

  // Results: n_best hypotheses per sentence, best first.
  for (size_t b = 0; b < ns; ++b) {
    const size_t input = A.order[b];
    const uint32_t count = A.hyp_count[b];
    // Stable ascending sort of indices by score, then take from the end.
    uint32_t idx[64];
    for (uint32_t i = 0; i < count; ++i) idx[i] = i;
    for (uint32_t i = 1; i < count; ++i) {  // insertion sort: stable, and std::stable_sort may allocate
      const uint32_t x = idx[i];
      uint32_t j = i;
      while (j > 0 && A.hyp_score[b * B + idx[j - 1]] > A.hyp_score[b * B + x]) idx[j] = idx[j - 1], --j;
      idx[j] = x;
    }
    const uint32_t k_out = std::min<uint32_t>(n_best, count);
    for (uint32_t k = 0; k < k_out; ++k) {
      const uint32_t h = idx[count - 1 - k];
      uint32_t* ids = A.out_ids + (input * dims.n_best + k) * T;
      const uint32_t len = A.hyp_len[b * B + h];
      std::memcpy(ids, A.hyp_tokens + (b * B + h) * T, len * sizeof(uint32_t));
      Hypothesis& out = A.hypotheses[input * dims.n_best + k];
      out.text = {};
      out.ids = Span<const uint32_t>(ids, len);
      out.score = want_scores ? A.hyp_score[b * B + h] : 0.f;
      profile.generated_tokens += len;
    }
    A.results[input].error = StatusCode::kOk;
    A.results[input].error_message = {};
    A.results[input].hypotheses = Span<const Hypothesis>(A.hypotheses + input * dims.n_best, k_out);
  }
  return Status::Ok();
}

}  // namespace tern
