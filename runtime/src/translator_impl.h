// Internal state of a Translator: the packed layers, the arena plan and the views into the arena.
// Shared by translator.cc (creation, API), encoder.cc, decoder.cc and search.cc.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "memory_planner.h"
#include "tern/translator.h"
#include "tokenizer.h"
#include "xnn_ops.h"

namespace tern {

/// One LayerNorm's parameters (f32 [d_model] each, pointing into the model file).
struct LayerNormParams {
  const float* gamma = nullptr;
  const float* beta = nullptr;
};

struct EncoderLayer {
  Linear qkv, out, fc1, fc2;  // qkv: fused [3 d_model, d_model]
  LayerNormParams self_attn_norm, final_norm;
};

struct DecoderLayer {
  Linear qkv, out;             // self-attention, qkv fused [3 d_model, d_model]
  Linear cross_q, cross_kv, cross_out;  // cross_kv fused [2 d_model, d_model], applied once to the encoder output
  Linear fc1, fc2;
  LayerNormParams self_attn_norm, cross_attn_norm, final_norm;
};

/// Sizes the arena is planned for (all in elements or tokens).
struct Dims {
  size_t d = 0, heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  size_t enc_layers = 0, dec_layers = 0;
  size_t batch = 0, beam = 0, n_best = 0, rows = 0;  // rows = batch x beam
  size_t src = 0, tgt = 0;                            // max source tokens, max target tokens
  size_t src_rows = 0;                                // batch x src: encoder rows
  size_t text_bytes = 0;                              // per hypothesis
};

/// Views of the arena; each field points to a buffer the MemoryPlanner placed.
struct ArenaViews {
  // Persistent for the whole call.
  uint32_t* staged_ids = nullptr;   // [batch, src] source ids by input index, before packing
  uint32_t* in_len = nullptr;       // [batch] source tokens by input index
  uint32_t* src_ids = nullptr;      // [src_rows] packed in length order: sentence b at src_off[b] .. + src_len[b]
  uint32_t* src_off = nullptr;      // [batch] (length order)
  uint32_t* src_len = nullptr;      // [batch] (length order)
  uint32_t* order = nullptr;        // [batch] input index of the b-th sentence in length order
  uint32_t* max_len = nullptr;      // [batch] generated-token cap of each sentence
  uint8_t* sentence_ok = nullptr;   // [batch] per input index
  float* self_k = nullptr;          // [dec_layers, rows, heads, tgt, head_dim]
  float* self_v = nullptr;
  float* cross_kv = nullptr;        // [dec_layers, src_rows, 2 d]: K | V of every source token
  uint32_t* tokens = nullptr;       // [rows, tgt] generated tokens of each beam slot
  uint32_t* tokens_next = nullptr;
  uint32_t* anc = nullptr;          // [rows, tgt] slot whose KV cache holds position p of this hypothesis
  uint32_t* anc_next = nullptr;
  float* beam_scores = nullptr;     // [rows] running sum of log-probabilities
  float* step_scores = nullptr;     // [rows] new beam scores while a sentence's beams are reordered
  uint32_t* step_tokens = nullptr;  // [rows] input token of each active row this step
  uint32_t* active = nullptr;       // [rows] slots decoded this step
  uint32_t* active_sentence = nullptr;  // [rows] sentence of each active row
  uint32_t* kv_offsets = nullptr;   // [tgt] per-position offsets into the KV cache for one row
  uint32_t* hyp_tokens = nullptr;   // [batch, beam, tgt] finished hypotheses
  uint32_t* hyp_len = nullptr;      // [batch, beam]
  float* hyp_score = nullptr;       // [batch, beam]
  uint32_t* hyp_count = nullptr;    // [batch]
  uint8_t* done = nullptr;          // [batch]
  float* cand_score = nullptr;      // [2 beam] candidates of one sentence
  uint32_t* cand_token = nullptr;
  uint32_t* cand_beam = nullptr;
  uint32_t* out_ids = nullptr;      // [batch, n_best, tgt]
  char* out_text = nullptr;         // [batch, n_best, text_bytes]
  char* out_errors = nullptr;       // [batch, kErrorBytes]
  Hypothesis* hypotheses = nullptr; // [batch, n_best]
  TranslationResult* results = nullptr;  // [batch]
  // Encoder phase.
  float* enc_x = nullptr;           // [src_rows, d] (lives into the cross-KV phase)
  float* enc_h = nullptr;           // [src_rows, d]
  float* enc_qkv = nullptr;         // [src_rows, 3 d]
  float* enc_ctx = nullptr;         // [src_rows, d]
  float* enc_ffn = nullptr;         // [src_rows, ffn]
  QuantScratch enc_quant;           // [src_rows, max(d, ffn)]
  // Decoder phase.
  float* dec_x = nullptr;           // [rows, d]
  float* dec_h = nullptr;           // [rows, d]
  float* dec_qkv = nullptr;         // [rows, 3 d]
  float* dec_q = nullptr;           // [rows, d]
  float* dec_ctx = nullptr;         // [rows, d]
  float* dec_ffn = nullptr;         // [rows, ffn]
  float* logits = nullptr;          // [rows, vocab]
  float* scores = nullptr;          // [max(src, tgt)] attention scratch
  QuantScratch dec_quant;           // [rows, max(d, ffn)]
};

constexpr size_t kErrorBytes = 192;

struct Translator::Impl {
  std::shared_ptr<const Model> model;
  const Hyperparameters* hp = nullptr;
  TranslatorConfig config;
  Dims dims;
  uint32_t threads = 1;
  ThreadPool pool;
  std::unique_ptr<Tokenizer> tokenizer;
  RowQuantizer quantizer;
  std::vector<EncoderLayer> encoder;
  std::vector<DecoderLayer> decoder;
  LayerNormParams encoder_final_norm, decoder_final_norm;  // pre-norm only
  Linear output_projection;                                // logits = x @ E_dec^T + final_logits_bias
  const TensorView* encoder_embedding = nullptr;
  const TensorView* decoder_embedding = nullptr;
  std::vector<uint8_t> bad_token;                          // [vocab] 1 = never generated
  size_t arena_bytes = 0, arena_unshared_bytes = 0;
  std::unique_ptr<uint8_t[]> owned_arena;
  ArenaViews a;
  bool profiling = false;
  Profile profile;

