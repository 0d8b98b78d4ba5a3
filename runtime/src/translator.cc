// Translator creation (limits, arena plan, packed layers, tokenizer) and the public API around
// Impl::Encode / Impl::Search.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "kernels.h"
#include "tern/translator.h"
#include "translator_impl.h"

namespace tern {
namespace {

// Arena phases for lifetime planning: the encoder, the cross-attention K/V projection, the decoder loop.
constexpr int kEncoder = 0, kCrossKV = 1, kDecoder = 2;

struct Binding {
  void** field;
  int id;
};

// Fills dims from model + config (0 = defaults) and registers every arena buffer with the planner.
Status PlanArena(const Model& model, const TranslatorConfig& c, Dims* dims, MemoryPlanner* planner,
                 ArenaViews* views, std::vector<Binding>* bindings) {
  const Hyperparameters& hp = model.hparams();
  const ArenaLimits& lim = model.limits();
  Dims& d = *dims;
  d.d = hp.d_model;
  d.heads = hp.n_heads;
  d.head_dim = hp.head_dim;
  d.ffn = hp.ffn_dim;
  d.vocab = hp.target_vocab_size;
  d.enc_layers = hp.encoder_layers;
  d.dec_layers = hp.decoder_layers;
  d.batch = c.max_batch ? c.max_batch : lim.max_batch;
  d.beam = c.max_beam ? c.max_beam : std::max<uint32_t>(1, model.generation().beam_size);
  d.n_best = c.max_n_best ? c.max_n_best : 1;
  d.src = c.max_source_tokens ? c.max_source_tokens : lim.max_source_tokens;
  d.tgt = c.max_target_tokens ? c.max_target_tokens : lim.max_target_tokens;
  if (d.batch > 4096 || d.beam > 64)
    return Status(StatusCode::kInvalidArgument, "Translator: max_batch (<= 4096) or max_beam (<= 64) too large");
  if (d.n_best > d.beam)
    return Status(StatusCode::kInvalidArgument, "Translator: max_n_best " + std::to_string(d.n_best) + " exceeds max_beam " +
                                                    std::to_string(d.beam));
  if (d.src > hp.max_positions || d.tgt + 1 > hp.max_positions)
    return Status(StatusCode::kInvalidArgument, "Translator: max_source_tokens " + std::to_string(d.src) +
                                                    " / max_target_tokens " + std::to_string(d.tgt) +
                                                    " exceed the model's max_positions " + std::to_string(hp.max_positions));
  if (d.src < 1 || d.tgt < 1) return Status(StatusCode::kInvalidArgument, "Translator: token limits must be >= 1");
  if (c.threads > 1024) return Status(StatusCode::kInvalidArgument, "Translator: threads " + std::to_string(c.threads) + " > 1024");
  d.rows = d.batch * d.beam;
  if (d.rows * d.heads * d.tgt * d.head_dim >= (size_t{1} << 32))
    return Status(StatusCode::kInvalidArgument, "Translator: KV cache of one layer exceeds 2^32 elements; lower the limits");
  d.src_rows = d.batch * d.src;
  d.text_bytes = d.tgt * 32 + 1;  // replaced by the tokenizer's longest piece at creation

  ArenaViews& v = *views;
  auto add = [&](auto** field, size_t count, int first, int last) {
    using T = std::remove_pointer_t<std::remove_reference_t<decltype(field)>>;
    bindings->push_back({reinterpret_cast<void**>(field), planner->AddBuffer(count * sizeof(std::remove_pointer_t<T>), first, last)});
  };
  const size_t kv = d.dec_layers * d.rows * d.heads * d.tgt * d.head_dim;
  const size_t wide = std::max(d.d, d.ffn);
  add(&v.staged_ids, d.src_rows, kEncoder, kEncoder);
  add(&v.in_len, d.batch, kEncoder, kEncoder);
  add(&v.src_ids, d.src_rows, kEncoder, kDecoder);
  add(&v.src_off, d.batch, kEncoder, kDecoder);
  add(&v.src_len, d.batch, kEncoder, kDecoder);
  add(&v.order, d.batch, kEncoder, kDecoder);
  add(&v.max_len, d.batch, kEncoder, kDecoder);
  add(&v.sentence_ok, d.batch, kEncoder, kDecoder);
  add(&v.self_k, kv, kDecoder, kDecoder);
  add(&v.self_v, kv, kDecoder, kDecoder);
  add(&v.cross_kv, d.dec_layers * d.src_rows * 2 * d.d, kCrossKV, kDecoder);
  add(&v.tokens, d.rows * d.tgt, kDecoder, kDecoder);
  add(&v.tokens_next, d.rows * d.tgt, kDecoder, kDecoder);
  add(&v.anc, d.rows * d.tgt, kDecoder, kDecoder);
  add(&v.anc_next, d.rows * d.tgt, kDecoder, kDecoder);
  add(&v.beam_scores, d.rows, kDecoder, kDecoder);
  add(&v.step_scores, d.rows, kDecoder, kDecoder);
  add(&v.step_tokens, d.rows, kDecoder, kDecoder);
  add(&v.active, d.rows, kDecoder, kDecoder);
  add(&v.active_sentence, d.rows, kDecoder, kDecoder);
  add(&v.kv_offsets, d.tgt, kDecoder, kDecoder);
  add(&v.hyp_tokens, d.batch * d.beam * d.tgt, kDecoder, kDecoder);
  add(&v.hyp_len, d.batch * d.beam, kDecoder, kDecoder);
  add(&v.hyp_score, d.batch * d.beam, kDecoder, kDecoder);
  add(&v.hyp_count, d.batch, kDecoder, kDecoder);
  add(&v.done, d.batch, kDecoder, kDecoder);
  add(&v.cand_score, 2 * d.beam, kDecoder, kDecoder);
  add(&v.cand_token, 2 * d.beam, kDecoder, kDecoder);
  add(&v.cand_beam, 2 * d.beam, kDecoder, kDecoder);
  add(&v.out_ids, d.batch * d.n_best * d.tgt, kEncoder, kDecoder);
  add(&v.out_errors, d.batch * kErrorBytes, kEncoder, kDecoder);
  add(&v.hypotheses, d.batch * d.n_best, kEncoder, kDecoder);
  add(&v.results, d.batch, kEncoder, kDecoder);
  add(&v.enc_x, d.src_rows * d.d, kEncoder, kCrossKV);
  add(&v.enc_h, d.src_rows * d.d, kEncoder, kEncoder);
  add(&v.enc_qkv, d.src_rows * 3 * d.d, kEncoder, kEncoder);
  add(&v.enc_ctx, d.src_rows * d.d, kEncoder, kEncoder);
  add(&v.enc_ffn, d.src_rows * d.ffn, kEncoder, kEncoder);
  add(&v.enc_quant.q, QuantInputBytes(d.src_rows, wide), kEncoder, kCrossKV);
  add(&v.enc_quant.params, QuantParamsBytes(d.src_rows) / sizeof(xnn_quantization_params), kEncoder, kCrossKV);
  add(&v.dec_x, d.rows * d.d, kDecoder, kDecoder);
  add(&v.dec_h, d.rows * d.d, kDecoder, kDecoder);
  add(&v.dec_qkv, d.rows * 3 * d.d, kDecoder, kDecoder);
  add(&v.dec_q, d.rows * d.d, kDecoder, kDecoder);
  add(&v.dec_ctx, d.rows * d.d, kDecoder, kDecoder);
  add(&v.dec_ffn, d.rows * d.ffn, kDecoder, kDecoder);
  add(&v.logits, d.rows * d.vocab, kDecoder, kDecoder);
  add(&v.scores, std::max(d.src, d.tgt + 1), kEncoder, kDecoder);
  add(&v.dec_quant.q, QuantInputBytes(d.rows, wide), kDecoder, kDecoder);
  add(&v.dec_quant.params, QuantParamsBytes(d.rows) / sizeof(xnn_quantization_params), kDecoder, kDecoder);
  return Status::Ok();
}

Status AddTextBuffer(const Dims& d, MemoryPlanner* planner, ArenaViews* v, std::vector<Binding>* bindings) {
  bindings->push_back({reinterpret_cast<void**>(&v->out_text), planner->AddBuffer(d.batch * d.n_best * d.text_bytes, kEncoder, kDecoder)});
  return Status::Ok();
}

const TensorView* T(const Model& m, const std::string& name) { return m.tensor(name); }

Result<Linear> MakeLinear(const Model& m, std::initializer_list<std::string> prefixes) {
  std::vector<const TensorView*> w, b;
  for (const std::string& p : prefixes) {
    w.push_back(T(m, p + ".weight"));
    b.push_back(T(m, p + ".bias"));
  }
  auto linear = Linear::Create(w.data(), b.data(), w.size());
  // XNNPACK holds its packed copy now; the file's copy of these weights is not read again.
  if (linear.ok())
    for (const TensorView* t : w) m.ReleasePages(t->data, t->bytes);
  return linear;
}

LayerNormParams Norm(const Model& m, const std::string& prefix) {
  return {T(m, prefix + ".weight")->f32(), T(m, prefix + ".bias")->f32()};
}

#define TERN_ASSIGN(lhs, expr)                    \
  do {                                            \
    auto _r = (expr);                             \
    if (!_r.ok()) return _r.status();             \
    lhs = std::move(_r.value());                  \
  } while (0)

}  // namespace

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

Result<size_t> Translator::RequiredArenaBytes(const Model& model, const TranslatorConfig& config) {
  Dims dims;
  MemoryPlanner planner;
  ArenaViews views;
  std::vector<Binding> bindings;
  TERN_RETURN_IF_ERROR(PlanArena(model, config, &dims, &planner, &views, &bindings));
  size_t max_piece = 6;
  for (std::string_view p : model.target_vocab()) max_piece = std::max(max_piece, p.size());
  dims.text_bytes = dims.tgt * max_piece + 1;
  TERN_RETURN_IF_ERROR(AddTextBuffer(dims, &planner, &views, &bindings));
  planner.Plan();
  return planner.total_bytes();
}

Result<std::unique_ptr<Translator>> Translator::Create(std::shared_ptr<const Model> model, const TranslatorConfig& config) {
  if (!model) return Status(StatusCode::kInvalidArgument, "Translator: no model");
  TERN_RETURN_IF_ERROR(InitXnnpack());
  auto impl = std::make_unique<Impl>();
  Impl& t = *impl;
  t.model = model;
  t.hp = &model->hparams();
  t.config = config;
  const Model& m = *model;

  MemoryPlanner planner;
  std::vector<Binding> bindings;
  TERN_RETURN_IF_ERROR(PlanArena(m, config, &t.dims, &planner, &t.a, &bindings));
  TERN_ASSIGN(t.tokenizer, Tokenizer::Create(m));
  t.dims.text_bytes = t.dims.tgt * t.tokenizer->max_piece_bytes() + 1;
  TERN_RETURN_IF_ERROR(AddTextBuffer(t.dims, &planner, &t.a, &bindings));
  planner.Plan();
  t.arena_bytes = planner.total_bytes();
  t.arena_unshared_bytes = planner.unshared_bytes();
  uint8_t* base;
  if (config.arena) {
    if (reinterpret_cast<uintptr_t>(config.arena) % MemoryPlanner::kAlignment != 0)
      return Status(StatusCode::kInvalidArgument, "Translator: caller's arena is not 64-byte aligned");
    if (config.arena_bytes < t.arena_bytes)
      return Status(StatusCode::kInvalidArgument, "Translator: caller's arena has " + std::to_string(config.arena_bytes) +
                                                      " bytes, the limits need " + std::to_string(t.arena_bytes));
    base = static_cast<uint8_t*>(config.arena);
  } else {
    t.owned_arena.reset(new (std::nothrow) uint8_t[t.arena_bytes + MemoryPlanner::kAlignment]);
    if (!t.owned_arena)
      return Status(StatusCode::kResourceExhausted, "Translator: cannot allocate a " + std::to_string(t.arena_bytes) + "-byte arena");
    base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(t.owned_arena.get()) + MemoryPlanner::kAlignment - 1) &
                                      ~uintptr_t{MemoryPlanner::kAlignment - 1});
  }
  for (const Binding& b : bindings) *b.field = base + planner.offset(b.id);

  t.threads = config.threads ? config.threads : DefaultThreadCount();
  t.pool = MakeThreadPool(t.threads);
  TERN_ASSIGN(t.quantizer, RowQuantizer::Create());

  // Pack every layer's weights for XNNPACK (Q|K|V fused, cross K|V fused).
  for (uint32_t i = 0; i < t.hp->encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    EncoderLayer l;
    TERN_ASSIGN(l.qkv, MakeLinear(m, {p + ".self_attn.q_proj", p + ".self_attn.k_proj", p + ".self_attn.v_proj"}));
    TERN_ASSIGN(l.out, MakeLinear(m, {p + ".self_attn.out_proj"}));
    TERN_ASSIGN(l.fc1, MakeLinear(m, {p + ".fc1"}));
    TERN_ASSIGN(l.fc2, MakeLinear(m, {p + ".fc2"}));
    l.self_attn_norm = Norm(m, p + ".self_attn_layer_norm");
    l.final_norm = Norm(m, p + ".final_layer_norm");
    t.encoder.push_back(std::move(l));
  }
  for (uint32_t i = 0; i < t.hp->decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    DecoderLayer l;
    TERN_ASSIGN(l.qkv, MakeLinear(m, {p + ".self_attn.q_proj", p + ".self_attn.k_proj", p + ".self_attn.v_proj"}));
    TERN_ASSIGN(l.out, MakeLinear(m, {p + ".self_attn.out_proj"}));
    TERN_ASSIGN(l.cross_q, MakeLinear(m, {p + ".encoder_attn.q_proj"}));
    TERN_ASSIGN(l.cross_kv, MakeLinear(m, {p + ".encoder_attn.k_proj", p + ".encoder_attn.v_proj"}));
    TERN_ASSIGN(l.cross_out, MakeLinear(m, {p + ".encoder_attn.out_proj"}));
    TERN_ASSIGN(l.fc1, MakeLinear(m, {p + ".fc1"}));
    TERN_ASSIGN(l.fc2, MakeLinear(m, {p + ".fc2"}));
    l.self_attn_norm = Norm(m, p + ".self_attn_layer_norm");
    l.cross_attn_norm = Norm(m, p + ".encoder_attn_layer_norm");
    l.final_norm = Norm(m, p + ".final_layer_norm");
    t.decoder.push_back(std::move(l));
  }
  if (t.hp->norm_placement == NormPlacement::kPreNorm) {
    t.encoder_final_norm = Norm(m, "encoder.layer_norm");
    t.decoder_final_norm = Norm(m, "decoder.layer_norm");
  }
  t.encoder_embedding = T(m, "encoder.embed_tokens.weight");
  t.decoder_embedding = t.hp->shared_embeddings ? t.encoder_embedding : T(m, "decoder.embed_tokens.weight");
  {
    const TensorView* proj = t.hp->tied_output_projection ? t.decoder_embedding : T(m, "lm_head.weight");
    const TensorView* bias = t.hp->final_logits_bias ? T(m, "final_logits_bias") : nullptr;
    TERN_ASSIGN(t.output_projection, Linear::Create(&proj, &bias, 1));
    if (!t.hp->tied_output_projection) m.ReleasePages(proj->data, proj->bytes);  // a tied one is also the embedding
  }
  t.bad_token.assign(t.hp->target_vocab_size, 0);
  t.bad_token[t.hp->pad_id] = 1;  // pad is never generated
  for (uint32_t id : m.generation().bad_word_ids) t.bad_token[id] = 1;
  return std::unique_ptr<Translator>(new Translator(std::move(impl)));
}

