#include "inspect.h"

#include <map>
#include <sstream>

#include "tern/translator.h"

namespace tern::cli {

nlohmann::json Describe(const Model& m) {
  const Hyperparameters& h = m.hparams();
  nlohmann::json j;
  j["file"] = m.name();
  j["file_bytes"] = m.file_bytes();
  j["format_version"] = m.format_version();
  j["weights"] = DTypeName(m.weight_dtype());
  j["hparams"] = {{"d_model", h.d_model}, {"n_heads", h.n_heads}, {"head_dim", h.head_dim}, {"ffn_dim", h.ffn_dim},
                  {"encoder_layers", h.encoder_layers}, {"decoder_layers", h.decoder_layers},
                  {"source_vocab_size", h.source_vocab_size}, {"target_vocab_size", h.target_vocab_size},
                  {"activation", ActivationName(h.activation)}, {"normalization", NormPlacementName(h.norm_placement)},
                  {"layer_norm_epsilon", h.layer_norm_epsilon}, {"position_encoding", PositionEncodingName(h.position_encoding)},
                  {"max_positions", h.max_positions}, {"embedding_scale", h.embedding_scale},
                  {"shared_embeddings", h.shared_embeddings}, {"tied_output_projection", h.tied_output_projection},
                  {"final_logits_bias", h.final_logits_bias}, {"pad_id", h.pad_id}, {"eos_id", h.eos_id},
                  {"unk_id", h.unk_id}, {"decoder_start_id", h.decoder_start_id}};
  std::map<std::string, std::pair<size_t, size_t>> by_type;
  size_t params = 0;
  for (const TensorView& t : m.tensors()) {
    auto& e = by_type[DTypeName(t.dtype)];
    e.first++;
    e.second += t.bytes + (t.scales ? t.rows() * 4 : 0);
    params += t.numel();
  }
  j["tensors"]["count"] = m.tensors().size();
  j["tensors"]["parameters"] = params;
  for (const auto& [name, e] : by_type) j["tensors"]["by_dtype"][name] = {{"count", e.first}, {"bytes", e.second}};
  j["tokenizer"] = {{"source_pieces", m.source_vocab().size()}, {"target_pieces", m.target_vocab().size()},
                    {"source_spm_bytes", m.source_spm().size()}, {"target_spm_bytes", m.target_spm().size()}};
  const GenerationDefaults& g = m.generation();
  j["generation"] = {{"beam_size", g.beam_size}, {"length_penalty", g.length_penalty}, {"max_length", g.max_length},
                     {"max_length_ratio", g.max_length_ratio}, {"forced_eos", g.forced_eos}, {"bad_word_ids", g.bad_word_ids}};
  const ArenaLimits& l = m.limits();
  j["limits"] = {{"max_source_tokens", l.max_source_tokens}, {"max_target_tokens", l.max_target_tokens},
                 {"max_batch", l.max_batch}, {"max_rows", l.max_rows}};
  auto arena = Translator::RequiredArenaBytes(m, TranslatorConfig());
  if (arena.ok()) j["arena_bytes"] = arena.value();
  else j["arena_error"] = arena.status().message();
  const Provenance& p = m.provenance();
  j["provenance"] = {{"source_checkpoint", p.source_checkpoint}, {"converter_version", p.converter_version},
                     {"weights", p.weights}, {"quantization", p.quantization}, {"date", p.date},
                     {"max_abs_error", p.max_abs_error}};
  if (!p.notes.empty()) j["provenance"]["notes"] = p.notes;
  return j;
}

static void Flatten(const nlohmann::json& j, const std::string& prefix, std::ostringstream& o) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) Flatten(*it, key, o);
    else o << key << ": " << (it->is_string() ? it->get<std::string>() : it->dump()) << "\n";
  }
}

std::string DescribeText(const nlohmann::json& j) {
  std::ostringstream o;
  Flatten(j, "", o);
  return o.str();
}

}  // namespace tern::cli
