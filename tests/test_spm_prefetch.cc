// SentencePiece parsing the source proto on a thread of its own while a model loads (text/spm_prefetch.h,
// api/model_load.cc): begun only when a packed-weights cache and a second processor make a warm load short;
// a tokenizer made from the prefetched parse encodes as one that parsed itself; a proto SentencePiece
// rejects fails the same way on either path, and the parse is handed out once.
#include <sentencepiece_processor.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/model_impl.h"
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
  SpmPrefetch prefetch(proto, "m.tern: tokenizer.source_spm: ");
  auto taken = prefetch.Take();
  REQUIRE(taken.has_value());
  REQUIRE_FALSE(taken->ok());
  CHECK(taken->status().code() == StatusCode::kInvalidModel);
  CHECK(taken->status().message() == direct.status().message());
  CHECK_FALSE(prefetch.Take().has_value());
  SpmPrefetch never_taken(proto, "x: ");  // destroyed without Take: its thread is joined
}
