#include "translate_options.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace tern::cli {

Status MakeTranslateOptions(const TranslateArgs& args, const Model& model, TranslateOptions* opt,
                            std::shared_ptr<const Glossary>* glossary, OutputFormat* format) {
  TranslateOptions& o = *opt;
  TERN_RETURN_IF_ERROR(ApplyOptionFlags(args.options, &o));  // every plain option (the field table's flags)
  // What the CLI decides itself: scores when something prints them, alignment for JSON, sampling when any
  // --sample-* option is given, the end tokens.
  const OptionFlags& f = args.options;
  o.return_scores = args.scores || args.exact_scores || args.n_best() > 1 || args.alternatives() > 1 || args.json;
  if (args.json) o.return_alignment = true;
  o.sampling.enabled = o.sampling.enabled || f.sampling_temperature || f.sampling_top_k || f.sampling_top_p ||
                       f.sampling_min_tokens_to_keep;
  o.end_tokens = Span<const uint32_t>(args.end_tokens.data(), args.end_tokens.size());
  if (!args.glossary.empty()) {
    GlossaryOptions go;
    go.case_insensitive = args.glossary_ignore_case;
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = Glossary::Load(model, args.glossary, go);
    if (!loaded.ok()) return Status(loaded.status().code(), "glossary: " + loaded.status().message());
    *glossary = loaded.value();
    o.glossary = glossary->get();
    if (args.verbose)
      std::cerr << "tern: glossary: " << (*glossary)->size() << " entries, " << (*glossary)->bytes() << " bytes, loaded in "
                << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() << " ms\n";
  }
  format->json = args.json;
  format->ids = args.ids;
  format->scores = o.return_scores && !args.json;
  format->exact_scores = args.exact_scores;
  format->streamed = args.stream;
  format->n_best = std::max(args.n_best(), args.alternatives());
  if (args.low_token) format->thresholds.token = *args.low_token;
  if (args.low_sentence) format->thresholds.sentence = *args.low_sentence;
  return Status::Ok();
}

}  // namespace tern::cli
