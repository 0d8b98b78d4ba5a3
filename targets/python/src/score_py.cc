// tern.Translator.score_batch (texts) and score_ids (ids): Translator::Score in chunks of max_batch.
#include <pybind11/stl.h>

#include "call_inputs.h"
#include "translator_call.h"

namespace tern::python {
namespace {

py::list ScoreBatch(PyTranslator& self, py::object sources, py::object targets, py::kwargs kw) {
  const std::vector<std::string> src = TextsOf(sources, "sources"), tgt = TextsOf(targets, "targets");
  if (src.size() != tgt.size())
    Raise(StatusCode::kInvalidArgument, "score: " + std::to_string(src.size()) + " sources and " +
                                            std::to_string(tgt.size()) + " targets (one target per source)");
  const std::vector<std::string_view> sv(src.begin(), src.end()), tv(tgt.begin(), tgt.end());
  CallKeywords k;
  k.Read(kw, CallKind::kScoreTexts, src.size(), self.model, "score_batch");
  return RunChunks(self, src.size(), k, [&](size_t b, size_t e, const TranslateOptions& o, Span<const TranslationResult>* out) {
    return self.translator->Score(Span<const std::string_view>(sv.data() + b, e - b), Span<const std::string_view>(tv.data() + b, e - b),
                                  o, out);
  });
}

py::list ScoreIds(PyTranslator& self, py::object sources, py::object targets, py::kwargs kw) {
  const auto src = IdListsOf(sources, "sources"), tgt = IdListsOf(targets, "targets");
  if (src.size() != tgt.size())
    Raise(StatusCode::kInvalidArgument, "score: " + std::to_string(src.size()) + " sources and " +
                                            std::to_string(tgt.size()) + " targets (one target per source)");
  std::vector<Span<const uint32_t>> sv, tv;
  for (const auto& v : src) sv.emplace_back(v.data(), v.size());
  for (const auto& v : tgt) tv.emplace_back(v.data(), v.size());
  CallKeywords k;
  k.Read(kw, CallKind::kScoreIds, src.size(), self.model, "score_ids");
  return RunChunks(self, src.size(), k, [&](size_t b, size_t e, const TranslateOptions& o, Span<const TranslationResult>* out) {
    return self.translator->ScoreIds(Span<const Span<const uint32_t>>(sv.data() + b, e - b),
                                     Span<const Span<const uint32_t>>(tv.data() + b, e - b), o, out);
  });
}

}  // namespace

void RegisterScoring(py::class_<PyTranslator>& cls) {
  cls.def("score_batch", &ScoreBatch, py::arg("sources"), py::arg("targets"),
          "Scores given translations (Translator::Score): per pair a TranslationResult whose hypothesis holds the target's "
          "ids, each token's log-probability (token_logprobs, </s> last) and their sum (score), what greedy search gives "
          "the same tokens. A pair fails alone (a target too long, a token the rules ban). Keywords: the field table's "
          "scoring ones (tern/_tern.pyi).");
  cls.def("score_ids", &ScoreIds, py::arg("sources"), py::arg("targets"),
          "score_batch on ids: sources with their </s>, targets (target vocabulary) without it.");
}

}  // namespace tern::python
