// SentencePiece parsing the source proto on a thread of its own while a model loads (text/spm_prefetch.h,
// api/model_load.cc): begun only when a packed-weights cache and a second processor make a warm load short;
// a tokenizer made from the prefetched parse encodes as one that parsed itself; a proto SentencePiece
// rejects fails the same way on either path, and the parse is handed out once.
#include <sentencepiece_processor.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <cstring>

#include "model/model_impl.h"
#include "model_reader.h"
#include "tern/cpu.h"
#include "tern/tokenize.h"
#include "test_util.h"
#include "text/spm_prefetch.h"

using namespace tern;
using namespace tern::test;
namespace fs = std::filesystem;

namespace {

std::vector<uint32_t> Ids(const std::shared_ptr<const Model>& m, std::string_view text) {
  auto tok = TextTokenizer::Create(m);
  REQUIRE_MESSAGE(tok.ok(), tok.status().message());
  std::vector<uint32_t> ids;
  REQUIRE(tok.value()->Encode(text, "", &ids).ok());
  return ids;
}

}  // namespace

TEST_CASE("SentencePiece prefetch: begun at load with a packed-weights cache, tokens as without it") {
  const fs::path cache = fs::temp_directory_path() / ("tern-spm-prefetch-" + std::to_string(getpid()));
  LoadOptions with_cache;
  with_cache.packed_cache_dir = cache.string();
  auto plain = Model::Load(ModelPath("post-swish", "int8"));
  auto cached = Model::Load(ModelPath("post-swish", "int8"), with_cache);
  REQUIRE(plain.ok());
  REQUIRE(cached.ok());
  CHECK(plain.value()->impl().source_spm_prefetch == nullptr);  // no cache: the tokenizer is made alone, first
  CHECK((cached.value()->impl().source_spm_prefetch != nullptr) == (DescribeCpu().processors > 1));
  const std::vector<uint8_t> bytes = ReadBytes(ModelPath("post-swish", "int8"));
  auto from_memory = Model::FromBytes(bytes.data(), bytes.size(), "m.tern", with_cache);
  REQUIRE(from_memory.ok());
  CHECK(from_memory.value()->impl().source_spm_prefetch == nullptr);  // never cached

  for (std::string_view text : {"A man in a blue shirt is standing on a ladder.", "Zwei Kinder.", ""}) {
    CAPTURE(text);
    CHECK(Ids(cached.value(), text) == Ids(plain.value(), text));  // the first takes the prefetched parse
  }
  if (auto* p = cached.value()->impl().source_spm_prefetch.get()) CHECK_FALSE(p->Take().has_value());  // taken once
  std::error_code ec;
  fs::remove_all(cache, ec);
}

TEST_CASE("SentencePiece prefetch: a proto SentencePiece rejects fails as it does on the caller's thread") {
  const std::string proto("\x0a\x03\x0a\x01\x61", 5);  // one piece "a", no <unk>
  auto direct = ParseSentencePiece(proto, "m.tern: tokenizer.source_spm: ");
  REQUIRE_FALSE(direct.ok());
  CHECK(direct.status().code() == StatusCode::kInvalidModel);
  CHECK_MESSAGE(direct.status().message().rfind("m.tern: tokenizer.source_spm: ", 0) == 0, direct.status().message());
  SpmPrefetch prefetch(format::SourceSpm{proto, {}}, "m.tern: tokenizer.source_spm: ");
  auto taken = prefetch.Take();
  REQUIRE(taken.has_value());
  REQUIRE_FALSE(taken->ok());
  CHECK(taken->status().code() == StatusCode::kInvalidModel);
  CHECK(taken->status().message() == direct.status().message());
  CHECK_FALSE(prefetch.Take().has_value());
  SpmPrefetch never_taken(format::SourceSpm{proto, {}}, "x: ");  // destroyed without Take: its thread is joined
}

TEST_CASE("SentencePiece prefetch: the source model goes to the reader before the rest is verified, and only when sound") {
  const std::vector<uint8_t> good = ReadBytes(ModelPath("post-swish", "int8"));
  const fb::Model* root = fb::GetModel(good.data());
  const auto* spm = root->tokenizer()->source_spm();
  const std::string_view file_spm(reinterpret_cast<const char*>(spm->data()), spm->size());
  struct Seen {
    int calls = 0;
    ptrdiff_t at = -1;  // the bytes handed out: where in the image, how many
    size_t size = 0;
  };
  auto read = [](std::vector<uint8_t> bytes, Seen* seen) {
    // A copy at a 64-byte aligned address, as a mapping is.
    std::vector<uint8_t> image(bytes.size() + 64);
    uint8_t* base = image.data() + (64 - reinterpret_cast<uintptr_t>(image.data()) % 64) % 64;
    std::memcpy(base, bytes.data(), bytes.size());
    auto r = format::ReadModel(base, bytes.size(), "m.tern", UINT64_MAX, [&](const format::SourceSpm& s) {
      const std::string_view p = s.proto;
      ++seen->calls;
      seen->at = p.data() - reinterpret_cast<const char*>(base), seen->size = p.size();
    });
    return r.ok() ? Status::Ok() : r.status();
  };
  Seen ok;
  CHECK(read(good, &ok).ok());
  CHECK(ok.calls == 1);
  CHECK(ok.at == file_spm.data() - reinterpret_cast<const char*>(good.data()));
  CHECK(ok.size == file_spm.size());

  // A target piece's length past the file: the verifier refuses the file; the source model had passed its
  // own checks first and was handed out (the caller discards what it began).
  std::vector<uint8_t> bad_vocab = good;
  const auto* piece = root->tokenizer()->target_vocab()->Get(7);
  const uint32_t huge = 0x7ffffff0u;
  std::memcpy(&bad_vocab[reinterpret_cast<const uint8_t*>(piece) - good.data()], &huge, 4);
  Seen v;
  const Status sv = read(bad_vocab, &v);
  CHECK(sv.code() == StatusCode::kInvalidModel);
  CHECK_MESSAGE(sv.message().find("FlatBuffers verifier rejected the file") != std::string::npos, sv.message());
  CHECK(v.calls == 1);

  // A source model that fails its check is never handed out, and the error is the one without a reader.
  std::vector<uint8_t> bad_proto = good;
  bad_proto[static_cast<size_t>(file_spm.data() - reinterpret_cast<const char*>(good.data()))] = 0x07;  // wire type 7
  Seen p;
  const Status sp = read(bad_proto, &p);
  CHECK(sp.code() == StatusCode::kInvalidModel);
  CHECK(p.calls == 0);
  auto without = format::ReadModel(bad_proto.data(), bad_proto.size(), "m.tern");
  REQUIRE_FALSE(without.ok());
  CHECK(sp.message() == without.status().message());

  // The root offset outside the file: nothing is handed out, the verifier says why.
  std::vector<uint8_t> bad_root = good;
  const uint32_t outside = static_cast<uint32_t>(good.size() + 8);
  std::memcpy(bad_root.data(), &outside, 4);
  Seen r;
  const Status sr = read(bad_root, &r);
  CHECK(sr.code() == StatusCode::kInvalidModel);
  CHECK(r.calls == 0);
}
