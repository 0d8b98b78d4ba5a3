// The verified loader: every tiny model loads; each kind of damage is rejected with its own message.
#include <cmath>
#include <cstring>
#include <thread>

#include "tern_generated.h"
#include "model/model_impl.h"
#include "positions.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

Status LoadBytes(const std::vector<uint8_t>& bytes) {
  auto r = Model::FromBytes(bytes.data(), bytes.size(), "damaged.tern");
  return r.ok() ? Status::Ok() : r.status();
}

// A tensor of the file by name, writable.
fb::Tensor* MutableTensor(std::vector<uint8_t>& bytes, const char* name) {
  fb::Model* m = fb::GetMutableModel(bytes.data());
  for (fb::Tensor* t : *m->mutable_tensors())
    if (t->name()->str() == name) return t;
  FAIL("no tensor " << name);
  return nullptr;
}

}  // namespace

TEST_CASE("every tiny model loads with the hyperparameters of its config") {
  for (const std::string& v : Variants()) {
    for (const char* w : {"f32", "int8", "f16"}) {
      CAPTURE(v);
      CAPTURE(w);
      auto m = LoadOrFail(ModelPath(v, w));
      const Hyperparameters& h = m->hparams();
      CHECK(h.d_model == 32);
      CHECK(h.n_heads == 4);
      CHECK(h.head_dim == 8);
      CHECK(h.ffn_dim == 64);
      CHECK(h.encoder_layers == 2);
      CHECK(h.decoder_layers == 2);
      CHECK(h.layer_norm_epsilon == doctest::Approx(1e-5f));
      CHECK(h.embedding_scale == doctest::Approx(std::sqrt(32.0f)));
      CHECK(h.decoder_start_id == h.pad_id);
      CHECK(m->weight_dtype() == (std::string(w) == "int8" ? DType::kInt8 : std::string(w) == "f16" ? DType::kF16 : DType::kF32));
      CHECK(m->source_vocab().size() == h.source_vocab_size);
      CHECK(m->generation().forced_eos);
      for (const TensorView& t : m->impl().tensors()) CHECK(reinterpret_cast<uintptr_t>(t.data) % 64 == 0);
    }
  }
  auto sep = LoadOrFail(ModelPath("gelu-learned-separate", "f32"));
  CHECK_FALSE(sep->hparams().shared_embeddings);
  CHECK(sep->hparams().activation == Activation::kGelu);
  CHECK(sep->hparams().position_encoding == PositionEncoding::kLearned);
  CHECK(sep->impl().tensor("decoder.embed_tokens.weight") != nullptr);
  auto pre = LoadOrFail(ModelPath("pre-interleaved-legacy", "f32"));
  CHECK(pre->hparams().norm_placement == NormPlacement::kPreNorm);
  CHECK(pre->hparams().position_encoding == PositionEncoding::kSinusoidalInterleaved);
  CHECK(pre->impl().tensor("encoder.layer_norm.weight") != nullptr);
  CHECK(pre->impl().tensor("lm_head.weight") == nullptr);  // the tied copy is stored once
}

TEST_CASE("sinusoidal positions: sin in the first half, cos in the second, from position 0") {
  auto m = LoadOrFail(ModelPath("post-swish", "f32"));
  const float* p = m->impl().positions(false, 6);
  const size_t d = 32;
  CHECK(p[0] == 0.f);       // sin(0)
  CHECK(p[16] == 1.f);      // cos(0)
  CHECK(p[d + 0] == doctest::Approx(std::sin(1.0)).epsilon(1e-7));
  CHECK(p[d + 16] == doctest::Approx(std::cos(1.0)).epsilon(1e-7));
  CHECK(p[5 * d + 3] == doctest::Approx(std::sin(5.0 / std::pow(10000.0, 6.0 / 32))).epsilon(1e-6));
  auto il = LoadOrFail(ModelPath("pre-interleaved-legacy", "f32"));
  const float* q = il->impl().positions(true, 2);
  CHECK(q[d + 0] == doctest::Approx(std::sin(1.0)).epsilon(1e-7));
  CHECK(q[d + 1] == doctest::Approx(std::cos(1.0)).epsilon(1e-7));
}

