// tern's Call: one call through a Translator, made by its entry point (api/translator.cc) on the stack and
// passed to every stage of the session (session.h: protect, split, tokenize, translate, detokenize, join,
// restore; alternatives' two passes; scoring). It holds what the stages set for the call while it runs; the
// session (arena, network, tokenizer, the file's rules) holds nothing of a call, so a call leaves nothing behind
// however it ends (an error, a cancellation, a callback that threw). What decoding needs of it travels in the
// search's StepRequest (the alignment layer, where the cross-attention goes), not through the session.
#pragma once

#include <cstdint>

#include "search/token_stream.h"

namespace tern {

struct Call {
  TokenStream stream;                            // the call's token callback and abort check (TokenStream::Begin)
  bool streaming = false;                        // the call has a token or abort callback
  const TokenStream::Origin* origins = nullptr;  // split texts: the text and part of each sentence being translated
  uint32_t expand = 0;                           // > 0: return_alternatives' first pass (session/alternatives_call.h)
  uint32_t alternatives = 0;                     // > 0: its second pass, k sentences per input (their sampling keys)
};

}  // namespace tern
