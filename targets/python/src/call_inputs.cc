#include "call_inputs.h"

#include <pybind11/stl.h>

#include "call_options.h"

namespace tern::python {

std::vector<std::string> TextsOf(py::object texts, const char* what) {
  if (py::isinstance<py::str>(texts) || py::isinstance<py::bytes>(texts) || !py::isinstance<py::sequence>(texts))
    throw py::type_error(std::string(what) + ": expected a list of str (or bytes), got " +
                         std::string(py::str(texts.get_type().attr("__name__"))));
  auto seq = py::reinterpret_borrow<py::sequence>(texts);
  std::vector<std::string> in(seq.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = TextOf(seq[i], std::string(what) + "[" + std::to_string(i) + "]");
  return in;
}

std::vector<std::vector<uint32_t>> IdListsOf(py::object lists, const char* what) {
  if (!py::isinstance<py::sequence>(lists) || py::isinstance<py::str>(lists))
    throw py::type_error(std::string(what) + ": expected a list of 1-D integer arrays");
  auto seq = py::reinterpret_borrow<py::sequence>(lists);
  std::vector<std::vector<uint32_t>> ids(seq.size());
  for (size_t i = 0; i < ids.size(); ++i)
    if (!seq[i].is_none()) ids[i] = IdsOf(seq[i], std::string(what) + "[" + std::to_string(i) + "]");
  return ids;
}

CallRules CallRules::FromKeywords(py::kwargs kw) {
  CallRules r;
  for (auto item : kw) {
    const std::string k = py::str(item.first);
    py::handle v = item.second;
    try {
    auto opt_u32 = [&]() { return v.is_none() ? std::optional<uint32_t>() : std::optional<uint32_t>(v.cast<uint32_t>()); };
    if (k == "do_sample") r.sampling.enabled = v.cast<bool>();
    else if (k == "sampling_temperature") r.sampling.temperature = v.cast<float>();
    else if (k == "sampling_topk") r.sampling.top_k = v.cast<uint32_t>();
    else if (k == "sampling_topp") r.sampling.top_p = v.cast<float>();
    else if (k == "seed") r.sampling.seed = v.cast<uint64_t>();
    else if (k == "repetition_penalty") r.repetition_penalty = v.is_none() ? std::optional<float>() : v.cast<float>();
    else if (k == "no_repeat_ngram_size") r.no_repeat_ngram_size = opt_u32();
    else if (k == "min_length") r.min_length = opt_u32();
    else if (k == "max_input_length") r.max_input_length = v.cast<uint32_t>();
    else if (k == "alternatives") r.alternatives = v.cast<uint32_t>();
    else if (k == "min_alternative_expansion_prob") r.min_alternative_expansion_prob = v.cast<float>();
    else if (k == "suppress_sequences") r.SetSuppress(py::reinterpret_borrow<py::object>(v));
    else if (k == "disable_unk") r.disable_unk = v.cast<bool>();
    else if (k == "return_attention") r.return_attention = v.cast<bool>();
    else if (k == "end_tokens") r.end_tokens = v.cast<std::vector<uint32_t>>();
    else if (k == "forced_eos") r.forced_eos = v.is_none() ? std::optional<bool>() : v.cast<bool>();
    else throw py::type_error("submit() got an unexpected keyword argument '" + k + "'");
    } catch (const py::cast_error&) {
      throw py::type_error(k + ": " + std::string(py::str(v.get_type().attr("__name__"))) + " is not of the type translate_batch takes");
    }
  }
  return r;
}

}  // namespace tern::python
