// The sizes a Translator's arena is planned for (elements or tokens), resolved from its TranslatorConfig
// and the model (session/buffers.h: ResolveDims). Every component declares its buffers from these.
#pragma once

#include <cstddef>

namespace tern {

struct Dims {
  size_t d = 0, heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  size_t enc_layers = 0, dec_layers = 0;
  size_t batch = 0, beam = 0, n_best = 0, rows = 0;  // rows = batch x beam (KV-cache slots, beam slots)
  size_t src = 0, tgt = 0;                            // max source tokens (with </s>), max generated tokens
  size_t src_rows = 0;                                // batch x src: encoder rows
  size_t text_bytes = 0;                              // detokenized text per hypothesis, bytes
  size_t src_text_bytes = 0;                          // the text a source of `src` ids spells (a glossary on ids), bytes
  bool shortlist = false;                             // the model has a shortlist: VocabBuffers are planned
  bool attention = false;                             // TranslatorConfig::attention: AttentionBuffers are planned
  bool continuous = false;                            // TranslatorConfig::continuous_batching: ContinuousCallBuffers
};

}  // namespace tern
