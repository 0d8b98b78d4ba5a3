// tern.convert: a Hugging Face MarianMT checkpoint directory -> .tern, as tern-convert does
// (converter/src/convert.h), with the GIL released.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>

#include "binding.h"
#include "convert.h"

namespace tern::python {

void RegisterConvert(py::module_& m) {
  m.def(
      "convert",
      [](const std::filesystem::path& checkpoint_dir, const std::filesystem::path& output, const std::string& weights,
         uint32_t int4_block, std::optional<std::pair<std::filesystem::path, std::filesystem::path>> shortlist,
         std::optional<std::filesystem::path> shortlist_marian, uint32_t shortlist_frequent, uint32_t shortlist_best,
         std::optional<uint32_t> max_batch, uint32_t max_source_tokens, uint32_t max_target_tokens, double arena_budget_mib,
         const std::string& source_lang) {
        convert::ConvertOptions o;
        o.checkpoint_dir = checkpoint_dir.string(), o.output = output.string(), o.weights = weights, o.int4_block = int4_block;
        if (shortlist) o.shortlist_corpus = {shortlist->first.string(), shortlist->second.string()};
        if (shortlist_marian) o.shortlist_marian = shortlist_marian->string();
        o.shortlist_params.frequent = shortlist_frequent, o.shortlist_params.best = shortlist_best;
        o.limits.max_source_tokens = max_source_tokens, o.limits.max_target_tokens = max_target_tokens;
        if (max_batch) o.limits.max_batch = *max_batch, o.fit_max_batch = false;
        if (!(arena_budget_mib >= 1.0 && arena_budget_mib <= 1048576.0))
          Raise(StatusCode::kInvalidArgument, "arena_budget_mib " + std::to_string(arena_budget_mib) + ": 1 to 1048576");
        o.arena_budget_bytes = static_cast<uint64_t>(arena_budget_mib * 1048576.0);
        o.source_lang = source_lang;
        o.handle_signals = false;  // Python owns this process's signals
        convert::ConvertReport rep;
        Status st;
        {
          py::gil_scoped_release unlocked;
          st = convert::ConvertCheckpoint(o, &rep);
        }
        if (!st.ok()) Raise(st);
        py::dict formats;
        for (const auto& t : rep.tensors) {
          const char* name = DTypeName(t.dtype);
          py::tuple prev = formats.contains(name) ? py::tuple(formats[name]) : py::make_tuple(0, 0);
          formats[name] = py::make_tuple(prev[0].cast<size_t>() + 1, prev[1].cast<size_t>() + t.bytes);
        }
        py::dict r;
        r["path"] = output.string(), r["file_bytes"] = rep.file_bytes, r["tensors"] = rep.tensors.size();
        r["formats"] = formats;
        r["max_batch"] = rep.max_batch, r["arena_bytes"] = rep.arena_bytes;
        r["shortlist"] = rep.shortlist_method.empty() ? py::object(py::none()) : py::object(py::str(rep.shortlist_method));
        r["warning"] = rep.shortlist_warning;
        return r;
      },
      py::arg("checkpoint_dir"), py::arg("output"), py::kw_only(), py::arg("weights") = "int8", py::arg("int4_block") = 64,
      py::arg("shortlist") = py::none(), py::arg("shortlist_marian") = py::none(), py::arg("shortlist_frequent") = 100,
      py::arg("shortlist_best") = 25, py::arg("max_batch") = py::none(), py::arg("max_source_tokens") = 256,
      py::arg("max_target_tokens") = 256, py::arg("arena_budget_mib") = 256.0, py::arg("source_lang") = "",
      "Converts a MarianMT checkpoint directory (config.json, model.safetensors, source.spm, target.spm, vocab.json) "
      "into a .tern file, as tern-convert does. weights: 'f32', 'f16', 'int8', 'qc4w', 'qb4w', 'int4' or 'mixed'. "
      "shortlist: (source.txt, target.txt) parallel text to build a lexical shortlist from; shortlist_marian: Marian's "
      "lexical table instead. max_batch None: the largest that fits arena_budget_mib. The file is written to a "
      "temporary, loaded back, then renamed over `output` (never a partial file, never an input overwritten). "
      "Returns a dict: path, file_bytes, tensors, formats {name: (count, bytes)}, max_batch, arena_bytes, shortlist. "
      "Raises InvalidArgumentError, NotFoundError, IoError, InvalidModelError, UnsupportedError with the converter's "
      "message (file, tensor, line).");
}

}  // namespace tern::python
