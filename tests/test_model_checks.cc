// Issue 18: hostile and broken inputs reaching the runtime. Every input is built here, at test time, from
// the fixture's tiny models: a .tern with a damaged tokenizer blob (normalizer trie, pieces), a model whose
// vocabulary is smaller than the beam, files whose header fields ask for more memory than the budget,
// generation defaults that do not fit, too many threads. (Two threads on one Translator: test_threads.cc.)
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "session/buffers.h"
#include "marian_checkpoint.h"
#include "sentencepiece_check.h"
#include "tern/cpu.h"
#include "tern/tern.h"
#include "tern_generated.h"
#include "tern_writer.h"
#include "model/model_impl.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

Status LoadImage(const std::vector<uint8_t>& b, const LoadOptions& o = {}) {
  auto m = Model::FromBytes(b.data(), b.size(), "hostile.tern", o);
  return m.ok() ? Status::Ok() : m.status();
}

// `variant`'s checkpoint with its target vocabulary cut to `vocab` tokens (</s> 0, <unk> 1, ..., the
// decoder start / pad token last), written as `weights`.
std::shared_ptr<const Model> TinyVocabModel(uint32_t vocab, const char* weights) {
  convert::Checkpoint ck;
  REQUIRE(convert::ReadMarianCheckpoint(ModelsDir() + "/gelu-learned-separate", &ck).ok());
  const uint32_t d = ck.hp.d_model;
  ck.hp.target_vocab_size = vocab;
  ck.hp.pad_id = ck.hp.decoder_start_id = vocab - 1;
  ck.target_vocab.resize(vocab);
  ck.target_vocab[vocab - 1] = "<pad>";
  ck.gen.bad_word_ids = {vocab - 1};
  auto& emb = ck.tensors.at("decoder.embed_tokens.weight");
  emb.data.resize(size_t{vocab} * d);
  emb.shape = {vocab, d};
  if (ck.tensors.count("final_logits_bias")) {
    auto& b = ck.tensors.at("final_logits_bias");
    b.data.resize(vocab);
    b.shape = {vocab};
  }
  convert::WriteOptions opts;
  opts.weights = convert::WeightPlan::Named(weights, 32).value();
  opts.limits.max_source_tokens = std::min(opts.limits.max_source_tokens, ck.hp.max_positions);
  opts.limits.max_target_tokens = std::min(opts.limits.max_target_tokens, ck.hp.max_positions - 1);
  std::vector<uint8_t> image;
  Status s = convert::BuildTernImage(ck, opts, &image, nullptr);
  REQUIRE_MESSAGE(s.ok(), s.message());
  auto m = Model::FromBytes(image.data(), image.size(), "tiny-vocab.tern");
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  return m.value();
}

}  // namespace

TEST_CASE("a .tern whose SentencePiece normalizer is broken is refused by the verifier") {
  std::vector<uint8_t> b = ReadBytes(ModelPath("post-swish", "int8"));
  const fb::Model* root = fb::GetModel(b.data());
  const auto* spm = root->tokenizer()->source_spm();
  const size_t at = static_cast<size_t>(spm->data() - b.data());
  const std::string broken = BreakCharsMap(std::string(reinterpret_cast<const char*>(spm->data()), spm->size()));
  std::memcpy(&b[at], broken.data(), broken.size());
  Status s = LoadImage(b);
  CHECK(s.code() == StatusCode::kInvalidModel);
  CHECK_MESSAGE(s.message().find("hostile.tern: semantic check: tokenizer.source_spm.normalizer_spec.precompiled_charsmap: "
                                 "trie unit 0 leads to units") != std::string::npos, s.message());
}

