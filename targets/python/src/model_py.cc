// tern.Model, tern.Glossary, tern.Tokenizer (and tern.tokenize / tern.detokenize).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "binding.h"
#include "tern/tokenize.h"

namespace tern::python {
namespace {

// A piece or name from the model as str: the verifier checked the vocabularies' UTF-8; "replace" anyway,
// so a surprise never raises from a property.
py::str Str(std::string_view s) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

py::list Pieces(const std::vector<std::string_view>& v) {
  py::list out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = Str(v[i]);
  return out;
}

py::dict Hparams(const Hyperparameters& h) {
  py::dict d;
  d["d_model"] = h.d_model, d["n_heads"] = h.n_heads, d["head_dim"] = h.head_dim, d["ffn_dim"] = h.ffn_dim;
  d["encoder_layers"] = h.encoder_layers, d["decoder_layers"] = h.decoder_layers;
  d["source_vocab_size"] = h.source_vocab_size, d["target_vocab_size"] = h.target_vocab_size;
  d["activation"] = ActivationName(h.activation), d["norm_placement"] = NormPlacementName(h.norm_placement);
  d["position_encoding"] = PositionEncodingName(h.position_encoding), d["max_positions"] = h.max_positions;
  d["pad_id"] = h.pad_id, d["eos_id"] = h.eos_id, d["unk_id"] = h.unk_id, d["decoder_start_id"] = h.decoder_start_id;
  return d;
}

py::dict Generation(const GenerationDefaults& g) {
  py::dict d;
  d["beam_size"] = g.beam_size, d["length_penalty"] = g.length_penalty, d["max_length"] = g.max_length;
  d["max_length_ratio"] = g.max_length_ratio, d["forced_eos"] = g.forced_eos, d["bad_word_ids"] = g.bad_word_ids;
  d["repetition_penalty"] = g.repetition_penalty, d["no_repeat_ngram_size"] = g.no_repeat_ngram_size;
  d["min_length"] = g.min_length, d["early_stopping"] = EarlyStoppingName(g.early_stopping);
  return d;
}

PyModel Load(const std::filesystem::path& path, bool mmap, uint64_t memory_budget, py::object packed_cache_dir,
             std::optional<uint64_t> packed_cache_max_bytes) {
  LoadOptions o;
  o.map_file = mmap;
  o.memory_budget_bytes = memory_budget;
  // None: the per-user cache (bounded, least recently used out first); False or "": none; a path: that one.
  if (packed_cache_dir.is_none()) {
    o.packed_cache_dir = DefaultPackedCacheDir();
    o.packed_cache_max_bytes = packed_cache_max_bytes.value_or(kDefaultPackedCacheMaxBytes);
  } else if (py::isinstance<py::bool_>(packed_cache_dir)) {
    if (packed_cache_dir.cast<bool>()) throw py::type_error("packed_cache_dir: a path, None (the per-user cache) or False (none)");
    o.packed_cache = false;
  } else {
    o.packed_cache_dir = py::str(py::module_::import("os").attr("fspath")(packed_cache_dir)).cast<std::string>();
    o.packed_cache = !o.packed_cache_dir.empty();
    o.packed_cache_max_bytes = packed_cache_max_bytes.value_or(0);
  }
  Result<std::shared_ptr<const Model>> r = Status(StatusCode::kInternal, "not run");
  {
    py::gil_scoped_release unlocked;
    r = Model::Load(path.string(), o);
  }
  if (!r.ok()) Raise(r.status());
  return PyModel{r.value()};
}

PyModel FromBytes(py::bytes data, const std::string& name, uint64_t memory_budget) {
  LoadOptions o;
  o.memory_budget_bytes = memory_budget;
  std::string_view v = data;
  auto r = Model::FromBytes(v.data(), v.size(), name, o);
  if (!r.ok()) Raise(r.status());
  return PyModel{r.value()};
}

struct PyTokenizer {
  std::shared_ptr<const Model> model;
  std::unique_ptr<TextTokenizer> tok;
};

PyTokenizer MakeTokenizer(const PyModel& m, const std::string& side) {
  if (side != "source" && side != "target") Raise(StatusCode::kInvalidArgument, "side '" + side + "': 'source' or 'target'");
  auto t = TextTokenizer::Create(m.model, side == "source" ? TextTokenizer::Side::kSource : TextTokenizer::Side::kTarget);
  if (!t.ok()) Raise(t.status());
  return PyTokenizer{m.model, std::move(t.value())};
}

py::array_t<uint32_t> Encode(const PyTokenizer& t, py::object text, const std::string& target_lang) {
  const std::string s = TextOf(text, "text");
  std::vector<uint32_t> ids;
  if (Status st = t.tok->Encode(s, target_lang, &ids); !st.ok()) Raise(st);
  return py::array_t<uint32_t>(static_cast<py::ssize_t>(ids.size()), ids.data());
}

std::string Decode(const PyTokenizer& t, py::array_t<int64_t, py::array::c_style | py::array::forcecast> ids) {
  if (ids.ndim() != 1) Raise(StatusCode::kInvalidArgument, "ids: a 1-D sequence is needed, got " + std::to_string(ids.ndim()) + " dimensions");
  const uint32_t vocab = t.model->hparams().target_vocab_size;
  std::vector<uint32_t> v(static_cast<size_t>(ids.size()));
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t id = ids.at(static_cast<py::ssize_t>(i));
    if (id < 0 || id >= vocab)
      Raise(StatusCode::kInvalidArgument, "ids[" + std::to_string(i) + "] = " + std::to_string(id) + ": outside the target vocabulary (" + std::to_string(vocab) + " tokens)");
    v[i] = static_cast<uint32_t>(id);
  }
  return t.tok->Decode(Span<const uint32_t>(v.data(), v.size()));
}

}  // namespace

