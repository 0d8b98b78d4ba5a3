// `tern translate`'s arguments as the library's per-call options, the glossary they name, and the output
// format.
#pragma once

#include <memory>

#include "result_writer.h"
#include "tern/glossary.h"
#include "tern/model.h"
#include "tern/translator.h"
#include "translate_cmd.h"

namespace tern::cli {

/// Fills *opt (beam, lengths, early stopping, rules, scores, alignment, markup, placeholders) and *format
/// from `args`; loads --glossary into *glossary (which *opt points to; it must outlive the calls), printing
/// its size and load time (ms) with --verbose. Error: the glossary's (file:line and why).
Status MakeTranslateOptions(const TranslateArgs& args, const Model& model, TranslateOptions* opt,
                            std::shared_ptr<const Glossary>* glossary, OutputFormat* format);

}  // namespace tern::cli