Status Translator::Impl::RunLinear(const Linear& l, const float* x, size_t rows, float* y, const QuantScratch& q) {
  if (rows == 0) return Status::Ok();
  if (l.quantized()) TERN_RETURN_IF_ERROR(quantizer.Run(x, rows, l.in_features(), q, pool.get()));
  return l.Run(x, q, rows, y, pool.get());
}

const float* Translator::Impl::SublayerInput(const float* x, const LayerNormParams& norm, size_t rows, float* h) const {
  if (hp->norm_placement != NormPlacement::kPreNorm) return x;
  LayerNorm(x, norm.gamma, norm.beta, hp->layer_norm_epsilon, rows, dims.d, h);
  return h;
}

Status Translator::Impl::ResidualOut(const Linear& out, const float* ctx, const LayerNormParams& norm, size_t rows, float* x,
                                     float* h, const QuantScratch& q) {
  TERN_RETURN_IF_ERROR(RunLinear(out, ctx, rows, h, q));
  AddInPlace(x, h, rows * dims.d);
  if (hp->norm_placement == NormPlacement::kPostNorm) LayerNorm(x, norm.gamma, norm.beta, hp->layer_norm_epsilon, rows, dims.d, x);
  return Status::Ok();
}

Status Translator::Impl::FeedForward(const Linear& fc1, const Linear& fc2, const LayerNormParams& norm, size_t rows, float* x,
                                     float* h, float* ffn, const QuantScratch& q) {
  TERN_RETURN_IF_ERROR(RunLinear(fc1, SublayerInput(x, norm, rows, h), rows, ffn, q));
  Activate(hp->activation, ffn, rows * dims.ffn);
  return ResidualOut(fc2, ffn, norm, rows, x, h, q);
}

