// The runtime's core pieces: the weight-format tables, the format library's field lists, the prepared
// (shared) model, the arena plan, Result::value() on an error, and the converter's atomic write with
// verification of the written file.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>

#include "fields.h"
#include "format.h"
#include "nn/linear_kernels.h"
#include "nn/prepared_model.h"
#include "tern_writer.h"
#include "test_util.h"
#include "weight_formats.h"

using namespace tern;
using namespace tern::test;
namespace fs = std::filesystem;

TEST_CASE("every schema DType has a storage entry and a kernel entry, indexed by the enum") {
  for (size_t i = 0; i < format::EnumCount<fb::DType>(); ++i) {
    const DType t = static_cast<DType>(i);
    const format::WeightFormat& f = format::FormatOf(t);
    CHECK(f.dtype == t);
    CHECK(std::string(f.name) == DTypeName(t));
    CHECK(format::FormatNamed(f.name) == &f);
    CHECK(KernelFor(t).dtype == t);
  }
  CHECK(format::FormatNamed("int4") == nullptr);
  // Sizes in 64-bit arithmetic: a [2^20, 2^20] int8 matrix is 2^40 bytes, with 2^22 bytes of scales.
  const format::WeightFormat& q = format::FormatOf(DType::kInt8);
  CHECK(q.DataBytes(1u << 20, 1u << 20) == (uint64_t{1} << 40));
  CHECK(q.ScaleBytes(1u << 20, 1u << 20) == (uint64_t{1} << 22));
  CHECK(format::FormatOf(DType::kF16).DataBytes(3, 5) == 30);
  CHECK(format::FormatOf(DType::kF32).ScaleBytes(3, 5) == 0);
}

TEST_CASE("the field lists round-trip every header table through the schema") {
  Hyperparameters h;
  h.d_model = 48, h.n_heads = 6, h.head_dim = 8, h.ffn_dim = 96, h.encoder_layers = 2, h.decoder_layers = 3;
  h.source_vocab_size = 100, h.target_vocab_size = 90, h.activation = Activation::kGelu;
  h.norm_placement = NormPlacement::kPreNorm, h.layer_norm_epsilon = 1e-6f;
  h.position_encoding = PositionEncoding::kLearned, h.max_positions = 77, h.embedding_scale = 2.5f;
  h.shared_embeddings = true, h.tied_output_projection = false, h.final_logits_bias = true;
  h.pad_id = 5, h.eos_id = 6, h.unk_id = 7, h.decoder_start_id = 8;
  GenerationDefaults g;
  g.beam_size = 6, g.length_penalty = 0.7f, g.max_length = 99, g.max_length_ratio = 1.5f, g.forced_eos = true;
  g.bad_word_ids = {3, 9};
  g.early_stopping = EarlyStopping::kNever;
  ArenaLimits l{11, 12, 13, 14};
  Provenance p;
  p.source_checkpoint = "ckpt", p.converter_version = "v", p.weights = "int8", p.quantization = "q", p.date = "d";
  p.notes = "n", p.max_abs_error = 0.25f;

  flatbuffers::FlatBufferBuilder fbb;
  const auto ho = format::ToFb(fbb, h);
  const auto go = format::ToFb(fbb, g);
  const auto lo = format::ToFb(fbb, l);
  const auto po = format::ToFb(fbb, p);
  fb::ModelBuilder mb(fbb);
  mb.add_hparams(ho);
  mb.add_generation(go);
  mb.add_limits(lo);
  mb.add_provenance(po);
  fbb.Finish(mb.Finish());
  const fb::Model* root = flatbuffers::GetRoot<fb::Model>(fbb.GetBufferPointer());
  Hyperparameters h2;
  GenerationDefaults g2;
  ArenaLimits l2;
  Provenance p2;
  REQUIRE(format::FromFb(*root->hparams(), "t", &h2).ok());
  REQUIRE(format::FromFb(*root->generation(), "t", &g2).ok());
  REQUIRE(format::FromFb(*root->limits(), "t", &l2).ok());
  REQUIRE(format::FromFb(*root->provenance(), "t", &p2).ok());
  size_t fields = 0;
  // Each field as "name=value" (compared field by field: a struct's padding bytes are not its value).
  auto text = [](const auto& v) -> std::string {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_enum_v<T>) return std::to_string(static_cast<int>(v));
    else if constexpr (std::is_arithmetic_v<T>) return std::to_string(v);
    else if constexpr (std::is_same_v<T, std::string>) return v;
    else {
      std::string s;
      for (const auto& e : v) s += std::to_string(e) + ",";
      return s;
    }
  };
  auto same = [&](const auto& a, const auto& b) {
    std::vector<std::string> x, y;
    format::VisitFields(a, [&](const char* name, const auto& v) { x.push_back(std::string(name) + "=" + text(v)), ++fields; });
    format::VisitFields(b, [&](const char* name, const auto& v) { y.push_back(std::string(name) + "=" + text(v)); });
    CHECK(x == y);
  };
  same(h, h2), same(g, g2), same(l, l2), same(p, p2);
  CHECK(fields == 21 + 11 + 4 + 7);
  CHECK(g2.beam_size == 6);
  CHECK(g2.length_penalty == 0.7f);
  CHECK(g2.max_length == 99);
  CHECK(g2.max_length_ratio == 1.5f);
  CHECK(g2.forced_eos);
  CHECK(g2.bad_word_ids == std::vector<uint32_t>{3, 9});
  CHECK((l2.max_source_tokens == 11 && l2.max_target_tokens == 12 && l2.max_batch == 13 && l2.max_rows == 14));
  CHECK((p2.source_checkpoint == "ckpt" && p2.notes == "n" && p2.max_abs_error == 0.25f && p2.date == "d"));
}