void RegisterModel(py::module_& m) {
  py::class_<PyModel>(m, "Model", "A verified .tern file (read-only; shared by any number of Translators and threads).")
      .def_static("load", &Load, py::arg("path"), py::arg("mmap") = false, py::arg("memory_budget") = uint64_t{2} << 30,
                  py::arg("packed_cache_dir") = py::none(), py::arg("packed_cache_max_bytes") = py::none(),
                  "Loads and verifies a .tern file, read into memory of its own by default (every binding's default: "
                  "a file rewritten or truncated later cannot reach the Model; huge pages, about the speed of memory). "
                  "mmap=True maps it instead (pages shared between processes; the file must then not be rewritten in "
                  "place while the Model lives). "
                  "memory_budget: bytes the file's tables and a Translator may make tern allocate. packed_cache_dir: "
                  "where the first Translator writes this CPU's packed weights and later loads map them instead of "
                  "packing (LoadOptions::packed_cache_dir; None: the per-user cache, $TERN_PACKED_CACHE_DIR or "
                  "$XDG_CACHE_HOME/tern/packed or ~/.cache/tern/packed, unless TERN_PACKED_CACHE=off; False: none). "
                  "packed_cache_max_bytes: the directory's bound, least recently used entries removed first (None: "
                  "2 GiB for the per-user cache, unbounded for a directory given). Raises "
                  "IoError, InvalidModelError (naming the check and the tensor), UnsupportedError, ResourceExhaustedError.")
      .def_static("from_bytes", &FromBytes, py::arg("data"), py::arg("name") = "<bytes>", py::arg("memory_budget") = uint64_t{2} << 30,
                  "Verifies a .tern image held in memory (copied). Errors as load().")
      .def_property_readonly("name", [](const PyModel& p) { return p.model->name(); })
      .def_property_readonly("file_bytes", [](const PyModel& p) { return p.model->file_bytes(); }, "Bytes of the .tern image.")
      .def_property_readonly("packed_weights_note", [](const PyModel& p) { return p.model->packed_weights_note(); },
                             "Where the packed weights came from (mapped from a cache file, or packed at load and why); "
                             "'' before the first Translator.")
      .def_property_readonly("format_version", [](const PyModel& p) { return p.model->format_version(); })
      .def_property_readonly("weight_dtype", [](const PyModel& p) { return DTypeName(p.model->weight_dtype()); },
                             "'f32', 'f16', 'int8', 'qc4w' or 'qb4w' (the first linear layer's; provenance['weights'] names the layout)")
      .def_property_readonly("hparams", [](const PyModel& p) { return Hparams(p.model->hparams()); }, "d_model, n_heads, head_dim, ffn_dim, layers, vocabulary sizes, special ids")
      .def_property_readonly("generation", [](const PyModel& p) { return Generation(p.model->generation()); }, "decoding defaults from generation_config.json")
      .def_property_readonly("limits", [](const PyModel& p) {
        const ArenaLimits& l = p.model->limits();
        return py::dict(py::arg("max_source_tokens") = l.max_source_tokens, py::arg("max_target_tokens") = l.max_target_tokens,
                        py::arg("max_batch") = l.max_batch, py::arg("max_rows") = l.max_rows);
      }, "the default Translator limits stored in the file")
      .def_property_readonly("provenance", [](const PyModel& p) {
        const Provenance& v = p.model->provenance();
        return py::dict(py::arg("source_checkpoint") = v.source_checkpoint, py::arg("converter_version") = v.converter_version,
                        py::arg("weights") = v.weights, py::arg("quantization") = v.quantization, py::arg("date") = v.date,
                        py::arg("notes") = v.notes, py::arg("max_abs_error") = v.max_abs_error);
      })
      .def_property_readonly("source_vocab", [](const PyModel& p) { return Pieces(p.model->source_vocab()); }, "piece of each source id")
      .def_property_readonly("target_vocab", [](const PyModel& p) { return Pieces(p.model->target_vocab()); }, "piece of each target id")
      .def_property_readonly("language_tokens", [](const PyModel& p) { return Pieces(p.model->language_tokens()); },
                             "'>>xxx<<' codes of a multilingual model (empty for one target language)")
      .def_property_readonly("source_lang", [](const PyModel& p) { return std::string(p.model->source_lang()); })
      .def_property_readonly("target_lang", [](const PyModel& p) { return std::string(p.model->target_lang()); })
      .def_property_readonly("shortlist", [](const PyModel& p) -> py::object {
        ShortlistInfo s = p.model->shortlist();
        if (!s.present) return py::none();
        return py::dict(py::arg("frequent") = s.frequent, py::arg("candidates") = s.candidates, py::arg("method") = std::string(s.method));
      }, "the lexical shortlist's sizes and method, or None")
      .def("__repr__", [](const PyModel& p) {
        const Hyperparameters& h = p.model->hparams();
        return "<tern.Model '" + p.model->name() + "' " + DTypeName(p.model->weight_dtype()) + " d_model=" + std::to_string(h.d_model) +
               " layers=" + std::to_string(h.encoder_layers) + "+" + std::to_string(h.decoder_layers) + ">";
      });

  py::class_<PyGlossary>(m, "Glossary", "Terminology: each source term found in a sentence must appear as its target term.")
      .def_static("load", [](const PyModel& model, const std::filesystem::path& path, bool case_insensitive) {
        GlossaryOptions o;
        o.case_insensitive = case_insensitive;
        auto g = Glossary::Load(*model.model, path.string(), o);
        if (!g.ok()) Raise(g.status());
        return PyGlossary{g.value(), model.model};
      }, py::arg("model"), py::arg("path"), py::arg("case_insensitive") = false,
         "From a TSV file (source<TAB>target per line; '#' comments). Raises NotFoundError, InvalidArgumentError (file:line).")
      .def_static("from_entries", [](const PyModel& model, const std::vector<std::pair<std::string, std::string>>& entries, bool case_insensitive) {
        std::vector<GlossaryEntry> e;
        e.reserve(entries.size());
        for (const auto& [s, t] : entries) e.push_back({s, t});
        GlossaryOptions o;
        o.case_insensitive = case_insensitive;
        auto g = Glossary::Create(*model.model, Span<const GlossaryEntry>(e.data(), e.size()), o);
        if (!g.ok()) Raise(g.status());
        return PyGlossary{g.value(), model.model};
      }, py::arg("model"), py::arg("entries"), py::arg("case_insensitive") = false,
         "From (source, target) pairs. Raises InvalidArgumentError naming the entry (1-based).")
      .def("__len__", [](const PyGlossary& g) { return g.glossary->size(); });

  py::class_<PyTokenizer>(m, "Tokenizer", "Text <-> ids exactly as a Translator tokenizes its input (MarianTokenizer's rules).")
      .def(py::init(&MakeTokenizer), py::arg("model"), py::arg("side") = "source",
           "side='source': what translation reads; 'target': the other language with the target vocabulary.")
      .def("encode", &Encode, py::arg("text"), py::arg("target_lang") = "",
           "ids of `text` (uint32 array, </s> last). Raises InvalidArgumentError (invalid UTF-8, NUL, unknown target_lang).")
      .def("decode", &Decode, py::arg("ids"), "text of target ids as Translate writes it (</s> and pad skipped).");

  m.def("tokenize", [](const PyModel& model, py::object text, const std::string& side, const std::string& target_lang) {
    return Encode(MakeTokenizer(model, side), text, target_lang);
  }, py::arg("model"), py::arg("text"), py::arg("side") = "source", py::arg("target_lang") = "",
     "ids of `text` as a Translator tokenizes it (a uint32 array, </s> last); Tokenizer keeps the tokenizer for many calls.");
  m.def("detokenize", [](const PyModel& model, py::array_t<int64_t, py::array::c_style | py::array::forcecast> ids) {
    return Decode(MakeTokenizer(model, "target"), ids);
  }, py::arg("model"), py::arg("ids"), "text of target ids, as a Translator writes it.");
}

}  // namespace tern::python
