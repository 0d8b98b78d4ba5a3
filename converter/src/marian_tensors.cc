// model.safetensors of a MarianMT checkpoint into tern's tensor names (marian_checkpoint.h).
#include <cmath>
#include <set>
#include <sstream>

#include "marian_checkpoint.h"
#include "positions.h"
#include "safetensors.h"
#include "tensor_specs.h"

namespace tern::convert {
namespace {

std::string ShapeStr(const std::vector<uint64_t>& s) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << ']';
  return o.str();
}

}  // namespace

Status ReadMarianTensors(const std::string& st_path, Checkpoint* out) {
  Hyperparameters& hp = out->hp;
  SafeTensorsFile st;
  TERN_RETURN_IF_ERROR(ReadSafeTensors(st_path, &st));
  if (st.metadata.count("tern_provenance")) out->notes = st.metadata["tern_provenance"];

  // Tensor names without the "model." prefix.
  std::map<std::string, const SafeTensor*> src;
  for (const auto& [name, t] : st.tensors) {
    std::string n = name.rfind("model.", 0) == 0 ? name.substr(6) : name;
    src[n] = &t;
  }
  auto load = [&](const std::string& name, std::vector<float>* data, std::vector<uint64_t>* shape) -> Status {
    auto it = src.find(name);
    if (it == src.end()) return Status(StatusCode::kNotFound, st_path + ": tensor '" + name + "' missing");
    *shape = it->second->shape;
    Status s = ToF32(*it->second, name, data);
    if (!s.ok()) return Status(s.code(), st_path + ": " + s.message());
    // A NaN or infinite weight would convert, and translate to empty or garbage lines: refuse it here.
    const uint64_t cols = shape->size() == 2 ? (*shape)[1] : 1;
    for (size_t i = 0; i < data->size(); ++i)
      if (!std::isfinite((*data)[i]))
        return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + name + "' holds " +
                                                     (std::isnan((*data)[i]) ? "NaN" : "an infinity") + " at element " +
                                                     std::to_string(i) + " (row " + std::to_string(i / cols) + ", column " +
                                                     std::to_string(i % cols) + ")");
    return Status::Ok();
  };
  std::set<std::string> used;
  auto check_copy = [&](const std::string& copy, const std::vector<float>& of, const std::string& of_name) -> Status {
    if (!src.count(copy)) return Status::Ok();
    std::vector<float> d;
    std::vector<uint64_t> s;
    TERN_RETURN_IF_ERROR(load(copy, &d, &s));
    used.insert(copy);
    if (d != of)
      return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + copy + "' differs from '" + of_name +
                                                   "' but the config says they are one matrix");
    return Status::Ok();
  };

  // Token embeddings: shared.weight is the encoder's (and the decoder's when shared).
  std::vector<float> enc_embed;
  std::vector<uint64_t> shape;
  std::string enc_name = src.count("shared.weight") ? "shared.weight" : "encoder.embed_tokens.weight";
  TERN_RETURN_IF_ERROR(load(enc_name, &enc_embed, &shape));
  used.insert(enc_name);
  if (enc_name == "shared.weight") TERN_RETURN_IF_ERROR(check_copy("encoder.embed_tokens.weight", enc_embed, enc_name));
  out->tensors["encoder.embed_tokens.weight"] = {{}, std::move(enc_embed)};
  std::map<std::string, std::vector<uint64_t>> src_shapes{{"encoder.embed_tokens.weight", shape}};
  const std::vector<float>* dec_embed = &out->tensors["encoder.embed_tokens.weight"].data;
  std::string dec_name = enc_name;
  if (hp.shared_embeddings) {
    TERN_RETURN_IF_ERROR(check_copy("decoder.embed_tokens.weight", *dec_embed, enc_name));
  } else {
    std::vector<float> d;
    TERN_RETURN_IF_ERROR(load("decoder.embed_tokens.weight", &d, &shape));
    used.insert("decoder.embed_tokens.weight");
    out->tensors["decoder.embed_tokens.weight"] = {{}, std::move(d)};
    src_shapes["decoder.embed_tokens.weight"] = shape;
    dec_embed = &out->tensors["decoder.embed_tokens.weight"].data;
    dec_name = "decoder.embed_tokens.weight";
  }
  if (hp.tied_output_projection) {
    TERN_RETURN_IF_ERROR(check_copy("lm_head.weight", *dec_embed, dec_name));
  }
  // Sinusoidal position tables that older exports carry are checked against the sinusoid the runtime
  // computes for this config (same layout; within 1e-3, which f16 storage of values in [-1, 1] meets),
  // then dropped: the runtime regenerates them. A table that differs means another position scheme.
  if (hp.position_encoding != PositionEncoding::kLearned) {
    for (const char* side : {"encoder", "decoder"}) {
      const std::string name = std::string(side) + ".embed_positions.weight";
      if (!src.count(name)) continue;
      std::vector<float> table;
      TERN_RETURN_IF_ERROR(load(name, &table, &shape));
      used.insert(name);
      if (shape.size() != 2 || shape[1] != hp.d_model || shape[0] == 0 || shape[0] > hp.max_positions)
        return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + name + "' has shape " + ShapeStr(shape) +
                                                     ", expected [<= " + std::to_string(hp.max_positions) + ", " +
                                                     std::to_string(hp.d_model) + "]");
      std::vector<float> want(table.size());
      format::FillSinusoid(hp.position_encoding, shape[0], hp.d_model, want.data());
      for (size_t i = 0; i < table.size(); ++i) {
        if (!(std::fabs(table[i] - want[i]) <= 1e-3f))
          return Status(StatusCode::kInvalidModel,
                        st_path + ": tensor '" + name + "' differs from the " + PositionEncodingName(hp.position_encoding) +
                            " table config.json implies at position " + std::to_string(i / hp.d_model) + ", column " +
                            std::to_string(i % hp.d_model) + " (" + std::to_string(table[i]) + " vs " +
                            std::to_string(want[i]) + ")");
      }
    }
  }
  if (src.count("final_logits_bias")) {
    hp.final_logits_bias = true;
  }

  const std::vector<format::TensorSpec> specs = format::ExpectedTensors(hp);
  for (const format::TensorSpec& spec : specs) {
    if (out->tensors.count(spec.name) && !out->tensors[spec.name].data.empty() && src_shapes.count(spec.name)) {
      shape = src_shapes[spec.name];
    } else {
      std::vector<float> d;
      TERN_RETURN_IF_ERROR(load(spec.name, &d, &shape));
      used.insert(spec.name);
      if (spec.name == "final_logits_bias" && shape.size() == 2 && shape[0] == 1) shape = {shape[1]};
      out->tensors[spec.name].data = std::move(d);
    }
    std::vector<uint64_t> want(spec.shape.begin(), spec.shape.end());
    if (shape != want)
      return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + spec.name + "' has shape " + ShapeStr(shape) +
                                                   ", config.json implies " + ShapeStr(want));
    out->tensors[spec.name].shape = spec.shape;
  }
  for (const auto& [name, t] : src) {
    if (!used.count(name))
      return Status(StatusCode::kUnsupported, st_path + ": tensor '" + name + "' is not part of a Marian model tern knows");
  }
  return Status::Ok();
}

}  // namespace tern::convert
