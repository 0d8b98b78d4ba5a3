// Which requests may share one Translator call (tern/engine.h): those whose calls would be the same call.
#pragma once

#include <cstddef>

#include "serving/ticket_state.h"

namespace tern::serving {

/// Copies the option views a request does not own (target_lang, keep_spans) into *t and re-points
/// t->request.options at them; sets t->may_share: no on_token, no abort, no keep_spans, at most
/// `max_batch` inputs.
void OwnOptionViews(TicketState* t, size_t max_batch);

/// True when `a` and `b` may run as one call: both may share, both texts or both ids, and every option
/// equal (the same glossary and logits processors by address). A new TranslateOptions field must be
/// added here (tests/test_engine.cc checks every field it knows).
bool SameCall(const TicketState& a, const TicketState& b);

}  // namespace tern::serving
