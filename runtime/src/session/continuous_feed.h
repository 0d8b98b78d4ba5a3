// A continuous call's sentences (session/continuous_call.h): the session as search/run.h's SentenceSlots. Slot b
// takes the source's next sentence, staged as a static call stages it (StageText, StageIds) and encoded alone;
// a text of several sentences is split (TextSplitter) and its sentences join the batch one by one, their
// results joined as Translate joins them (SentenceJoin); a text with spans auto_protect keeps is taken apart
// as Translate's protect stage does (MarkupCall), its plain text decoded with the alignment, the spans put back
// before the source gets its result.
#pragma once

#include "search/search.h"
#include "session/batch.h"
#include "tern/continuous.h"
#include "tern/translator.h"

namespace tern {

/// Runs the continuous call's search (search/run.h) over t's slots with `ctx` and `strategy`, its sentences
/// from `source`, and hands each result to source.Done; texts still open when it stops are handed over as
/// kCancelled. Errors: RunSearch's.
Status RunFeed(Translator::Impl& t, SearchContext& ctx, SearchStrategy& strategy, SentenceSource& source,
               const TranslateOptions& options, const ResolvedOptions& o);

}  // namespace tern
