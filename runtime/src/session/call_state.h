// What one call sets on its Translator while it runs, in one place: the session (arena, network, tokenizer,
// the file's rules) holds nothing else of a call. Every entry point opens a CallScope, which leaves the state
// as a new call expects it however the call ends (an error, a cancellation, a callback that threw).
#pragma once

#include <cstdint>

#include "search/token_stream.h"

namespace tern {

struct CallState {
  TokenStream stream;                            // the call's token callback and abort check
  bool streaming = false;                        // the call has a token or abort callback
  const TokenStream::Origin* origins = nullptr;  // paragraph calls: the text and part of each sentence
  int alignment_layer = -1;                      // the decoder layer whose cross-attention gives token_sources
  float* attention = nullptr;                    // the attention pass: where Decode writes each row's cross-attention
  uint32_t expand = 0;                           // > 0: return_alternatives' first pass (session/alternatives_call.h)
  uint32_t alternatives = 0;                     // > 0: its second pass, k sentences per input (their sampling keys)

  /// Everything but the stream's own state (TokenStream::Begin sets that at each call) as before a call.
  void Reset() {
    streaming = false;
    origins = nullptr;
    alignment_layer = -1;
    attention = nullptr;
    expand = 0;
    alternatives = 0;
  }
};

/// Resets `state` when the scope ends (a Translator's entry points, after its busy flag is taken).
class CallScope {
 public:
  explicit CallScope(CallState& state) : state_(state) { state_.Reset(); }
  ~CallScope() { state_.Reset(); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  CallState& state_;
};

}  // namespace tern