TEST_CASE("the charsmap check: each way out of bounds is named, and real normalizers pass") {
  const std::vector<uint8_t> bytes = ReadBytes(ModelsDir() + "/post-swish/source.spm");
  const std::string proto(bytes.begin(), bytes.end());
  const auto [at, size] = FindPrecompiledCharsMap(proto);
  REQUIRE(size > 1024);
  const std::string blob = proto.substr(at, size);
  CHECK(format::CheckPrecompiledCharsMap(blob, "m").ok());
  uint32_t trie;
  std::memcpy(&trie, blob.data(), 4);
  {
    std::string b = blob;  // the strings lose their final NUL
    b.back() = 'x';
    CHECK(format::CheckPrecompiledCharsMap(b, "m").message() == "m: the replacement strings do not end with a NUL byte");
  }
  {
    std::string b = blob;  // a trie size past the blob
    const uint32_t big = static_cast<uint32_t>(blob.size());
    std::memcpy(&b[0], &big, 4);
    CHECK(format::CheckPrecompiledCharsMap(b, "m").message().find("trie size") != std::string::npos);
  }
  {
    std::string b = blob;  // the root's offset points far outside
    const uint32_t root = 0x7ffffc00u;  // offset (unit >> 10) huge, no leaf, label 0
    std::memcpy(&b[4], &root, 4);
    CHECK(format::CheckPrecompiledCharsMap(b, "m").message().find("trie unit 0 leads to units") != std::string::npos);
  }
  CHECK(format::CheckSentencePieceModel(std::string("\x0a\xff", 2), "m").message().find("malformed protobuf field at byte 0") !=
        std::string::npos);
  CHECK(format::CheckSentencePieceModel("", "m").message() == "m: empty SentencePiece model");
}

TEST_CASE("SentencePiece pieces that darts-clone cannot take (empty, or holding a NUL byte) are refused") {
  // SentencePiece builds darts-clone tries from the pieces as C strings; darts-clone throws on an empty
  // key or one cut short by a NUL, and the exception ended the process (std::terminate: found by
  // fuzz_converter_parsers). Before this check such a model passed tern's verifier.
  const std::vector<uint8_t> bytes = ReadBytes(ModelsDir() + "/post-swish/source.spm");
  const std::string proto(bytes.begin(), bytes.end());
  REQUIRE(format::CheckSentencePieceModel(proto, "m").ok());
  const auto [at, size] = FindPieceText(proto, 5);
  REQUIRE(size > 0);
  std::string nul = proto;
  nul[at] = '\0';
  CHECK(format::CheckSentencePieceModel(nul, "m").message() == "m: piece 5 holds a NUL byte (at byte 0 of its text)");
  // ModelProto { pieces { piece: "" } }
  CHECK(format::CheckSentencePieceModel(std::string("\x0a\x02\x0a\x00", 4), "m").message() == "m: piece 0 is empty");
  CHECK(format::CheckSentencePieceModel(std::string("\x0a\x02\x10\x01", 4), "m").message() == "m: piece 0 has no text");

  // The same bytes inside a .tern: refused when the model loads, before SentencePiece sees them.
  std::vector<uint8_t> b = ReadBytes(ModelPath("post-swish", "int8"));
  const auto* spm = fb::GetModel(b.data())->tokenizer()->target_spm();
  const std::string embedded(reinterpret_cast<const char*>(spm->data()), spm->size());
  const auto [piece_at, piece_size] = FindPieceText(embedded, 5);
  REQUIRE(piece_size > 0);
  b[static_cast<size_t>(spm->data() - b.data()) + piece_at] = 0;
  Status s = LoadImage(b);
  CHECK(s.code() == StatusCode::kInvalidModel);
  CHECK_MESSAGE(s.message() == "hostile.tern: semantic check: tokenizer.target_spm: piece 5 holds a NUL byte (at byte 0 of its text)",
                s.message());
}

TEST_CASE("beams wider than the vocabulary: every beam slot holds real tokens (no crash, no uninitialised read)") {
  // Run under ASan in CI (and valgrind-clean): before, an empty beam slot was decoded with garbage ids.
  for (uint32_t vocab : {4u, 16u}) {
    for (const char* w : {"f32", "int8"}) {
      CAPTURE(vocab);
      CAPTURE(std::string(w));
      auto model = TinyVocabModel(vocab, w);
      TranslatorConfig cfg;
      cfg.max_beam = 16;
      cfg.max_n_best = 16;
      auto t = MakeTranslator(model, cfg);
      for (uint32_t beam : {2u, 4u, 8u, 16u}) {
        CAPTURE(beam);
        const std::vector<uint32_t> src = {5, 6, 7, 0};
        Span<const uint32_t> one(src.data(), src.size());
        TranslateOptions o;
        o.beam_size = beam;
        o.n_best = beam;
        o.max_length = 6;
        Span<const TranslationResult> r;
        REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
        REQUIRE(r[0].ok());
        REQUIRE(r[0].hypotheses.size() >= 1);
        for (const Hypothesis& h : r[0].hypotheses) {
          for (uint32_t id : h.ids) CHECK(id < vocab - 1);  // never pad, never outside the vocabulary
          CHECK(std::isfinite(h.score));
        }
        CHECK(r[0].best().score >= r[0].hypotheses[r[0].hypotheses.size() - 1].score);
      }
    }
  }
}