  // encoder.cc: runs the encoder on the packed source (n_sentences, a.src_*) and fills a.cross_kv.
  Status Encode(size_t n_sentences);
  // decoder.cc: one decoder step for the active rows at position `pos`; input token of each active row
  // in `input_tokens`; writes logits [n_active, vocab].
  Status DecodeStep(size_t n_active, size_t pos, const uint32_t* input_tokens);
  // search.cc: greedy or beam search for n sentences; fills hypotheses and results.
  Status Search(size_t n_sentences, uint32_t beam, float length_penalty, uint32_t n_best, bool scores);

  // Runs a Linear on rows of x, quantizing x first when the weights are int8.
  Status RunLinear(const Linear& l, const float* x, size_t rows, float* y, const QuantScratch& q);

  // Sublayer plumbing shared by encoder and decoder (x, h: [rows, d_model]):
  // SublayerInput: the sublayer's input: x (post-norm) or LayerNorm(x) written to h (pre-norm).
  const float* SublayerInput(const float* x, const LayerNormParams& norm, size_t rows, float* h) const;
  // ResidualOut: h = out(ctx); x += h; then x = LayerNorm(x) for post-norm.
  Status ResidualOut(const Linear& out, const float* ctx, const LayerNormParams& norm, size_t rows, float* x, float* h,
                     const QuantScratch& q);
  // FeedForward: x = x + fc2(act(fc1(input))), with the norm placed as above; ffn: [rows, ffn_dim] scratch.
  Status FeedForward(const Linear& fc1, const Linear& fc2, const LayerNormParams& norm, size_t rows, float* x, float* h,
                     float* ffn, const QuantScratch& q);

  using Clock = std::chrono::steady_clock;
  Clock::time_point Tick() const { return profiling ? Clock::now() : Clock::time_point(); }
  void Tock(Clock::time_point t0, double* ms) {
    if (profiling) *ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
};

}  // namespace tern