namespace {

// Resolves per-call options against the file's defaults and the Translator's limits.
Status ResolveOptions(const Translator::Impl& t, size_t n, const TranslateOptions& o, uint32_t* beam, float* lp,
                      uint32_t* max_length, float* ratio) {
  const GenerationDefaults& g = t.model->generation();
  if (n > t.dims.batch)
    return Status(StatusCode::kInvalidArgument, std::to_string(n) + " sentences exceed max_batch " + std::to_string(t.dims.batch));
  *beam = o.beam_size ? o.beam_size : std::min<uint32_t>(g.beam_size, t.dims.beam);
  if (*beam > t.dims.beam)
    return Status(StatusCode::kInvalidArgument, "beam_size " + std::to_string(*beam) + " exceeds the Translator's max_beam " +
                                                    std::to_string(t.dims.beam));
  if (o.n_best < 1 || o.n_best > *beam || o.n_best > t.dims.n_best)
    return Status(StatusCode::kInvalidArgument, "n_best " + std::to_string(o.n_best) + " must be in 1..min(beam_size " +
                                                    std::to_string(*beam) + ", max_n_best " + std::to_string(t.dims.n_best) + ")");
  *lp = o.length_penalty < -1e29f ? g.length_penalty : o.length_penalty;
  if (!std::isfinite(*lp)) return Status(StatusCode::kInvalidArgument, "length_penalty must be finite");
  *max_length = std::min<uint32_t>(o.max_length ? o.max_length : g.max_length, static_cast<uint32_t>(t.dims.tgt));
  *ratio = o.max_length_ratio < 0.f ? g.max_length_ratio : o.max_length_ratio;
  if (!std::isfinite(*ratio)) return Status(StatusCode::kInvalidArgument, "max_length_ratio must be finite");
  return Status::Ok();
}

void SetError(Translator::Impl& t, size_t input_index, StatusCode code, const std::string& msg) {
  char* buf = t.a.out_errors + input_index * kErrorBytes;
  const size_t n = std::min(msg.size(), kErrorBytes - 1);
  std::memcpy(buf, msg.data(), n);
  buf[n] = 0;
  t.a.results[input_index].error = code;
  t.a.results[input_index].error_message = std::string_view(buf, n);
  t.a.results[input_index].hypotheses = {};
  t.a.sentence_ok[input_index] = 0;
}

// Orders the valid sentences by source length, packs their ids and translates them.
Status RunBatch(Translator::Impl& t, size_t n, const TranslateOptions& o, uint32_t beam, float lp, uint32_t max_length,
                float ratio) {
  ArenaViews& a = t.a;
  size_t valid = 0;
  for (size_t i = 0; i < n; ++i)
    if (a.sentence_ok[i]) a.order[valid++] = static_cast<uint32_t>(i);
  // Stable insertion sort by length (no allocation); a batch is small.
  for (size_t i = 1; i < valid; ++i) {
    const uint32_t x = a.order[i];
    size_t j = i;
    while (j > 0 && a.in_len[a.order[j - 1]] > a.in_len[x]) a.order[j] = a.order[j - 1], --j;
    a.order[j] = x;
  }
  // Sources were staged at staged_ids[input index * src]; pack them in length order.
  uint32_t off = 0;
  for (size_t b = 0; b < valid; ++b) {
    const uint32_t i = a.order[b];
    const uint32_t len = a.in_len[i];
    std::memcpy(a.src_ids + off, a.staged_ids + size_t{i} * t.dims.src, len * sizeof(uint32_t));
    a.src_off[b] = off;
    a.src_len[b] = len;
    off += len;
    uint32_t cap = max_length;
    if (ratio > 0.f) cap = std::min<uint32_t>(cap, static_cast<uint32_t>(std::ceil(ratio * len)) + 10);
    a.max_len[b] = std::max<uint32_t>(cap, 1);
  }
  if (valid == 0) return Status::Ok();
  TERN_RETURN_IF_ERROR(t.Encode(valid));
  return t.Search(valid, beam, lp, o.n_best, o.return_scores);
}

}  // namespace

