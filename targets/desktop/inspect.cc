#include "inspect.h"

#include <map>
#include <sstream>

#include "fields.h"
#include "model/model_impl.h"
#include "weight_formats.h"
#include "tern/translator.h"

namespace tern::cli {
namespace {

// A table's fields (runtime/format/fields.h: the schema's field list) as JSON; enums by name.
struct ToJson {
  nlohmann::json* j;
  template <typename T>
  void operator()(const char* name, const T& v) const { (*j)[name] = v; }
  void operator()(const char* name, Activation v) const { (*j)[name] = ActivationName(v); }
  void operator()(const char* name, NormPlacement v) const { (*j)[name] = NormPlacementName(v); }
  void operator()(const char* name, PositionEncoding v) const { (*j)[name] = PositionEncodingName(v); }
  void operator()(const char* name, EarlyStopping v) const { (*j)[name] = EarlyStoppingName(v); }
};

template <typename Table>
nlohmann::json Fields(const Table& t) {
  nlohmann::json j = nlohmann::json::object();
  format::VisitFields(t, ToJson{&j});
  return j;
}

}  // namespace

nlohmann::json Describe(const Model& m) {
  const Hyperparameters& h = m.hparams();
  nlohmann::json j;
  j["file"] = m.name();
  j["file_bytes"] = m.file_bytes();
  j["format_version"] = m.format_version();
  j["weights"] = DTypeName(m.weight_dtype());
  j["hparams"] = Fields(h);
  std::map<std::string, std::pair<size_t, size_t>> by_type;
  size_t params = 0;
  for (const TensorView& t : m.impl().tensors()) {
    auto& e = by_type[DTypeName(t.dtype)];
    e.first++;
    e.second += t.bytes + format::FormatOf(t.dtype).ScaleBytes(t.rows(), t.cols(), t.block_size);
    params += t.numel();
  }
  j["tensors"]["count"] = m.impl().tensors().size();
  j["tensors"]["parameters"] = params;
  for (const auto& [name, e] : by_type) j["tensors"]["by_dtype"][name] = {{"count", e.first}, {"bytes", e.second}};
  j["tokenizer"] = {{"source_pieces", m.source_vocab().size()}, {"target_pieces", m.target_vocab().size()},
                    {"source_spm_bytes", m.impl().source_spm().size()}, {"target_spm_bytes", m.impl().target_spm().size()},
                    {"source_lang", m.source_lang()}, {"target_lang", m.target_lang()},
                    {"clean_up_tokenization_spaces", m.clean_up_tokenization_spaces()},
                    {"language_tokens", m.language_tokens()}};
  if (const ShortlistView& sl = m.impl().shortlist(); sl.present()) {
    size_t with = 0;
    for (uint32_t s = 0; s < h.source_vocab_size; ++s) with += sl.offsets[s + 1] > sl.offsets[s];
    j["shortlist"] = {{"method", sl.method},
                      {"frequent", sl.frequent_count},
                      {"candidates", sl.candidate_count},
                      {"source_tokens_with_candidates", with},
                      {"mean_candidates_per_source_token", with ? static_cast<double>(sl.candidate_count) / with : 0.0}};
  }
  j["generation"] = Fields(m.generation());
  j["limits"] = Fields(m.limits());
  auto arena = Translator::RequiredArenaBytes(m, TranslatorConfig());
  if (arena.ok()) j["arena_bytes"] = arena.value();
  else j["arena_error"] = arena.status().message();
  if (auto plan = Translator::DescribeArena(m, TranslatorConfig()); plan.ok()) {
    for (const ArenaBufferInfo& b : plan.value())
      j["arena_plan"][b.name] = {{"bytes", b.bytes}, {"offset", b.offset}, {"lifetime", b.lifetime}};
  }
  j["provenance"] = Fields(m.provenance());
  if (m.provenance().notes.empty()) j["provenance"].erase("notes");
  return j;
}

static void Flatten(const nlohmann::json& j, const std::string& prefix, std::ostringstream& o) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (key == "arena_plan") {  // one line per buffer
      for (auto b = it->begin(); b != it->end(); ++b)
        o << key << "." << b.key() << ": " << (*b)["bytes"].get<size_t>() << " bytes at offset " << (*b)["offset"].get<size_t>()
          << ", live in " << (*b)["lifetime"].get<std::string>() << "\n";
    } else if (it->is_object()) {
      Flatten(*it, key, o);
    } else {
      o << key << ": " << (it->is_string() ? it->get<std::string>() : it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) << "\n";
    }
  }
}

std::string DescribeText(const nlohmann::json& j) {
  std::ostringstream o;
  Flatten(j, "", o);
  return o.str();
}

}  // namespace tern::cli