TEST_CASE("memory rule: header fields cannot make tern allocate beyond the budget") {
  std::vector<uint8_t> b = ReadBytes(ModelPath("post-swish", "int8"));
  SUBCASE("limits in the file that need a huge arena") {
    auto* lim = fb::GetMutableModel(b.data())->mutable_limits();
    REQUIRE(lim->mutate_max_batch(4096));
    REQUIRE(lim->mutate_max_rows(kMaxBatch * kMaxBeam));
    auto m = Model::FromBytes(b.data(), b.size(), "big-limits.tern");
    REQUIRE(m.ok());
    TranslatorConfig c;
    c.max_beam = 64;
    auto t = Translator::Create(m.value(), c);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == StatusCode::kResourceExhausted);
    CHECK(t.status().message().find("exceeds the memory budget of 2147483648 bytes (LoadOptions::memory_budget_bytes)") !=
          std::string::npos);
    // The same limits under a small budget are refused even for greedy; the default limits fit.
    LoadOptions small;
    small.memory_budget_bytes = 4 << 20;
    auto m2 = Model::FromBytes(b.data(), b.size(), "big-limits.tern", small);
    REQUIRE(m2.ok());
    CHECK(Translator::Create(m2.value(), {}).status().code() == StatusCode::kResourceExhausted);
    TranslatorConfig modest;
    modest.max_batch = 1;
    modest.max_beam = 1;
    CHECK(Translator::Create(m2.value(), modest).ok());
  }
  SUBCASE("a position table sized by header fields") {
    // A sinusoid model whose max_positions claims 2^20: 2^20 x 32 floats = 128 MiB of table, over a 64 MiB budget.
    std::vector<uint8_t> s = ReadBytes(ModelPath("post-swish", "int8"));
    REQUIRE(fb::GetMutableModel(s.data())->mutable_hparams()->mutate_max_positions(1u << 20));
    LoadOptions o;
    o.memory_budget_bytes = 64 << 20;
    Status st = LoadImage(s, o);
    CHECK(st.code() == StatusCode::kResourceExhausted);
    CHECK(st.message().find("the position table, max_positions 1048576 x d_model 32 floats, 134217728 bytes") != std::string::npos);
    CHECK(st.message().find("over the memory budget of 67108864 bytes (LoadOptions::memory_budget_bytes)") != std::string::npos);
  }
  SUBCASE("limits.max_batch 2^26: refused by the verifier, the C API sizes nothing by a file limit") {
    // This edit verified before, and tern_translator_create(model, NULL) then sized its per-sentence arrays
    // (texts, id spans, error copies) by the file's max_batch: about 2 GiB under a 64 MiB budget.
    std::vector<uint8_t> s = ReadBytes(ModelPath("post-swish", "int8"));
    REQUIRE(fb::GetMutableModel(s.data())->mutable_limits()->mutate_max_batch(1u << 26));
    Status st = LoadImage(s, {});
    CHECK(st.code() == StatusCode::kInvalidModel);
    CHECK(st.message().find("limits.max_batch 67108864 (at most 4096) or limits.max_rows 32") != std::string::npos);
    // The largest file limit allowed: a C translator made with the file's defaults takes the resolved batch
    // (max_rows 32 / beam 4 = 8 sentences), and a call of 9 runs as chunks of 8 and 1, its per-sentence
    // arrays sized by the chunk, not by the file.
    REQUIRE(fb::GetMutableModel(s.data())->mutable_limits()->mutate_max_batch(kMaxBatch));
    const std::string path = (std::filesystem::temp_directory_path() / ("tern-maxbatch-" + std::to_string(getpid()) + ".tern")).string();
    { std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(s.data()), static_cast<std::streamsize>(s.size())); }
    tern_model_params mp = tern_model_default_params();
    mp.memory_budget_bytes = 64 << 20;
    tern_error err;
    tern_model* model = tern_model_load_with_params(path.c_str(), &mp, &err);
    std::filesystem::remove(path);
    REQUIRE_MESSAGE(model != nullptr, err.message);
    tern_translator* tr = tern_translator_create(model, nullptr, &err);
    tern_model_free(model);
    REQUIRE_MESSAGE(tr != nullptr, err.message);
    std::vector<const char*> many(9, "A dog.");
    tern_results* r = tern_results_create();
    CHECK(tern_translate(tr, many.data(), 8, nullptr, r, &err) == TERN_OK);
    CHECK(tern_result_count(r) == 8);
    // More than max_batch: two chunks (tern/call_chunks.h), the arena the same.
    CHECK(tern_translate(tr, many.data(), many.size(), nullptr, r, &err) == TERN_OK);
    CHECK(tern_result_count(r) == 9);
    CHECK(std::string(tern_result_text(r, 8, 0, nullptr)) == tern_result_text(r, 0, 0, nullptr));
    tern_results_free(r);
    tern_translator_free(tr);
  }
}