namespace {

// The shared shape of a translate call: resolve options, reset each result, stage sentence i with
// stage(i) (which copies its ids to staged_ids/in_len or records its error), translate the batch.
template <typename StageFn>
Status RunCall(Translator::Impl& t, size_t n, const TranslateOptions& o, StageFn stage) {
  uint32_t beam, max_length;
  float lp, ratio;
  TERN_RETURN_IF_ERROR(ResolveOptions(t, n, o, &beam, &lp, &max_length, &ratio));
  for (size_t i = 0; i < n; ++i) {
    t.a.results[i] = TranslationResult();
    t.a.sentence_ok[i] = 1;
    stage(i);
  }
  return RunBatch(t, n, o, beam, lp, max_length, ratio);
}

}  // namespace

Status Translator::TranslateIds(Span<const Span<const uint32_t>> sources, const TranslateOptions& options,
                                Span<const TranslationResult>* results) {
  Impl& t = *impl_;
  TERN_RETURN_IF_ERROR(RunCall(t, sources.size(), options, [&](size_t i) {
    const Span<const uint32_t>& s = sources[i];
    if (s.size() == 0) return SetError(t, i, StatusCode::kInvalidArgument, "no source ids (at least </s> is needed)");
    if (s.size() > t.dims.src)
      return SetError(t, i, StatusCode::kResourceExhausted,
                      std::to_string(s.size()) + " source tokens exceed max_source_tokens " + std::to_string(t.dims.src));
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] >= t.hp->source_vocab_size)
        return SetError(t, i, StatusCode::kInvalidArgument,
                        "id " + std::to_string(s[k]) + " at position " + std::to_string(k) +
                            " is outside the source vocabulary (" + std::to_string(t.hp->source_vocab_size) + ")");
    }
    std::memcpy(t.a.staged_ids + i * t.dims.src, s.data(), s.size() * sizeof(uint32_t));
    t.a.in_len[i] = static_cast<uint32_t>(s.size());
  }));
  *results = Span<const TranslationResult>(t.a.results, sources.size());
  return Status::Ok();
}

