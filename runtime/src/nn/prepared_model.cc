#include "nn/prepared_model.h"

#include "nn/packed_cache_dir.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "model/model_impl.h"
#include "nn/packer_key.h"

namespace tern {

namespace {

// Packs operator `l` of layer `layer` of `block`: its parts fused along out, with their biases (or maps
// them from `cache`, as layer number `ordinal` of the packing order).
Result<PackedLinear> Pack(const Model& m, const format::BlockSpec& block, uint32_t layer, const format::LinearSpec& l,
                          const PackedCacheFile* cache, uint32_t ordinal) {
  std::vector<const TensorView*> w, b;
  for (uint8_t k = 0; k < l.n_parts; ++k) {
    const std::string p = format::LayerTensor(block, layer, l.parts[k]);
    w.push_back(m.impl().tensor(p + ".weight"));
    b.push_back(m.impl().tensor(p + ".bias"));
    if (!w.back()) return Status(StatusCode::kInvalidModel, m.name() + ": tensor '" + p + ".weight' missing");
  }
  return PackLinear(w.data(), b.data(), w.size(), LinearBackends::kAuto, cache, ordinal);
}

// The weights of `l`'s parts, for PreparedModel::replaced when the packed copy replaces them (unless tern's
// own GEMM reads them: then XNNPACK packed nothing).
void NoteReplaced(const Model& m, const format::BlockSpec& block, uint32_t layer, const format::LinearSpec& l,
                  const PackedLinear& packed, PreparedModel& p) {
  if (packed.reads_model_weights()) return;
  for (uint8_t k = 0; k < l.n_parts; ++k)
    if (const TensorView* t = m.impl().tensor(format::LayerTensor(block, layer, l.parts[k]) + ".weight"))
      p.replaced.emplace_back(t->data, t->bytes);
}

Result<std::shared_ptr<PreparedModel>> Prepare(const Model& m, const PackedCacheFile* cache) {
  auto p = std::make_shared<PreparedModel>();
  uint32_t ordinal = 0;
  const Hyperparameters& hp = m.hparams();
  for (const format::BlockSpec* block : {&format::EncoderLayerSpec(), &format::DecoderLayerSpec()}) {
    const bool enc = block->stack == format::Stack::kEncoder;
    std::vector<PreparedLayer>& layers = enc ? p->encoder : p->decoder;
    for (uint32_t i = 0; i < (enc ? hp.encoder_layers : hp.decoder_layers); ++i) {
      PreparedLayer layer;
      for (size_t k = 0; k < block->n_linears; ++k) {
        const format::LinearSpec& l = block->linears[k];
        PackedLinear& slot = layer.linear[static_cast<size_t>(l.op)];
        TERN_ASSIGN_OR_RETURN(slot, Pack(m, *block, i, l, cache, ordinal++));
        NoteReplaced(m, *block, i, l, slot, *p);
      }
      layers.push_back(std::move(layer));
    }
  }
  // Logits = x @ E^T + final_logits_bias, E = lm_head or the (tied) decoder embedding. A tied matrix is
  // also the embedding table read at every step, so its pages are kept.
  const char* proj_name = format::OutputProjection(hp);
  const TensorView* proj = m.impl().tensor(proj_name);
  const TensorView* bias = hp.final_logits_bias ? m.impl().tensor("final_logits_bias") : nullptr;
  if (!proj) return Status(StatusCode::kInvalidModel, m.name() + ": tensor '" + proj_name + "' missing");
  TERN_ASSIGN_OR_RETURN(p->output_projection, PackLinear(&proj, &bias, 1, LinearBackends::kAuto, cache, ordinal++));
  if (m.impl().shortlist().present()) {
    // Shortlisted logits read the model's own rows: its pages are kept. Its row sums from the cache when there.
    p->gathered_sums_id = PackedBlockId{ordinal++, DType::kInt8, proj->rows(), proj->cols(), kRowSumsBlock};
    const CachedBlock* sums = cache ? cache->Find(p->gathered_sums_id) : nullptr;
    TERN_ASSIGN_OR_RETURN(p->gathered_output,
                          GatheredProjection::Prepare(*proj, bias, sums && sums->size == proj->rows() * 4
                                                                       ? static_cast<const int32_t*>(sums->data)
                                                                       : nullptr));
  }
  if (!hp.tied_output_projection && !p->gathered_output.available() && !p->output_projection.reads_model_weights())
    p->replaced.emplace_back(proj->data, proj->bytes);
  p->ForEachBlock([&](const PackedLinear& l) { p->packed_bytes += l.block->bytes(); });
  return p;
}

// The packed weights from the cache file in options.packed_cache_dir (or TERN_PACKED_CACHE_DIR) when it is
// trusted, sound, its key matches and it was written for this model's contents; packed at load otherwise,
// then written there for the next load. Never fails because of the cache: every problem with it becomes a
// note and a load without it.
std::string CacheDirectoryOf(const LoadOptions& options) {
  if (!options.packed_cache) return {};
  std::string dir = options.packed_cache_dir;
  if (dir.empty())
    if (const char* env = std::getenv("TERN_PACKED_CACHE_DIR")) dir = env;
  return dir;
}

// The model's pages that the packed weights replaced go back to the system (a mapping's come back from the
// file if read; a private copy's are never read again).
std::shared_ptr<PreparedModel> GiveBackReplaced(const Model& m, std::shared_ptr<PreparedModel> p) {
  for (const auto& [data, bytes] : p->replaced) m.impl().ReleasePages(data, bytes, /*never_read_again=*/true);
  return p;
}

Result<std::shared_ptr<PreparedModel>> PrepareWithCache(const Model& m, std::string& note) {
  const std::string dir_path = CacheDirectoryOf(m.impl().options);
  const internal::ModelData& data = *m.impl().data;
  if (dir_path.empty() || !data.from_file()) {
    note = dir_path.empty() ? "packed at load (no packed-weights cache directory)" : "packed at load (a model from memory is not cached)";
    TERN_ASSIGN_OR_RETURN(auto p, Prepare(m, nullptr));
    return GiveBackReplaced(m, std::move(p));
  }
  auto dir = CacheDirectory::Open(dir_path, /*create=*/true);
  if (!dir.ok()) {  // missing and not creatable, or not this user's alone: neither read nor written
    note = "packed at load (packed-weights cache not used: " + dir.status().message() + ")";
    TERN_ASSIGN_OR_RETURN(auto p, Prepare(m, nullptr));
    return GiveBackReplaced(m, std::move(p));
  }
  uint32_t formats = 0;  // of the weights any layer packs: every 2-D tensor's
  for (const TensorView& t : m.impl().tensors())
    if (t.rank == 2) formats |= FormatBit(t.dtype);
  const std::string name = PackedCacheName(data.real_path()), key = PackedCacheKey(data.real_path(), formats);
  const std::string path = dir.value().PathOf(name);
  const ModelContent content(data);
  auto file = PackedCacheFile::Open(dir.value(), name, key, content);
  std::string why;
  if (file.ok()) {
    auto p = Prepare(m, file.value().get());
    if (!p.ok()) return p;
    size_t mapped = 0, packed = 0;
    p.value()->ForEachBlock([&](const PackedLinear& l) { ++(l.block->borrowed() ? mapped : packed); });
    p.value()->ForEachRowSums([&](const PackedBlockId&, const void*, size_t, bool computed) { ++(computed ? packed : mapped); });
    if (packed == 0) {
      const bool by_content = file.value()->model_verified_by_content();
      p.value()->cache_file = std::move(file.value());
      dir.value().MarkUsed(name);  // recently used: the last an eviction removes
      note = "mapped from " + path + " (" + std::to_string(mapped) + " blocks, no packing" +
             (by_content ? "; the model file checked by its digest" : "") + ")";
      return GiveBackReplaced(m, std::move(p.value()));
    }
    why = std::to_string(packed) + " of " + std::to_string(mapped + packed) + " blocks were not in it or not accepted by XNNPACK";
    // Pack everything again (the mapped blocks point into a file about to be replaced) and rewrite it.
  } else {
    why = file.status().code() == StatusCode::kNotFound ? "none yet" : file.status().message();
  }
  content.digest();  // of the model's bytes as packed, before any of their pages are given back
  TERN_ASSIGN_OR_RETURN(auto p, Prepare(m, nullptr));
  std::vector<PackedBlockOut> out;
  p->ForEachBlock([&](const PackedLinear& l) { out.push_back({l.cache_id, l.block->seed(), l.block->data(), l.block->bytes()}); });
  p->ForEachRowSums([&](const PackedBlockId& id, const void* bytes, size_t size, bool computed) {
    if (computed) out.push_back({id, 0, bytes, size});
  });
  std::sort(out.begin(), out.end(), [](const PackedBlockOut& a, const PackedBlockOut& b) { return a.id.ordinal < b.id.ordinal; });
  const Status written = WritePackedCache(dir.value(), name, key, content, out);
  const uint64_t bound = m.impl().options.packed_cache_max_bytes;
  if (written.ok() && bound > 0) dir.value().EvictLeastRecentlyUsed(name, bound);
  note = "packed at load (cache: " + why + "); " + (written.ok() ? "wrote " + path : "not written: " + written.message());
  return GiveBackReplaced(m, std::move(p));
}

}  // namespace

std::string PreparedModel::CacheDirectoryPath(const Model& model) {
  return CacheDirectoryPath(model.impl().options, *model.impl().data);
}

std::string PreparedModel::CacheDirectoryPath(const LoadOptions& options, const internal::ModelData& data) {
  return data.from_file() ? CacheDirectoryOf(options) : std::string();
}

Result<std::shared_ptr<const PreparedModel>> PreparedModel::Of(const std::shared_ptr<const Model>& model) {
  if (!model) return Status(StatusCode::kInvalidArgument, "PreparedModel: no model");
  const Model::Impl& m = model->impl();
  std::lock_guard<std::mutex> lock(m.prepared_mu);
  std::shared_ptr<const PreparedModel>& slot = m.prepared;
  if (!slot) {
    std::string note;
    TERN_ASSIGN_OR_RETURN(auto prepared, PrepareWithCache(*model, note));
    slot = std::shared_ptr<const PreparedModel>(std::move(prepared));
    m.packed_note = std::move(note);
  }
  return slot;
}

}  // namespace tern
