// Streams a call's generated tokens to TranslateOptions::on_token and checks its abort callback (see
// TokenEvent in tern/translator.h for what is streamed). The search reports tokens by sentence (length
// order); this component maps them to the caller's indices, detokenizes the hypothesis so far into the
// sentence's result text buffer (it is rewritten with the same text at the end) and emits what became
// final: the text up to its last space, the rest with the last token. No allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tern/translator.h"

namespace tern {

class Tokenizer;

class TokenStream {
 public:
  /// Where a sentence of the call comes from: (input index, part, parts) of TokenEvent.
  struct Origin {
    uint32_t index = 0, part = 0, parts = 1;
  };
  /// For one call: `text` holds text_bytes bytes per input sentence (input order, `stride` bytes apart),
  /// `emitted` one counter per input sentence; `order` maps length order to input order; `origins` (or
  /// nullptr: sentence i is input i, one part) maps input sentences to the caller's indices.
  void Begin(const TranslateOptions& o, const Tokenizer* tokenizer, char* text, size_t stride, size_t text_bytes,
             uint32_t* emitted, const uint32_t* order, const Origin* origins);
  /// Whether tokens are streamed in this call.
  bool streaming() const { return callback_ != nullptr; }

  /// Sentence b (length order) gained `token` (its log-probability `logprob`); ids[0..n) is its hypothesis
  /// so far without </s>; `last` when the sentence is complete.
  void Token(size_t b, uint32_t token, float logprob, const uint32_t* ids, size_t n, bool last);
  /// A finished hypothesis ids[0..n) of sentence b at once (beam search), ending with `final_token`;
  /// logprobs[k] is token k's (k <= n when final_token is not ids[n - 1]).
  void Hypothesis(size_t b, const uint32_t* ids, const float* logprobs, size_t n, uint32_t final_token);

  /// True once a callback asked to stop; checks the abort callback (before a decoder step).
  bool Stopped();
  bool stopped() const { return stopped_; }

 private:
  TokenCallback callback_ = nullptr;
  void* user_data_ = nullptr;
  AbortCallback abort_ = nullptr;
  void* abort_data_ = nullptr;
  const Tokenizer* tokenizer_ = nullptr;
  char* text_ = nullptr;
  size_t stride_ = 0, text_bytes_ = 0;
  uint32_t* emitted_ = nullptr;
  const uint32_t* order_ = nullptr;
  const Origin* origins_ = nullptr;
  bool stopped_ = false;
};

}  // namespace tern
