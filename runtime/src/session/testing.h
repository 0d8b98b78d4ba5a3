// Hooks for tern's own tests (not part of the public API).
#pragma once

#include "tern/translator.h"

namespace tern::testing {

/// Runs the encoder on one source (ids as given) and the decoder teacher-forced on tgt_in (decoder
/// start token first). encoder_out: [src.size(), d_model]; logits: [tgt_in.size(), target_vocab_size],
/// logits[p] predicting the token after tgt_in[p]. Error: kInvalidArgument for lengths beyond the limits.
Status TeacherForced(Translator& t, Span<const uint32_t> src, Span<const uint32_t> tgt_in, float* encoder_out, float* logits);

}  // namespace tern::testing