Status Translator::Translate(Span<const std::string_view> sentences, const TranslateOptions& options,
                             Span<const TranslationResult>* results) {
  Impl& t = *impl_;
  const size_t n = sentences.size();
  TERN_RETURN_IF_ERROR(RunCall(t, n, options, [&](size_t i) {
    if (sentences[i].find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) {
      // Nothing to translate: an empty translation, without running the model.
      Hypothesis& h = t.a.hypotheses[i * t.dims.n_best];
      h = Hypothesis();
      t.a.results[i].hypotheses = Span<const Hypothesis>(&h, 1);
      t.a.sentence_ok[i] = 0;
      return;
    }
    size_t len = 0;
    Status s = t.tokenizer->Encode(sentences[i], t.a.staged_ids + i * t.dims.src, t.dims.src, &len);
    if (!s.ok()) return SetError(t, i, s.code(), s.message());
    t.a.in_len[i] = static_cast<uint32_t>(len);
  }));
  // Detokenize every hypothesis into the arena's text buffer.
  for (size_t i = 0; i < n; ++i) {
    TranslationResult& r = t.a.results[i];
    if (!r.ok()) continue;
    for (size_t k = 0; k < r.hypotheses.size(); ++k) {
      Hypothesis& h = const_cast<Hypothesis&>(r.hypotheses[k]);
      char* buf = t.a.out_text + (i * t.dims.n_best + k) * t.dims.text_bytes;
      const size_t len = t.tokenizer->Decode(h.ids.data(), h.ids.size(), buf, t.dims.text_bytes);
      h.text = std::string_view(buf, len);
    }
  }
  *results = Span<const TranslationResult>(t.a.results, n);
  return Status::Ok();
}

