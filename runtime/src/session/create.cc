// Translator::Impl::Init: the arena planned and bound, the packed weights and the network, the
// tokenizer on a thread of its own meanwhile, or its parse on Model::Load's (text/tokenizer_loader.h).
#include <algorithm>

#include "model/model_impl.h"
#include "nn/prepared_model.h"
#include "session/session.h"
#include "text/tokenizer_loader.h"
#include "tern/cpu.h"

namespace tern {

Result<Dims> PlanFor(const Model& model, const TranslatorConfig& config, SessionBuffers* buf, ArenaPlan* plan) {
  TERN_ASSIGN_OR_RETURN(const Dims dims, ResolveDims(model, config));
  TERN_RETURN_IF_ERROR(PlanArena(model, dims, buf, plan));
  return dims;
}

Status Translator::Impl::Init(std::shared_ptr<const Model> m, const TranslatorConfig& c) {
  model = std::move(m);
  config = c;
  // With a packed-weights cache the weights load in a few ms and SentencePiece parsing its model is the
  // larger part: it runs on a thread of its own meanwhile where there is a second processor. Without one,
  // packing takes most of the load and the tokenizer is made first, as before: its parser's temporary
  // memory is freed before packing begins (peak RSS).
  const bool parallel = DescribeCpu().processors > 1 && !PreparedModel::CacheDirectoryPath(*model).empty();
  // When Model::Load began the parse (text/spm_prefetch.h), that thread already has the second processor:
  // this thread builds the piece index at the end and takes the parse. A third thread would wait for a
  // processor until one of the two finished (on 2 processors it began ~2 ms late and ran alone at the end).
  const bool prefetched = model->impl().source_spm_prefetch != nullptr;
  TokenizerLoader source_tokenizer(*model, Tokenizer::Side::kSource, parallel && !prefetched);
  if (!parallel) {
    TERN_ASSIGN_OR_RETURN(tokenizer, source_tokenizer.Get());
  }
  TERN_ASSIGN_OR_RETURN(dims, PlanFor(*model, config, &buf, &plan));
  uint8_t* base;
  if (config.arena) {
    if (reinterpret_cast<uintptr_t>(config.arena) % MemoryPlanner::kAlignment != 0)
      return Status(StatusCode::kInvalidArgument, "Translator: caller's arena is not 64-byte aligned");
    if (config.arena_bytes < plan.total_bytes())
      return Status(StatusCode::kInvalidArgument, "Translator: caller's arena has " + std::to_string(config.arena_bytes) +
                                                      " bytes, the limits need " + std::to_string(plan.total_bytes()));
    base = static_cast<uint8_t*>(config.arena);
  } else {
    owned_arena.reset(new (std::nothrow) uint8_t[plan.total_bytes() + MemoryPlanner::kAlignment]);
    if (!owned_arena)
      return Status(StatusCode::kResourceExhausted,
                    "Translator: cannot allocate a " + std::to_string(plan.total_bytes()) + "-byte arena");
    base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(owned_arena.get()) + MemoryPlanner::kAlignment - 1) &
                                      ~uintptr_t{MemoryPlanner::kAlignment - 1});
  }
  plan.Bind(base);
  TERN_ASSIGN_OR_RETURN(prepared, PreparedModel::Of(model));
  // More threads than hardware threads only time-slice (1,024 on 2 cores took 415 s for one sentence).
  const uint32_t n_threads = std::min(config.threads ? config.threads : DefaultThreadCount(), DescribeCpu().processors);
  TERN_ASSIGN_OR_RETURN(net, Network::Create(*model, *prepared, n_threads));
  threads = ThreadPolicy(n_threads > 1);
  processors.Init(*model);
  if (parallel) {
    TERN_ASSIGN_OR_RETURN(tokenizer, source_tokenizer.Get());
  }
  alignment_layer = static_cast<int>(dims.dec_layers) - 1;
  return Status::Ok();
}

}  // namespace tern
