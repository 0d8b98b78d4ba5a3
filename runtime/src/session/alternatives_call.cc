#include "session/alternatives_call.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "session/session.h"

namespace tern {
namespace {

enum : uint8_t { kReady = 0, kBlank = 1, kNoToken = 2, kBelowFloor = 3, kFailed = 4 };  // kFailed + code: pass 1 failed the input

constexpr char kNoTokenMessage[] =
    "return_alternatives: no token may follow the target prefix (max_length reached, or the logits rules ban every one)";
constexpr char kBelowFloorMessage[] = "return_alternatives: no first token reaches min_alternative_expansion_prob";

}  // namespace

void DeclareAlternativeBuffers(const Dims& d, AlternativeBuffers* a, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kDec = Phase::kDecoder;
  const uint64_t batch = d.batch;
  plan->Add(&a->token, "alternatives.token", batch * d.n_best, kEnc, kDec);
  plan->Add(&a->logprob, "alternatives.logprob", batch * d.n_best, kEnc, kDec);
  plan->Add(&a->count, "alternatives.count", batch, kEnc, kDec);
  plan->Add(&a->prefix_ids, "alternatives.prefix_ids", batch * d.tgt, kEnc, kDec);
  plan->Add(&a->prefixes, "alternatives.prefixes", batch, kEnc, kDec);
  plan->Add(&a->texts, "alternatives.texts", batch, kEnc, kDec);
  plan->Add(&a->sources, "alternatives.sources", batch, kEnc, kDec);
  plan->Add(&a->state, "alternatives.state", batch, kEnc, kDec);
  plan->Add(&a->errors, "alternatives.errors", batch * kErrorBytes, kEnc, kDec);
}

Status CheckAlternatives(const Dims& d, size_t n, const TranslateOptions& o) {
  const uint64_t k = o.alternatives;
  auto fail = [](const std::string& m) { return Status(StatusCode::kInvalidArgument, "return_alternatives: " + m); };
  if (o.n_best != 1) return fail("n_best " + std::to_string(o.n_best) + ": the alternatives are the hypotheses (n_best 1)");
  if (k > d.n_best) return fail(std::to_string(k) + " alternatives exceed max_n_best " + std::to_string(d.n_best));
  if (uint64_t{n} * k > d.batch)
    return fail(std::to_string(n) + " inputs x " + std::to_string(k) + " alternatives exceed max_batch " + std::to_string(d.batch) +
                " (each alternative is a sentence of the second pass): give at most " + std::to_string(d.batch / k) + " inputs");
  if (o.markup != Markup::kNone || o.keep_placeholders || !o.keep_spans.empty() || o.glossary)
    return fail("not with markup, keep_placeholders, keep_spans or a glossary");
  if (o.on_token) return fail("not with on_token (the tokens come in two passes)");
  if (!(o.min_alternative_expansion_prob >= 0.f && o.min_alternative_expansion_prob <= 1.f))
    return fail("min_alternative_expansion_prob must be in [0, 1]");
  return Status::Ok();
}

Status Translator::Impl::TranslateAlternatives(Call& call, Span<const std::string_view> texts, Span<const Span<const uint32_t>> ids,
                                               bool by_text) {
  const TranslateOptions& options = *call.options;
  const size_t n = by_text ? texts.size() : ids.size(), k = options.alternatives, nb = dims.n_best, T = dims.tgt;
  TERN_RETURN_IF_ERROR(CheckAlternatives(dims, n, options));
  AlternativeBuffers& a = buf.alternatives;
  const ResultBuffers& out = buf.results;
  // Pass 1: through the prefix, then the first tokens (search/expand.h).
  TranslateOptions first = options;
  first.alternatives = 0, first.beam_size = 1, first.n_best = 1, first.sampling = SamplingOptions();
  first.split_sentences = false, first.return_alignment = false;
  for (size_t i = 0; i < n; ++i) a.count[i] = 0;
  call.expand = static_cast<uint32_t>(k);
  Status s1 = Status::Ok();
  {
    OptionsScope scope(call, first);
    s1 = by_text ? TranslateTexts(call, texts) : TranslateIds(call, ids);
  }
  const Span<const TranslationResult> r1 = call.results;
  call.expand = 0;
  if (s1.code() == StatusCode::kCancelled)
    for (size_t i = 0; i < n; ++i) SetSentenceError(out, buf.batch, i, StatusCode::kCancelled, "cancelled by the caller");
  if (!s1.ok()) {
    if (s1.code() == StatusCode::kCancelled) call.results = Span<const TranslationResult>(out.results, n);
    return s1;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!r1[i].ok()) {
      a.state[i] = static_cast<uint8_t>(kFailed + static_cast<uint8_t>(r1[i].error));
      const size_t len = std::min(r1[i].error_message.size(), kErrorBytes - 1);
      std::memcpy(a.errors + i * kErrorBytes, r1[i].error_message.data(), len);
      a.errors[i * kErrorBytes + len] = '\0';
      continue;
    }
    if (!buf.batch.sentence_ok[i]) {  // a blank text: an empty translation, as Translate gives it
      a.state[i] = kBlank;
      continue;
    }
    const uint32_t found = a.count[i];
    uint32_t m = found;  // descending: CTranslate2 stops at the first one below the floor
    while (m > 0 && std::exp(a.logprob[i * nb + m - 1]) < options.min_alternative_expansion_prob) --m;
    a.count[i] = m;
    a.state[i] = m ? kReady : found ? kBelowFloor : kNoToken;
  }
  // Pass 2: one sentence per (input, first token), its prefix the input's and then the token.
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < k; ++j) {
      const size_t r = i * k + j;
      const bool run = a.state[i] == kReady && j < a.count[i];
      a.prefixes[r] = Span<const uint32_t>();
      if (run) {
        const uint32_t len = buf.batch.forced_len[i];
        std::memcpy(a.prefix_ids + r * T, buf.batch.forced_ids + i * T, len * sizeof(uint32_t));
        a.prefix_ids[r * T + len] = a.token[i * nb + j];
        a.prefixes[r] = Span<const uint32_t>(a.prefix_ids + r * T, len + 1);
      }
      // An input that does not run: a blank text (its empty translation) or no ids (an error, overwritten below).
      if (by_text) a.texts[r] = run ? texts[i] : std::string_view();
      else a.sources[r] = run ? ids[i] : Span<const uint32_t>();
    }
  }
  TranslateOptions second = options;
  second.alternatives = 0, second.n_best = 1, second.split_sentences = false;
  second.target_prefix = {};
  second.target_prefix_ids = Span<const Span<const uint32_t>>(a.prefixes.data(), n * k);
  call.alternatives = static_cast<uint32_t>(k);  // sampling: row r is keyed as alternative r % k of input r / k
  Status s2 = Status::Ok();
  {
    OptionsScope scope(call, second);
    s2 = by_text ? TranslateTexts(call, Span<const std::string_view>(a.texts.data(), n * k))
                 : TranslateIds(call, Span<const Span<const uint32_t>>(a.sources.data(), n * k));
  }
  const Span<const TranslationResult> r2 = call.results;
  call.alternatives = 0;
  if (!HasResults(s2)) return s2;
  // Input i's alternatives from rows i * k + j: hypotheses move down to i's own slots (i * nb + m <= (i * k + j) * nb,
  // and every later row's slot is higher), results[i] is written once rows i * k .. are read (i <= i * k).
  for (size_t i = 0; i < n; ++i) {
    TranslationResult res;
    const uint8_t state = a.state[i];
    if (state >= kFailed) {
      res.error = static_cast<StatusCode>(state - kFailed);
      res.error_message = std::string_view(a.errors + i * kErrorBytes);
    } else if (state == kNoToken || state == kBelowFloor) {
      res.error = StatusCode::kInvalidArgument;
      res.error_message = state == kNoToken ? std::string_view(kNoTokenMessage) : std::string_view(kBelowFloorMessage);
    } else {
      size_t m = 0, first_error = k;
      const size_t runs = state == kBlank ? 1 : a.count[i];
      for (size_t j = 0; j < runs; ++j) {
        const TranslationResult& r = r2[i * k + j];
        if (!r.ok()) {
          first_error = std::min(first_error, j);
          continue;
        }
        Hypothesis h = r.hypotheses[0];
        if (options.return_scores && state == kReady) h.score += a.logprob[i * nb + j];
        out.hypotheses[i * nb + m++] = h;
        res.source_ids = r.source_ids;
        res.source_spans = r.source_spans;
      }
      if (m > 0) {
        res.hypotheses = Span<const Hypothesis>(out.hypotheses + i * nb, m);
      } else {
        res.error = r2[i * k + first_error].error;
        res.error_message = r2[i * k + first_error].error_message;
      }
    }
    out.results[i] = res;
  }
  call.results = Span<const TranslationResult>(out.results, n);
  return s2;
}

}  // namespace tern
