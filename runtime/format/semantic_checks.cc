// Check 5 of model_reader.h: what the FlatBuffers verifier cannot know. Every number from the file is
// range-checked in 64-bit arithmetic before it sizes or locates anything.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "check_util.h"
#include "format.h"
#include "model_reader.h"
#include "sentencepiece_check.h"
#include "layer_spec.h"
#include "tensor_specs.h"
#include "weight_formats.h"


namespace tern::format {
namespace {

Status CheckHyperparameters(const Hyperparameters& hp, const std::string& file) {
  if (hp.d_model == 0 || hp.n_heads == 0 || hp.ffn_dim == 0 || hp.encoder_layers == 0 || hp.decoder_layers == 0 ||
      hp.max_positions == 0)
    return Invalid(file, "hparams d_model, n_heads, ffn_dim, layer counts and max_positions must be > 0");
  if (uint64_t{hp.head_dim} * hp.n_heads != hp.d_model)
    return Invalid(file, "hparams n_heads " + std::to_string(hp.n_heads) + " x head_dim " + std::to_string(hp.head_dim) +
                             " != d_model " + std::to_string(hp.d_model));
  if (hp.d_model > 65536 || hp.ffn_dim > 1u << 20 || hp.encoder_layers > 256 || hp.decoder_layers > 256 ||
      hp.max_positions > 1u << 20 || hp.source_vocab_size > 1u << 24 || hp.target_vocab_size > 1u << 24)
    return Invalid(file, "hparams out of range (d_model <= 65536, layers <= 256, vocab <= 2^24)");
  if (hp.source_vocab_size == 0 || hp.target_vocab_size == 0) return Invalid(file, "vocabulary sizes must be > 0");
  if (hp.shared_embeddings && hp.source_vocab_size != hp.target_vocab_size)
    return Invalid(file, "shared_embeddings with source_vocab_size " + std::to_string(hp.source_vocab_size) +
                             " != target_vocab_size " + std::to_string(hp.target_vocab_size));
  if (!(std::isfinite(hp.layer_norm_epsilon) && hp.layer_norm_epsilon > 0.f && hp.layer_norm_epsilon < 1.f))
    return Invalid(file, "layer_norm_epsilon must be in (0, 1)");
  if (!(std::isfinite(hp.embedding_scale) && hp.embedding_scale > 0.f))
    return Invalid(file, "embedding_scale must be finite and > 0");
  for (auto [id, what] : {std::pair{hp.pad_id, "pad_id"}, {hp.eos_id, "eos_id"}, {hp.decoder_start_id, "decoder_start_id"},
                          {hp.unk_id, "unk_id"}}) {
    if (id >= hp.target_vocab_size || id >= hp.source_vocab_size)
      return Invalid(file, std::string(what) + " " + std::to_string(id) + " outside the vocabulary");
  }
  return Status::Ok();
}

Status CheckGeneration(const GenerationDefaults& g, const Hyperparameters& hp, const std::string& file) {
  for (uint32_t id : g.bad_word_ids)
    if (id >= hp.target_vocab_size)
      return Invalid(file, "generation.bad_word_ids holds " + std::to_string(id) + ", outside the target vocabulary");
  // Each default is sanitized here, so nothing downstream meets a value it cannot represent (a ratio of
  // 1e30 once went through an undefined float-to-integer cast).
  if (g.beam_size == 0 || g.beam_size > kMaxBeam)
    return Invalid(file, "generation.beam_size " + std::to_string(g.beam_size) + " out of range (1.." + std::to_string(kMaxBeam) + ")");
  if (g.max_length == 0 || g.max_length > (1u << 20))
    return Invalid(file, "generation.max_length " + std::to_string(g.max_length) + " out of range (1..2^20)");
  if (!(std::isfinite(g.length_penalty) && std::fabs(g.length_penalty) <= 1e6f))
    return Invalid(file, "generation.length_penalty must be finite, of magnitude at most 1e6");
  if (!(std::isfinite(g.max_length_ratio) && g.max_length_ratio >= 0.f && g.max_length_ratio <= 1000.f))
    return Invalid(file, "generation.max_length_ratio " + std::to_string(g.max_length_ratio) + " out of range (0..1000)");
  if (!(std::isfinite(g.repetition_penalty) && g.repetition_penalty > 0.f && g.repetition_penalty <= 1e6f))
    return Invalid(file, "generation.repetition_penalty must be finite, > 0 and at most 1e6");
  if (g.no_repeat_ngram_size > 1024 || g.min_length > (1u << 20))
    return Invalid(file, "generation.no_repeat_ngram_size (<= 1024) or min_length (<= 2^20) out of range");
  return Status::Ok();
}

Status CheckLimits(const ArenaLimits& l, const Hyperparameters& hp, const std::string& file) {
  if (l.max_source_tokens == 0 || l.max_target_tokens == 0 || l.max_batch == 0 || l.max_rows == 0)
    return Invalid(file, "limits must all be > 0");
  // What a Translator sizes by default comes from here: bounded as TranslatorConfig is.
  if (l.max_batch > kMaxBatch || uint64_t{l.max_rows} > uint64_t{kMaxBatch} * kMaxBeam)
    return Invalid(file, "limits.max_batch " + std::to_string(l.max_batch) + " (at most " + std::to_string(kMaxBatch) +
                             ") or limits.max_rows " + std::to_string(l.max_rows) + " (at most " +
                             std::to_string(uint64_t{kMaxBatch} * kMaxBeam) + ") out of range");
  if (l.max_source_tokens > hp.max_positions || uint64_t{l.max_target_tokens} + 1 > hp.max_positions)
    return Invalid(file, "limits.max_source_tokens " + std::to_string(l.max_source_tokens) + " / max_target_tokens " +
                             std::to_string(l.max_target_tokens) + " exceed max_positions " + std::to_string(hp.max_positions));
  return Status::Ok();
}

// Exactly the expected tensors, with their shapes; vectors in f32; one format for every linear weight.
Status CheckTensorSet(const std::vector<TensorView>& tensors, const Hyperparameters& hp, const std::string& file,
                      DType* weight_dtype) {
  auto find = [&](std::string_view name) -> const TensorView* {
    auto it = std::lower_bound(tensors.begin(), tensors.end(), name,
                               [](const TensorView& t, std::string_view n) { return t.name < n; });
    return it != tensors.end() && it->name == name ? &*it : nullptr;
  };
  const std::vector<TensorSpec> expected = ExpectedTensors(hp);  // expected_names holds views into it
  std::set<std::string_view> expected_names;
  for (const TensorSpec& s : expected) {
    expected_names.insert(s.name);
    const TensorView* v = find(s.name);
    if (!v) return Invalid(file, "tensor '" + s.name + "' missing");
    const uint32_t want[2] = {s.shape[0], s.shape.size() == 2 ? s.shape[1] : 1};
    if (v->rank != s.shape.size() || v->shape[0] != want[0] || v->shape[1] != want[1])
      return Invalid(file, "tensor '" + s.name + "': shape " + ShapeString(v->shape, v->rank) +
                               " disagrees with the hyperparameters, which imply " + ShapeString(s.shape.data(), s.shape.size()));
    if (!s.quantizable && v->dtype != DType::kF32)
      return Invalid(file, "tensor '" + s.name + "': must be f32, is " + DTypeName(v->dtype));
  }
  // The parts of one linear operator are fused into one kernel (Q|K|V, cross K|V): one format each.
  const TensorView* first = find(LayerTensor(EncoderLayerSpec(), 0, EncoderLayerSpec().linears[0].parts[0]) + ".weight");
  if (first) *weight_dtype = first->dtype;
  for (const BlockSpec* block : {&EncoderLayerSpec(), &DecoderLayerSpec()}) {
    const uint32_t layers = block->stack == Stack::kEncoder ? hp.encoder_layers : hp.decoder_layers;
    for (uint32_t i = 0; i < layers; ++i)
      for (size_t k = 0; k < block->n_linears; ++k) {
        const LinearSpec& l = block->linears[k];
        const std::string head = LayerTensor(*block, i, l.parts[0]) + ".weight";
        const TensorView* a = find(head);
        for (uint8_t p = 1; p < l.n_parts; ++p) {
          const std::string name = LayerTensor(*block, i, l.parts[p]) + ".weight";
          const TensorView* b = find(name);
          if (a && b && a->dtype != b->dtype)
            return Invalid(file, "tensor '" + name + "': dtype " + DTypeName(b->dtype) + " differs from '" + head + "' (" +
                                     DTypeName(a->dtype) + "): the projections of one attention block share a format");
        }
      }
  }
  for (const TensorView& v : tensors)
    if (!expected_names.count(v.name)) return Invalid(file, "unexpected tensor '" + std::string(v.name) + "'");
  return Status::Ok();
}

// The SentencePiece models, before anything else reads them: SentencePiece trusts its normalization rules,
// so every read they lead to is proven in bounds first. The source model's bytes go to `on_source_spm` as
// soon as they pass.
Status CheckTokenizerModels(const fb::Tokenizer* tok, const std::string& file, ModelContents* c,
                            const SourceSpmCallback& on_source_spm, std::string_view source_spm_checked) {
  if (!tok || !tok->source_spm() || !tok->target_spm() || !tok->source_vocab() || !tok->target_vocab())
    return Invalid(file, "tokenizer (source/target SentencePiece models and vocabularies) missing");
  c->source_spm = std::string_view(reinterpret_cast<const char*>(tok->source_spm()->data()), tok->source_spm()->size());
  c->target_spm = std::string_view(reinterpret_cast<const char*>(tok->target_spm()->data()), tok->target_spm()->size());
  if (c->source_spm.data() != source_spm_checked.data() || c->source_spm.size() != source_spm_checked.size())
    TERN_RETURN_IF_ERROR(CheckSentencePieceModel(c->source_spm, file + ": semantic check: tokenizer.source_spm"));
  if (const fb::PieceTrie* t = tok->source_piece_trie()) {
    c->source_piece_trie = PieceTrieArrays(t->first(), t->count(), t->label(), t->value());
    if (c->source_piece_trie.nodes == 0)
      return Invalid(file, "tokenizer.source_piece_trie: its first, count, label and value arrays must be "
                           "present and of one length (" + std::to_string(t->first() ? t->first()->size() : 0) + ", " +
                           std::to_string(t->count() ? t->count()->size() : 0) + ", " +
                           std::to_string(t->label() ? t->label()->size() : 0) + ", " +
                           std::to_string(t->value() ? t->value()->size() : 0) + ")");
  }
  if (on_source_spm) on_source_spm({c->source_spm, c->source_piece_trie});
  return CheckSentencePieceModel(c->target_spm, file + ": semantic check: tokenizer.target_spm");
}

// The vocabularies and languages (CheckTokenizerModels has passed).
Status ReadTokenizer(const fb::Tokenizer* tok, const Hyperparameters& hp, const std::string& file, ModelContents* c) {
  if (tok->source_vocab()->size() != hp.source_vocab_size)
    return Invalid(file, "tokenizer.source_vocab has " + std::to_string(tok->source_vocab()->size()) +
                             " pieces, encoder.embed_tokens.weight has " + std::to_string(hp.source_vocab_size) + " rows");
  if (tok->target_vocab()->size() != hp.target_vocab_size)
    return Invalid(file, "tokenizer.target_vocab has " + std::to_string(tok->target_vocab()->size()) +
                             " pieces, the target embedding has " + std::to_string(hp.target_vocab_size) + " rows");
  c->source_pieces = PieceList(tok->source_vocab(), tok->source_vocab()->size());
  c->target_pieces = PieceList(tok->target_vocab(), tok->target_vocab()->size());
  c->max_source_piece_bytes = c->max_target_piece_bytes = 0;
  for (const auto* s : *tok->source_vocab()) c->max_source_piece_bytes = std::max<size_t>(c->max_source_piece_bytes, s->size());
  for (const auto* s : *tok->target_vocab()) c->max_target_piece_bytes = std::max<size_t>(c->max_target_piece_bytes, s->size());
  c->clean_up_tokenization_spaces = tok->clean_up_tokenization_spaces();
  c->source_lang = View(tok->source_lang());
  c->target_lang = View(tok->target_lang());
  for (std::string_view lang : {c->source_lang, c->target_lang})
    if (lang.size() > 32 || lang.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                                std::string_view::npos)
      return Invalid(file, "tokenizer.source_lang/target_lang must be a language code of at most 32 letters, digits, '-' or '_'");
  return Status::Ok();
}

Status ReadShortlist(const fb::Shortlist* sl, const Hyperparameters& hp, const std::string& file, ShortlistView* out) {
  *out = ShortlistView();
  if (!sl) return Status::Ok();
  if (!sl->offsets() || !sl->candidates() || !sl->frequent())
    return Invalid(file, "shortlist: frequent, offsets and candidates must all be present");
  const auto& off = *sl->offsets();
  const auto& cand = *sl->candidates();
  if (off.size() != uint64_t{hp.source_vocab_size} + 1)
    return Invalid(file, "shortlist.offsets has " + std::to_string(off.size()) + " entries, expected source_vocab_size + 1 = " +
                             std::to_string(uint64_t{hp.source_vocab_size} + 1));
  if (off.Get(0) != 0 || off.Get(off.size() - 1) != cand.size())
    return Invalid(file, "shortlist.offsets must start at 0 and end at the " + std::to_string(cand.size()) + " candidates");
  for (uint32_t i = 1; i < off.size(); ++i)
    if (off.Get(i) < off.Get(i - 1))
      return Invalid(file, "shortlist.offsets decreases at source id " + std::to_string(i - 1));
  for (const auto* list : {sl->frequent(), sl->candidates()})
    for (uint32_t i = 0; i < list->size(); ++i)
      if (list->Get(i) >= hp.target_vocab_size)
        return Invalid(file, std::string("shortlist.") + (list == sl->frequent() ? "frequent" : "candidates") + " holds " +
                                 std::to_string(list->Get(i)) + ", outside the target vocabulary");
  out->frequent = sl->frequent()->data();
  out->frequent_count = sl->frequent()->size();
  out->offsets = off.data();
  out->candidates = cand.data();
  out->candidate_count = cand.size();
  out->method = View(sl->method());
  return Status::Ok();
}

}  // namespace

Status CheckSemantics(const fb::Model& f, const uint8_t* base, uint64_t size, const std::string& file, ModelContents* c,
                      uint64_t memory_budget, const SourceSpmCallback& on_source_spm,
                      std::string_view source_spm_checked) {
  const fb::Hyperparameters* h = f.hparams();
  if (!h) return Invalid(file, "hparams missing");
  TERN_RETURN_IF_ERROR(FromFb(*h, file, &c->hp));
  TERN_RETURN_IF_ERROR(CheckHyperparameters(c->hp, file));
  // The memory rule: what the header makes a reader allocate, before any of it is.
  const uint64_t tensor_count = f.tensors() ? f.tensors()->size() : 0;
  if (const uint64_t tables = LoadTableBytes(c->hp, tensor_count); tables > memory_budget) {
    const Hyperparameters& hp = c->hp;
    const uint64_t pos = hp.position_encoding == PositionEncoding::kLearned
                             ? 0 : uint64_t{hp.max_positions} * hp.d_model * sizeof(float);
    return Status(StatusCode::kResourceExhausted,
                  file + ": the tables made at load need " + std::to_string(tables) + " bytes (the position table, max_positions " +
                      std::to_string(hp.max_positions) + " x d_model " + std::to_string(hp.d_model) + " floats, " +
                      std::to_string(pos) + " bytes; views of " + std::to_string(tensor_count) + " tensors and of " +
                      std::to_string(uint64_t{hp.source_vocab_size} + hp.target_vocab_size) +
                      " vocabulary pieces), over the memory budget of " + std::to_string(memory_budget) +
                      " bytes (LoadOptions::memory_budget_bytes)");
  }
  TERN_RETURN_IF_ERROR(CheckTokenizerModels(f.tokenizer(), file, c, on_source_spm, source_spm_checked));
  if (const fb::GenerationDefaults* g = f.generation()) TERN_RETURN_IF_ERROR(FromFb(*g, file, &c->gen));
  TERN_RETURN_IF_ERROR(CheckGeneration(c->gen, c->hp, file));
  if (const fb::ArenaLimits* l = f.limits()) TERN_RETURN_IF_ERROR(FromFb(*l, file, &c->limits));
  TERN_RETURN_IF_ERROR(CheckLimits(c->limits, c->hp, file));
  if (const fb::Provenance* p = f.provenance()) TERN_RETURN_IF_ERROR(FromFb(*p, file, &c->provenance));

  const uint8_t* seg = nullptr;
  uint64_t seg_bytes = 0;
  if (const fb::DataSegment* ds = f.weights_segment()) {  // format 5: a range of the file after the FlatBuffer
    if (f.weights()) return Invalid(file, "both a weights vector and a weights_segment");
    const uint64_t off = ds->offset(), n = ds->size();
    if (c->format_version < 5) return Invalid(file, "weights_segment in a format-" + std::to_string(c->format_version) + " file");
    if (off % kSegmentAlignment != 0 || off == 0 || off > size || n > size - off)
      return Invalid(file, "weights_segment [" + std::to_string(off) + ", +" + std::to_string(n) + ") is not a multiple of " +
                               std::to_string(kSegmentAlignment) + " inside the file's " + std::to_string(size) + " bytes");
    seg = base + off;
    seg_bytes = n;
  } else {
    const auto* weights = f.weights();
    if (!weights) return Invalid(file, "weight segment missing");
    seg = weights->data();
    seg_bytes = weights->size();
  }
  if (reinterpret_cast<uintptr_t>(seg) % kTensorAlignment != 0)
    return Invalid(file, "weight segment at byte " + std::to_string(seg - base) + " is not 64-byte aligned");
  if (!f.tensors()) return Invalid(file, "tensor table missing");
  std::set<std::string_view> names;
  c->tensors.clear();
  c->tensors.reserve(f.tensors()->size());
  for (const fb::Tensor* t : *f.tensors()) {
    TensorView v;
    TERN_RETURN_IF_ERROR(ReadTensor(*t, seg, seg_bytes, file, &v));
    if (!names.insert(v.name).second) return Invalid(file, "tensor '" + std::string(v.name) + "' appears twice");
    c->tensors.push_back(v);
  }
  std::sort(c->tensors.begin(), c->tensors.end(), [](const TensorView& a, const TensorView& b) { return a.name < b.name; });
  TERN_RETURN_IF_ERROR(CheckTensorSet(c->tensors, c->hp, file, &c->weight_dtype));
  TERN_RETURN_IF_ERROR(ReadShortlist(f.shortlist(), c->hp, file, &c->shortlist));
  return ReadTokenizer(f.tokenizer(), c->hp, file, c);
}

}  // namespace tern::format