TEST_CASE("an enum value this build does not know is refused, naming the field") {
  flatbuffers::FlatBufferBuilder fbb;
  fb::HyperparametersBuilder b(fbb);
  b.add_activation(static_cast<fb::Activation>(7));
  fbb.Finish(b.Finish());
  const auto* h = flatbuffers::GetRoot<fb::Hyperparameters>(fbb.GetBufferPointer());
  Hyperparameters out;
  Status s = format::FromFb(*h, "m.tern", &out);
  CHECK(s.code() == StatusCode::kInvalidModel);
  CHECK(s.message() == "m.tern: semantic check: hparams.activation 7 is not a value this runtime knows (0..2)");
}

TEST_CASE("packed weights are made once per Model and shared by its Translators") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  auto t1 = MakeTranslator(m);
  auto p1 = PreparedModel::Of(m);
  auto p2 = PreparedModel::Of(m);
  REQUIRE(p1.ok());
  REQUIRE(p2.ok());
  CHECK(p1.value().get() == p2.value().get());
  // Each layer is XNNPACK's packed copy or tern's own GEMM over the model's rows (never neither, never both).
  size_t packed = 0;
  for (const PreparedLayer& l : p1.value()->encoder)
    for (const PackedLinear& x : l.linear) {
      if (x.out == 0) continue;  // an op the encoder does not have (cross-attention)
      CHECK((x.block != nullptr) != x.reads_model_weights());
      packed += x.block ? x.block->bytes() : 0;
    }
  CHECK(p1.value()->packed_bytes >= packed);
  CHECK(p1.value()->encoder.size() == m->hparams().encoder_layers);
  auto t2 = MakeTranslator(m);  // binds to the same packed weights
  const uint32_t src[] = {5, 9, 13, m->hparams().eos_id};
  Span<const uint32_t> one(src, 4);
  Span<const TranslationResult> r1, r2;
  TranslateOptions o;
  o.beam_size = 2;
  REQUIRE(t1->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r1).ok());
  const std::vector<uint32_t> ids1 = ToVector(r1[0].best().ids);
  REQUIRE(t2->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r2).ok());
  CHECK(ToVector(r2[0].best().ids) == ids1);
  // Another Model (even of the same file) has its own.
  auto other = LoadOrFail(ModelPath("post-swish", "int8"));
  CHECK(PreparedModel::Of(other).value().get() != p1.value().get());
}

