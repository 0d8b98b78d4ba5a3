// Every arena buffer of a Translator, grouped by the component that owns it, with its shape. One
// planning path (PlanArena) serves Translator::Create, RequiredArenaBytes and the plan `tern inspect`
// prints. Sizes come from Dims, the resolved limits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arena.h"
#include "tern/translator.h"
#include "xnn_ops.h"

namespace tern {

/// Sizes the arena is planned for (elements or tokens).
struct Dims {
  size_t d = 0, heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  size_t enc_layers = 0, dec_layers = 0;
  size_t batch = 0, beam = 0, n_best = 0, rows = 0;  // rows = batch x beam
  size_t src = 0, tgt = 0;                            // max source tokens (with </s>), max generated tokens
  size_t src_rows = 0;                                // batch x src: encoder rows
  size_t text_bytes = 0;                              // detokenized text per hypothesis, bytes
  bool shortlist = false;                             // the model has a shortlist: VocabBuffers are planned
};

/// An upper bound of the arena PlanArena makes for `d`, in bytes, computed in 64 bits (no sharing).
uint64_t ArenaUpperBound(const Dims& d);

/// Resolves `config` against `model` (0 = the file's default) into Dims, checking every limit in 64-bit
/// arithmetic. Errors: kInvalidArgument (naming the limit), kResourceExhausted (the arena and the model's
/// own memory would exceed the model's memory budget; LoadOptions in tern/model.h).
Result<Dims> ResolveDims(const Model& model, const TranslatorConfig& config);

/// Row-quantized copy of a batch of activations (int8 weights): the QuantScratch of xnn_ops.h.
struct QuantBuffers {
  ArenaArray<int8_t> q;                          // [rows x max(d_model, ffn_dim)] + XNN_EXTRA_BYTES
  ArenaArray<xnn_quantization_params> params;    // [rows + XNN_EXTRA_QUANTIZATION_PARAMS]
  QuantScratch scratch() const { return {q.data(), params.data()}; }
};

/// Sources of one call (batch staging, batch.cc).
struct BatchBuffers {
  ArenaArray<uint32_t> staged_ids;   // [batch, src] source ids by input index, before packing
  ArenaArray<uint32_t> in_len;       // [batch] source tokens by input index
  ArenaArray<uint32_t> src_ids;      // [src_rows] packed in length order: sentence b at src_off[b] .. + src_len[b]
  ArenaArray<uint32_t> src_off;      // [batch] (length order)
  ArenaArray<uint32_t> src_len;      // [batch] (length order)
  ArenaArray<uint32_t> order;        // [batch] input index of the b-th sentence in length order
  ArenaArray<uint32_t> max_len;      // [batch] generated-token cap of each sentence (length order)
  ArenaArray<uint8_t> sentence_ok;   // [batch] per input index
};

/// Encoder activations (encoder.cc).
struct EncoderBuffers {
  ArenaArray<float> x;     // [src_rows, d] (lives into the cross-K/V phase: its input)
  ArenaArray<float> h;     // [src_rows, d]
  ArenaArray<float> qkv;   // [src_rows, 3 d]
  ArenaArray<float> ctx;   // [src_rows, d]
  ArenaArray<float> ffn;   // [src_rows, ffn]
  QuantBuffers quant;      // [src_rows, max(d, ffn)]
};

/// Decoder state and activations (decoder.cc).
struct DecoderBuffers {
  ArenaArray<float> self_k, self_v;  // KV cache [dec_layers, rows, heads, tgt, head_dim]
  ArenaArray<float> cross_kv;        // [dec_layers, src_rows, 2 d]: K | V of every source token
  ArenaArray<uint32_t> kv_offsets;   // [tgt] per-position offsets into the KV cache for one row
  ArenaArray<float> x, h;            // [rows, d]
  ArenaArray<float> qkv;             // [rows, 3 d]
  ArenaArray<float> q, ctx;          // [rows, d]
  ArenaArray<float> ffn;             // [rows, ffn]
  ArenaArray<float> logits;          // [rows, vocab]
  QuantBuffers quant;                // [rows, max(d, ffn)]
};

/// Search state (search/): beam slots, ancestry, finished hypotheses, candidates.
struct SearchBuffers {
  ArenaArray<uint32_t> tokens, tokens_next;  // [rows, tgt] generated tokens of each beam slot
  ArenaArray<uint32_t> anc, anc_next;        // [rows, tgt] slot whose KV cache holds position p of this hypothesis
  ArenaArray<float> beam_scores;             // [rows] running sum of log-probabilities
  ArenaArray<float> step_scores;             // [rows] new beam scores while a sentence's beams are reordered
  ArenaArray<uint32_t> step_tokens;          // [rows] input token of each active row this step
  ArenaArray<uint32_t> active;               // [rows] slots decoded this step
  ArenaArray<uint32_t> active_sentence;      // [rows] sentence of each active row
  ArenaArray<uint32_t> hyp_tokens;           // [batch, beam, tgt] finished hypotheses
  ArenaArray<uint32_t> hyp_len;              // [batch, beam]
  ArenaArray<float> hyp_score;               // [batch, beam]
  ArenaArray<uint32_t> hyp_count;            // [batch]
  ArenaArray<uint8_t> done;                  // [batch]
  ArenaArray<float> cand_score;              // [2 beam] candidates of one sentence
  ArenaArray<uint32_t> cand_token, cand_beam;
  ArenaArray<uint32_t> cand_seq;             // [tgt] one candidate's tokens as it enters the finished set
  ArenaArray<uint32_t> stream_emitted;       // [batch] text bytes already streamed per sentence (input order)
};

/// The shortlist of one call (search/vocab_map.h): sized [target vocab] when the model has a shortlist, empty otherwise.
struct VocabBuffers {
  ArenaArray<uint32_t> tokens;  // the map's tokens, ascending
  ArenaArray<int32_t> index;    // column of each token, -1 where absent
  ArenaArray<uint8_t> mask;     // the token mask per column
};

/// What a call returns (views into these stay valid until the next call).
struct ResultBuffers {
  ArenaArray<uint32_t> out_ids;              // [batch, n_best, tgt]
  ArenaArray<char> out_text;                 // [batch, n_best, text_bytes]
  ArenaArray<char> out_errors;               // [batch, kErrorBytes]
  ArenaArray<Hypothesis> hypotheses;         // [batch, n_best]
  ArenaArray<TranslationResult> results;     // [batch]
};

/// Bytes of one sentence's error message, NUL included (longer messages are cut).
constexpr size_t kErrorBytes = 192;

struct SessionBuffers {
  BatchBuffers batch;
  EncoderBuffers enc;
  DecoderBuffers dec;
  SearchBuffers search;
  VocabBuffers vocab;
  ResultBuffers results;
  ArenaArray<float> attention_scores;  // [max(src, tgt + 1)] one attention row's scores (encoder and decoder)
};

/// Declares every buffer of `b` for `dims` and places them. The one planning path.
void PlanArena(const Dims& dims, SessionBuffers* b, ArenaPlan* plan);

}  // namespace tern