TEST_CASE("the memory rule counts the planned arena itself: a budget of exactly what it needs fits, a byte less does not") {
  // The arena was sized twice (the plan, and a hand-kept upper-bound formula for the budget); the plan in
  // 64-bit arithmetic is now the only sizing path.
  const std::vector<uint8_t> bytes = ReadBytes(ModelPath("post-swish", "int8"));
  for (uint32_t batch : {1u, 3u, 16u}) {
    for (uint32_t beam : {1u, 4u, 12u}) {
      TranslatorConfig c;
      c.max_batch = batch;
      c.max_beam = beam;
      c.max_n_best = std::min(beam, 3u);
      c.max_target_tokens = 17 + beam;
      c.threads = 1;
      auto m = Model::FromBytes(bytes.data(), bytes.size(), "m.tern");
      REQUIRE(m.ok());
      auto need = Translator::RequiredArenaBytes(*m.value(), c);
      REQUIRE(need.ok());
      const uint64_t exact = need.value() + m.value()->impl().owned_bytes_estimate();
      LoadOptions o;
      o.memory_budget_bytes = exact;
      auto fits = Model::FromBytes(bytes.data(), bytes.size(), "m.tern", o);
      REQUIRE(fits.ok());
      CHECK(Translator::Create(fits.value(), c).ok());
      o.memory_budget_bytes = exact - 1;
      auto over = Model::FromBytes(bytes.data(), bytes.size(), "m.tern", o);
      REQUIRE(over.ok());
      auto t = Translator::Create(over.value(), c);
      CHECK(t.status().code() == StatusCode::kResourceExhausted);
      CHECK(t.status().message().find("the arena at these limits needs " + std::to_string(need.value()) + " bytes") !=
            std::string::npos);
    }
  }
}

TEST_CASE("generation defaults from the file are range-checked at load") {
  // Files written with out-of-range defaults (the writer stores what it is given; the loader refuses).
  auto with = [](auto&& edit) {
    convert::Checkpoint ck;
    REQUIRE(convert::ReadMarianCheckpoint(ModelsDir() + "/post-swish", &ck).ok());
    edit(ck.gen);
    convert::WriteOptions opts;
    opts.limits.max_source_tokens = std::min(opts.limits.max_source_tokens, ck.hp.max_positions);
    opts.limits.max_target_tokens = std::min(opts.limits.max_target_tokens, ck.hp.max_positions - 1);
    std::vector<uint8_t> image;
    REQUIRE(convert::BuildTernImage(ck, opts, &image, nullptr).ok());
    return LoadImage(image);
  };
  CHECK(with([](GenerationDefaults& g) { g.max_length_ratio = 1e30f; }).message().find(
            "generation.max_length_ratio 1000000015047466219876688855040.000000 out of range (0..1000)") != std::string::npos);
  CHECK(with([](GenerationDefaults& g) { g.beam_size = 1000000; }).message().find(
            "generation.beam_size 1000000 out of range (1..64)") != std::string::npos);
  CHECK(with([](GenerationDefaults& g) { g.length_penalty = 1e30f; }).message().find(
            "generation.length_penalty must be finite") != std::string::npos);
  CHECK(with([](GenerationDefaults& g) { g.max_length = 0; }).message().find("generation.max_length 0 out of range") !=
        std::string::npos);
}

TEST_CASE("threads beyond the CPU's hardware threads are clamped") {
  TranslatorConfig c;
  c.threads = 1024;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), c);
  CHECK(t->threads() == DescribeCpu().processors);
  CHECK(t->threads() >= 1);
}

