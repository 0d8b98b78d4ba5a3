// TranslatorConfigFor (tern/translator.h): one sizing rule for Translators made to fit their calls.
#include <algorithm>
#include <string>

#include "tern/translator.h"

namespace tern {

namespace {

// The next power of two >= x (x <= 2^31).
uint32_t PowerOfTwoAtLeast(uint32_t x) {
  uint32_t p = 1;
  while (p < x) p *= 2;
  return p;
}

}  // namespace

Result<TranslatorConfig> TranslatorConfigFor(const Model& model, const CallNeeds& needs, const TranslatorConfig& at_least) {
  const Hyperparameters& hp = model.hparams();
  const ArenaLimits& lim = model.limits();
  auto bad = [](const std::string& what) { return Status(StatusCode::kInvalidArgument, "TranslatorConfigFor: " + what); };
  const uint32_t beam = needs.beam_size ? needs.beam_size : std::max<uint32_t>(1, model.generation().beam_size);
  const uint32_t k = needs.alternatives;
  if (needs.n_best == 0 && k == 0) return bad("n_best 0 (at least 1)");
  if (k == 0 && needs.n_best > beam)
    return bad("n_best " + std::to_string(needs.n_best) + " exceeds beam_size " + std::to_string(beam));
  const uint32_t widest = std::max({beam, needs.n_best, k});
  if (widest > kMaxBeam) return bad("beam_size, n_best or alternatives " + std::to_string(widest) + " over " + std::to_string(kMaxBeam));
  const uint64_t rows = uint64_t{std::max<uint32_t>(1, needs.inputs)} * std::max<uint32_t>(1, k);
  if (rows > kMaxBatch)
    return bad(std::to_string(needs.inputs) + " inputs x " + std::to_string(k) + " alternatives over " + std::to_string(kMaxBatch) + " sentences");
  if (needs.source_tokens > hp.max_positions)
    return bad("a source of " + std::to_string(needs.source_tokens) + " tokens; the model has positions for " +
               std::to_string(hp.max_positions));
  TranslatorConfig c = at_least;
  c.max_beam = std::max(c.max_beam, widest);
  c.max_n_best = std::max({c.max_n_best, needs.n_best, k});
  const uint32_t file_batch = std::min<uint32_t>(lim.max_batch, std::max<uint32_t>(1, lim.max_rows / c.max_beam));
  c.max_batch = std::max({c.max_batch, file_batch, static_cast<uint32_t>(rows)});
  const uint32_t max_src = hp.max_positions, max_tgt = hp.max_positions > 1 ? hp.max_positions - 1 : 1;
  const uint32_t src = std::max(c.max_source_tokens ? c.max_source_tokens : lim.max_source_tokens, std::min(PowerOfTwoAtLeast(needs.source_tokens), max_src));
  const uint32_t want_tgt = std::min(needs.max_length, max_tgt);
  const uint32_t tgt = std::max(c.max_target_tokens ? c.max_target_tokens : lim.max_target_tokens, std::min(PowerOfTwoAtLeast(want_tgt), max_tgt));
  c.max_source_tokens = std::min(src, max_src);
  c.max_target_tokens = std::min(tgt, max_tgt);
  c.attention = c.attention || needs.attention;
  return c;
}

}  // namespace tern