TEST_CASE("sinusoidal positions: rows filled on first use equal the whole table computed at once, bit for bit") {
  for (const char* name : {"post-swish", "pre-interleaved-legacy"}) {
    CAPTURE(name);
    auto m = LoadOrFail(ModelPath(name, "f32"));
    const Hyperparameters& hp = m->hparams();
    REQUIRE(hp.max_positions > Model::Impl::kSinusoidRowsAtLoad);  // some rows are left for later
    std::vector<float> want(size_t{hp.max_positions} * hp.d_model);
    format::FillSinusoid(hp.position_encoding, hp.max_positions, hp.d_model, want.data());
    // Two threads reach past the rows filled at load at once, then one reaches the last position.
    const float* a = nullptr;
    const float* b = nullptr;
    std::thread t1([&] { a = m->impl().positions(false, Model::Impl::kSinusoidRowsAtLoad + 3); });
    std::thread t2([&] { b = m->impl().positions(true, Model::Impl::kSinusoidRowsAtLoad + 70); });
    t1.join();
    t2.join();
    CHECK(a == b);
    const float* all = m->impl().positions(true, hp.max_positions);
    CHECK(std::memcmp(all, want.data(), want.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("damaged files are rejected, each with its own message") {
  const std::vector<uint8_t> good = ReadBytes(ModelPath("post-swish", "int8"));
  REQUIRE(LoadBytes(good).ok());

  SUBCASE("file shorter than the minimum") {
    std::vector<uint8_t> b(good.begin(), good.begin() + 10);
    Status s = LoadBytes(b);
    CHECK(s.code() == StatusCode::kInvalidModel);
    CHECK(s.message().find("size check") != std::string::npos);
  }
  SUBCASE("truncated file") {
    std::vector<uint8_t> b(good.begin(), good.begin() + good.size() / 2);
    Status s = LoadBytes(b);
    CHECK(s.code() == StatusCode::kInvalidModel);
    CHECK(s.message().find("FlatBuffers verifier") != std::string::npos);
  }
  SUBCASE("wrong identifier") {
    std::vector<uint8_t> b = good;
    std::memcpy(b.data() + 4, "NOPE", 4);
    Status s = LoadBytes(b);
    CHECK(s.message().find("identifier check") != std::string::npos);
  }
  SUBCASE("a flipped byte in the header (root offset)") {
    std::vector<uint8_t> b = good;
    b[2] ^= 0x40;
    Status s = LoadBytes(b);
    CHECK(s.code() == StatusCode::kInvalidModel);
    CHECK(s.message().find("FlatBuffers verifier") != std::string::npos);
  }
  SUBCASE("a newer format version") {
    std::vector<uint8_t> b = good;
    REQUIRE(fb::GetMutableModel(b.data())->mutate_format_version(kFormatVersion + 1));
    Status s = LoadBytes(b);
    CHECK(s.code() == StatusCode::kUnsupported);
    CHECK(s.message().find("version check: format_version " + std::to_string(kFormatVersion + 1) +
                           " is newer than this runtime reads (" + std::to_string(kFormatVersion) + ")") != std::string::npos);
  }
  SUBCASE("a tensor offset outside the weight segment") {
    std::vector<uint8_t> b = good;
    fb::Tensor* t = MutableTensor(b, "decoder.layers.1.fc2.weight");
    REQUIRE(t->mutate_offset(fb::GetModel(b.data())->weights()->size() + 64));
    Status s = LoadBytes(b);
    CHECK(s.message().find("tensor 'decoder.layers.1.fc2.weight'") != std::string::npos);
    CHECK(s.message().find("outside the") != std::string::npos);
  }
  SUBCASE("a misaligned tensor offset") {
    std::vector<uint8_t> b = good;
    fb::Tensor* t = MutableTensor(b, "decoder.layers.1.fc2.weight");
    REQUIRE(t->mutate_offset(t->offset() + 4));
    CHECK(LoadBytes(b).message().find("is not 64-byte aligned") != std::string::npos);
  }
  SUBCASE("a shape that disagrees with the hyperparameters") {
    std::vector<uint8_t> b = ReadBytes(ModelPath("post-swish", "f32"));
    fb::Tensor* t = MutableTensor(b, "encoder.layers.0.fc1.weight");  // [64, 32] -> [32, 64], same length
    t->mutable_shape()->Mutate(0, 32);
    t->mutable_shape()->Mutate(1, 64);
    Status s = LoadBytes(b);
    CHECK(s.message().find("tensor 'encoder.layers.0.fc1.weight': shape [32, 64] disagrees with the hyperparameters, "
                           "which imply [64, 32]") != std::string::npos);
  }
  SUBCASE("a length that disagrees with the shape") {
    std::vector<uint8_t> b = good;
    fb::Tensor* t = MutableTensor(b, "encoder.layers.0.fc1.bias");
    REQUIRE(t->mutate_length(t->length() + 4));
    CHECK(LoadBytes(b).message().find("tensor 'encoder.layers.0.fc1.bias': length") != std::string::npos);
  }
  SUBCASE("a scale that is not finite and positive") {
    std::vector<uint8_t> b = good;
    fb::Tensor* t = MutableTensor(b, "decoder.layers.0.fc1.weight");
    float* scales = reinterpret_cast<float*>(
        const_cast<uint8_t*>(fb::GetModel(b.data())->weights()->data()) + t->scales_offset());
    scales[3] = -1.f;
    CHECK(LoadBytes(b).message().find("scale of row 3") != std::string::npos);
  }
  SUBCASE("hyperparameters that contradict each other") {
    std::vector<uint8_t> b = good;
    REQUIRE(fb::GetMutableModel(b.data())->mutable_hparams()->mutate_head_dim(16));
    CHECK(LoadBytes(b).message().find("n_heads 4 x head_dim 16 != d_model 32") != std::string::npos);
  }
}

TEST_CASE("Model::Load reports unreadable paths") {
  auto m = Model::Load("/nonexistent/model.tern");
  CHECK(m.status().code() == StatusCode::kIoError);
  CHECK(m.status().message().find("/nonexistent/model.tern: cannot open") != std::string::npos);
}
