// tern.Translator.score_batch (texts) and score_ids (ids): Translator::Score in chunks of max_batch.
#include <pybind11/stl.h>

#include "call_inputs.h"
#include "translator_call.h"

namespace tern::python {
namespace {

py::list ScoreBatch(PyTranslator& self, py::object sources, py::object targets, const CallArgs& args, const std::string& target_lang) {
  const std::vector<std::string> src = TextsOf(sources, "sources"), tgt = TextsOf(targets, "targets");
  if (src.size() != tgt.size())
    Raise(StatusCode::kInvalidArgument, "score: " + std::to_string(src.size()) + " sources and " +
                                            std::to_string(tgt.size()) + " targets (one target per source)");
  const std::vector<std::string_view> sv(src.begin(), src.end()), tv(tgt.begin(), tgt.end());
  CallState state;
  TranslateOptions o = MakeOptions(args, &state);
  o.target_lang = target_lang;
  return RunChunks(self, src.size(), &state, args.on_error, [&](size_t b, size_t e, Span<const TranslationResult>* out) {
    return self.translator->Score(Span<const std::string_view>(sv.data() + b, e - b), Span<const std::string_view>(tv.data() + b, e - b),
                                  o, out);
  });
}

py::list ScoreIds(PyTranslator& self, py::object sources, py::object targets, const CallArgs& args) {
  const auto src = IdListsOf(sources, "sources"), tgt = IdListsOf(targets, "targets");
  if (src.size() != tgt.size())
    Raise(StatusCode::kInvalidArgument, "score: " + std::to_string(src.size()) + " sources and " +
                                            std::to_string(tgt.size()) + " targets (one target per source)");
  std::vector<Span<const uint32_t>> sv, tv;
  for (const auto& v : src) sv.emplace_back(v.data(), v.size());
  for (const auto& v : tgt) tv.emplace_back(v.data(), v.size());
  CallState state;
  TranslateOptions o = MakeOptions(args, &state);
  return RunChunks(self, src.size(), &state, args.on_error, [&](size_t b, size_t e, Span<const TranslationResult>* out) {
    return self.translator->ScoreIds(Span<const Span<const uint32_t>>(sv.data() + b, e - b),
                                     Span<const Span<const uint32_t>>(tv.data() + b, e - b), o, out);
  });
}

}  // namespace

void RegisterScoring(py::class_<PyTranslator>& cls) {
  cls.def(
      "score_batch",
      [](PyTranslator& self, py::object sources, py::object targets, std::optional<uint32_t> max_length,
         std::optional<float> max_length_ratio, bool return_alignment, std::optional<uint32_t> alignment_layer,
         std::shared_ptr<CancelToken> cancel, std::string on_error, std::string target_lang) {
        CallArgs a;
        a.max_length = max_length, a.max_length_ratio = max_length_ratio, a.return_alignment = return_alignment;
        a.alignment_layer = alignment_layer, a.cancel = cancel, a.on_error = on_error;
        return ScoreBatch(self, sources, targets, a, target_lang);
      },
      py::arg("sources"), py::arg("targets"), py::kw_only(), py::arg("max_length") = py::none(),
      py::arg("max_length_ratio") = py::none(), py::arg("return_alignment") = false, py::arg("alignment_layer") = py::none(),
      py::arg("cancel") = py::none(), py::arg("on_error") = "raise", py::arg("target_lang") = "",
      "Scores given translations (Translator::Score): per pair a TranslationResult whose hypothesis holds the target's "
      "ids, each token's log-probability (token_logprobs, </s> last) and their sum (score), what greedy search gives "
      "the same tokens. A pair fails alone (a target too long, a token the rules ban).");
  cls.def(
      "score_ids",
      [](PyTranslator& self, py::object sources, py::object targets, std::optional<uint32_t> max_length,
         std::optional<float> max_length_ratio, bool return_alignment, std::optional<uint32_t> alignment_layer,
         std::shared_ptr<CancelToken> cancel, std::string on_error) {
        CallArgs a;
        a.max_length = max_length, a.max_length_ratio = max_length_ratio, a.return_alignment = return_alignment;
        a.alignment_layer = alignment_layer, a.cancel = cancel, a.on_error = on_error;
        return ScoreIds(self, sources, targets, a);
      },
      py::arg("sources"), py::arg("targets"), py::kw_only(), py::arg("max_length") = py::none(),
      py::arg("max_length_ratio") = py::none(), py::arg("return_alignment") = false, py::arg("alignment_layer") = py::none(),
      py::arg("cancel") = py::none(), py::arg("on_error") = "raise",
      "score_batch on ids: sources with their </s>, targets (target vocabulary) without it.");
}

}  // namespace tern::python