Translator::Impl& ImplOf(Translator& t) { return *t.impl_; }

namespace testing {

Status TeacherForced(Translator& tr, Span<const uint32_t> src, Span<const uint32_t> tgt_in, float* encoder_out, float* logits) {
  Translator::Impl& t = ImplOf(tr);
  if (src.size() == 0 || src.size() > t.dims.src || tgt_in.size() == 0 || tgt_in.size() > t.dims.tgt)
    return Status(StatusCode::kInvalidArgument, "TeacherForced: lengths outside the limits");
  std::memcpy(t.a.src_ids, src.data(), src.size() * sizeof(uint32_t));
  t.a.src_off[0] = 0;
  t.a.src_len[0] = static_cast<uint32_t>(src.size());
  TERN_RETURN_IF_ERROR(t.Encode(1));
  std::memcpy(encoder_out, t.a.enc_x, src.size() * t.dims.d * sizeof(float));
  t.a.active[0] = 0;
  t.a.active_sentence[0] = 0;
  for (size_t pos = 0; pos < tgt_in.size(); ++pos) {
    t.a.anc[pos] = 0;
    TERN_RETURN_IF_ERROR(t.DecodeStep(1, pos, tgt_in.data() + pos));
    std::memcpy(logits + pos * t.dims.vocab, t.a.logits, t.dims.vocab * sizeof(float));
  }
  return Status::Ok();
}

}  // namespace testing

size_t Translator::arena_bytes() const { return impl_->arena_bytes; }
size_t Translator::arena_unshared_bytes() const { return impl_->arena_unshared_bytes; }
uint32_t Translator::threads() const { return impl_->threads; }
const TranslatorConfig& Translator::config() const { return impl_->config; }
const Model& Translator::model() const { return *impl_->model; }
void Translator::EnableProfile(bool on) { impl_->profiling = on; }
const Profile& Translator::profile() const { return impl_->profile; }
void Translator::ResetProfile() { impl_->profile = Profile(); }

}  // namespace tern