TEST_CASE("the arena plan: live buffers never overlap, the total is the furthest end") {
  auto m = LoadOrFail(ModelPath("pre-relu", "f32"));
  TranslatorConfig c;
  c.max_batch = 3, c.max_beam = 4, c.max_n_best = 2;
  auto plan = Translator::DescribeArena(*m, c);
  auto bytes = Translator::RequiredArenaBytes(*m, c);
  REQUIRE(plan.ok());
  REQUIRE(bytes.ok());
  size_t end = 0;
  auto index = [](const std::string& phase) { return phase == "encoder" ? 0 : phase == "cross-kv" ? 1 : 2; };
  auto phases = [&](const std::string& lifetime) {  // "encoder" or "encoder..decoder"
    const size_t dots = lifetime.find("..");
    if (dots == std::string::npos) return std::pair{index(lifetime), index(lifetime)};
    return std::pair{index(lifetime.substr(0, dots)), index(lifetime.substr(dots + 2))};
  };
  const auto& b = plan.value();
  for (size_t i = 0; i < b.size(); ++i) {
    CHECK(b[i].offset % 64 == 0);
    end = std::max(end, b[i].offset + b[i].bytes);
    for (size_t j = i + 1; j < b.size(); ++j) {
      const auto [fi, li] = phases(b[i].lifetime);
      const auto [fj, lj] = phases(b[j].lifetime);
      const bool live_together = fi <= lj && fj <= li;
      const bool overlap = b[i].offset < b[j].offset + b[j].bytes && b[j].offset < b[i].offset + b[i].bytes;
      if (live_together && b[i].bytes && b[j].bytes) CHECK_MESSAGE(!overlap, b[i].name << " overlaps " << b[j].name);
    }
  }
  CHECK(end == bytes.value());
  auto t = MakeTranslator(m, c);
  CHECK(t->arena_bytes() == bytes.value());
}

TEST_CASE("Result::value() on an error stops the program with the status message (never undefined behaviour)") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGABRT, SIG_DFL);  // doctest's crash handler must not report the child
    dup2(fds[1], 2);
    Result<int> r = Status(StatusCode::kNotFound, "no such thing");
    std::printf("%d\n", r.value());  // must not return
    _exit(0);
  }
  close(fds[1]);
  std::string err;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  // The message is the first line; under qemu-user the emulator adds its own line about the signal.
  CHECK(err.substr(0, err.find('\n') + 1) == "tern: Result::value() called on an error: no such thing\n");
  Result<int> ok = 3;
  CHECK(ok.ok());
  CHECK(ok.value() == 3);
}

TEST_CASE("the converter's write: the file as written is verified before it replaces the old one") {
  const fs::path dir = fs::temp_directory_path() / ("tern-write-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "m.tern").string();
  std::ofstream(path) << "old contents";
  std::string seen;
  Status s = convert::WriteFileAtomically(path, {1, 2, 3}, [&](const std::string& written) {
    seen = written;
    CHECK(fs::file_size(written) == 3);
    return Status(StatusCode::kInvalidModel, written + ": identifier check failed");
  });
  CHECK(s.code() == StatusCode::kInternal);
  CHECK(s.message().find("the written file fails verification: ") == 0);
  CHECK(seen != path);
  CHECK(!fs::exists(seen));  // the temporary is gone
  std::ifstream in(path);
  std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(old == "old contents");  // the user's file is untouched
  REQUIRE(convert::WriteFileAtomically(path, {1, 2, 3}, [](const std::string&) { return Status::Ok(); }).ok());
  CHECK(fs::file_size(path) == 3);
  fs::remove_all(dir);
}
