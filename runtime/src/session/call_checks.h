// A call's checks and its glossary: what fails a call as a whole (Translator::CheckOptions) and the
// glossary's terms made into each sentence's constraints.
#pragma once

#include "session/session.h"
#include "terms/glossary_impl.h"
#include "tern/glossary.h"

namespace tern {

/// The glossary's terms in staged sentence i (its text: `source`) become its constraints
/// (terms/glossary_impl.h); a sentence whose terms cannot all fit before its cap fails alone
/// (kResourceExhausted), as does one with too many.
void MatchGlossary(Translator::Impl& t, const Glossary& g, const SourceText& source, const ResolvedOptions& o, size_t i);

/// kInvalidArgument when `g` was made for other vocabularies than the Translator's model's.
Status CheckGlossary(const Translator::Impl& t, const Glossary& g);

/// kInvalidArgument for a markup value outside the enum, markup with do-not-translate spans, or either
/// with a token callback.
Status CheckMarkup(const TranslateOptions& options);

}  // namespace tern
