#include "search/logits_processors.h"

#include <limits>

namespace tern {

void ForcedEos::Process(const RowContext& ctx, float* row, size_t vocab) const {
  if (ctx.pos + 1 < ctx.max_len) return;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (size_t v = 0; v < vocab; ++v)
    if (v != eos_) row[v] = kNegInf;
}

void LogitsProcessors::Init(const Model& model) {
  const Hyperparameters& hp = model.hparams();
  mask_.assign(hp.target_vocab_size, 0);
  mask_[hp.pad_id] = 1;  // pad is never generated
  for (uint32_t id : model.generation().bad_word_ids) mask_[id] = 1;
  count_ = 0;
  if (model.generation().forced_eos) {
    forced_eos_ = ForcedEos(hp.eos_id);
    Add(&forced_eos_);
  }
}

bool LogitsProcessors::Add(const LogitsProcessor* p) {
  if (count_ == kMaxProcessors) return false;
  list_[count_++] = p;
  return true;
}

}  // namespace tern
