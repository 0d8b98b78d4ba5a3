#include "translate_options.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace tern::cli {

Status MakeTranslateOptions(const TranslateArgs& args, const Model& model, TranslateOptions* opt,
                            std::shared_ptr<const Glossary>* glossary, OutputFormat* format) {
  TranslateOptions& o = *opt;
  if (args.beam) o.beam_size = args.beam;
  if (args.max_length) o.max_length = args.max_length;
  o.n_best = args.n_best;
  o.length_penalty = args.length_penalty;
  if (!args.early_stopping.empty())
    o.early_stopping = args.early_stopping == "true" ? EarlyStopping::kTrue
                       : args.early_stopping == "never" ? EarlyStopping::kNever : EarlyStopping::kFalse;
  o.hf_rules = args.hf_rules == 4 ? HfRules::kTransformers4 : HfRules::kTransformers5;
  o.return_scores = args.scores || args.exact_scores || args.n_best > 1;
  o.target_lang = args.target_lang;
  o.split_sentences = !args.no_split;
  o.use_shortlist = !args.no_shortlist;
  if (args.json) o.return_scores = true, o.return_alignment = true;
  if (args.alignment_layer) o.alignment_layer = *args.alignment_layer;
  if (!args.html.empty())
    o.markup = args.html == "lenient" ? Markup::kHtmlLenient : args.html == "xml" ? Markup::kXml : Markup::kHtml;
  o.keep_placeholders = args.keep_placeholders;
  o.auto_protect = !args.no_auto_protect;
  if (const auto syntaxes = PlaceholderSyntaxesFromNames(args.placeholder_syntaxes); syntaxes.ok())
    o.placeholder_syntaxes = syntaxes.value();  // the option's parser refused anything else (exit 2)
  o.translate_code = args.translate_code;
  o.sampling.enabled = args.sample || args.sample_temperature || args.sample_topk || args.sample_topp;
  if (args.sample_temperature) o.sampling.temperature = *args.sample_temperature;
  if (args.sample_topk) o.sampling.top_k = *args.sample_topk;
  if (args.sample_topp) o.sampling.top_p = *args.sample_topp;
  o.sampling.seed = args.seed;
  o.repetition_penalty = args.repetition_penalty;
  o.no_repeat_ngram_size = args.no_repeat_ngram_size;
  o.min_length = args.min_length;
  o.forced_eos = args.forced_eos;
  o.max_input_length = args.max_input_length;
  o.alternatives = args.alternatives;
  o.min_alternative_expansion_prob = args.min_alternative_expansion_prob;
  o.disable_unk = args.disable_unk;
  if (args.alternatives > 1) o.return_scores = true;
  if (!args.glossary.empty()) {
    GlossaryOptions go;
    go.case_insensitive = args.glossary_ignore_case;
    const auto t0 = std::chrono::steady_clock::now();
    TERN_ASSIGN_OR_RETURN(*glossary, Glossary::Load(model, args.glossary, go));
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
  format->n_best = std::max(args.n_best, args.alternatives);
  if (args.low_token) format->thresholds.token = *args.low_token;
  if (args.low_sentence) format->thresholds.sentence = *args.low_sentence;
  return Status::Ok();
}

}  // namespace tern::cli
