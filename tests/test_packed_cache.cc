// The packed-weights cache (LoadOptions::packed_cache_dir, nn/packed_cache.h): weights mapped from the cache
// give the outputs of packing at load bit for bit (ids and scores, every weight format, beam 2); a cache file
// for another CPU, XNNPACK or model file, or one that fails any check, is not used: the load packs, says
// why, rewrites it and translates the same. The bad files are made here from a good one.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <optional>
#include <fstream>
#include <string>
#include <vector>

#include "nn/packed_cache.h"
#include "nn/packer_key.h"
#include "model/model_data.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string_view> kTexts = {"A man in a blue shirt is standing on a ladder.",
                                              "Two young children are playing in the sand.", "A girl."};

using Out = HypothesisOutputs;

// A scratch directory with a copy of `model` (the cache key names the file: tests must not share one).
struct Scratch {
  fs::path dir, model, cache;
  Scratch(const std::string& source, const std::string& tag) {
    dir = fs::temp_directory_path() / ("tern-packed-cache-" + std::to_string(getpid()) + "-" + tag);
    fs::remove_all(dir);
    fs::create_directories(dir);
    model = dir / fs::path(source).filename();
    fs::copy_file(source, model);
    cache = dir / "cache";
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // The one .ternpack file in the cache directory.
  fs::path CacheFile() const {
    for (const auto& e : fs::directory_iterator(cache))
      if (e.path().extension() == ".ternpack") return e.path();
    FAIL("no cache file in " << cache);
    return {};
  }
};

// Loads `path` (with the cache in `cache_dir`, "" for none), translates kTexts with beam 2 x 2-best.
Out Run(const fs::path& path, const std::string& cache_dir, std::string* note = nullptr) {
  LoadOptions o;
  o.packed_cache_dir = cache_dir;
  auto m = Model::Load(path.string(), o);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  Out out = TranslateTwoBest(m.value(), kTexts);  // makes the first Translator: the note is set
  if (note) *note = m.value()->packed_weights_note();
  return out;
}

bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

uint64_t Get64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + at, 8);  // the test hosts are little-endian, like the format
  return v;
}
void Put64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
void Put32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

// Recomputes the blocks digest and then the checksum of a cache file image (the header holds the digest);
// an image whose sizes do not fit keeps its seals (the reader refuses it before them).
void Reseal(std::vector<uint8_t>& b) {
  uint64_t checksum;
  Digest128 blocks;
  if (!PackedCacheSeals(b, &checksum, &blocks)) return;
  Put64(b, 48, blocks.low), Put64(b, 56, blocks.high);
  REQUIRE(PackedCacheSeals(b, &checksum, &blocks));
  Put64(b, 40, checksum);
}

// Recomputes the checksum alone (a forged digest stays).
void Reseal2(std::vector<uint8_t>& b) {
  uint64_t checksum;
  Digest128 blocks;
  REQUIRE(PackedCacheSeals(b, &checksum, &blocks));
  Put64(b, 40, checksum);
}

// Whether a rewritten entry holds what `good` held. The stamp's trust bit (flags, byte 120) and the checksum
// over it may differ: the model file is new when the test starts, and a rewrite once it has been left alone
// for internal::kStampQuietSeconds records a trusted stamp where the first write could not (slow CPUs and
// qemu reach that point within the test).
bool SameEntry(std::vector<uint8_t> a, std::vector<uint8_t> good) {
  if (a.size() != good.size() || a.size() < 128) return false;
  for (auto* b : {&a, &good}) Put64(*b, 40, 0), Put32(*b, 120, 0);
  return a == good;
}

// Opens cache entry `file` for the model file `model` as a load would (with the key "any key").
Result<std::unique_ptr<PackedCacheFile>> OpenEntry(const fs::path& file, const fs::path& model) {
  auto dir = CacheDirectory::Open(file.parent_path().string(), false);
  REQUIRE_MESSAGE(dir.ok(), dir.status().message());
  auto data = internal::ModelData::ReadFile(model.string());
  REQUIRE(data.ok());
  return PackedCacheFile::Open(dir.value(), file.filename().string(), "any key", ModelContent(*data.value()));
}

void WriteBytes(const fs::path& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  REQUIRE(f.good());
}

}  // namespace

TEST_CASE("packed cache: mapped weights translate bit for bit as packing at load in every weight format") {
  for (const std::string variant : {"post-swish", "pre-relu"})
    for (const std::string weights : {"f32", "f16", "int8", "qc4w", "int4", "mixed"}) {
      CAPTURE(variant);
      CAPTURE(weights);
      Scratch s(ModelPath(variant, weights), variant + "-" + weights);
      const Out reference = Run(s.model, "");
      std::string note;
      CHECK(Run(s.model, s.cache.string(), &note) == reference);  // packs, writes the cache
      CHECK_MESSAGE(StartsWith(note, "packed at load (cache: none yet); wrote "), note);
      CHECK(Run(s.model, s.cache.string(), &note) == reference);  // maps it
      CHECK_MESSAGE(StartsWith(note, "mapped from " + s.CacheFile().string()), note);
      CHECK_MESSAGE(note.find("no packing") != std::string::npos, note);
    }
}

TEST_CASE("packed cache: a model with a shortlist and the cache directory from TERN_PACKED_CACHE_DIR") {
  Scratch s(ModelPath("pre-relu", "int8-shortlist"), "env");
  const Out reference = Run(s.model, "");
  REQUIRE(setenv("TERN_PACKED_CACHE_DIR", s.cache.c_str(), 1) == 0);
  std::string note;
  CHECK(Run(s.model, "", &note) == reference);
  CHECK_MESSAGE(note.find("wrote " + s.cache.string()) != std::string::npos, note);
  CHECK(Run(s.model, "", &note) == reference);
  CHECK_MESSAGE(StartsWith(note, "mapped from "), note);
  unsetenv("TERN_PACKED_CACHE_DIR");
  CHECK(Run(s.model, "", &note) == reference);
  CHECK(note == "packed at load (no packed-weights cache directory)");
}

TEST_CASE("packed cache: a bad or foreign cache file is refused, the load packs and rewrites it") {
  Scratch s(ModelPath("post-swish", "f32"), "hostile");
  const Out reference = Run(s.model, "");
  std::string note;
  Run(s.model, s.cache.string(), &note);
  const fs::path file = s.CacheFile();
  const std::vector<uint8_t> good = ReadBytes(file.string());
  const uint64_t index_at = Get64(good, 24);
  uint32_t n;
  std::memcpy(&n, good.data() + 12, 4);
  REQUIRE(n > 0);
  const size_t last = index_at + (n - 1) * size_t{48};  // the output projection's entry

  struct Case {
    std::string name, reason;
    std::function<void(std::vector<uint8_t>&)> edit;
  };
  const std::vector<Case> cases = {
      {"truncated", "file_bytes " + std::to_string(good.size()) + " at byte 32, the file has",
       [](std::vector<uint8_t>& b) { b.resize(b.size() - 100); }},
      {"identifier", "no TERNPACK identifier at byte 0", [](std::vector<uint8_t>& b) { b[0] = 'X'; }},
      {"version", "version 9 at byte 8", [](std::vector<uint8_t>& b) { Put32(b, 8, 9), Reseal(b); }},
      {"checksum", "checksum at byte 40 does not match", [](std::vector<uint8_t>& b) { b[130] ^= 1; }},
      {"a block's bytes", "the blocks digest at byte 48 does not match the blocks",
       [&](std::vector<uint8_t>& b) { b[Get64(b, last) + 7] ^= 0x10; }},
      {"the blocks digest", "the blocks digest at byte 48 does not match", [](std::vector<uint8_t>& b) { b[49] ^= 1, Reseal2(b); }},
      {"the model's digest", "written for other contents of the model file",
       [](std::vector<uint8_t>& b) { b[64] ^= 1, Put32(b, 120, 0), Reseal2(b); }},
      {"another CPU", "written for another CPU, XNNPACK, tern or model path",
       [](std::vector<uint8_t>& b) {
         const std::string key(reinterpret_cast<const char*>(b.data() + 128), Get64(b, 16));
         const size_t at = key.find("\nisa ");
         REQUIRE(at != std::string::npos);
         b[128 + at + 5] ^= 0x20;  // "avx2" -> "AVX2": a key no CPU of this build has
         Reseal(b);
       }},
      {"index outside", "entries is not right after the key or is outside the file", [](std::vector<uint8_t>& b) { Put64(b, 24, b.size() - 8), Reseal(b); }},
      {"index past the key", "entries is not right after the key", [](std::vector<uint8_t>& b) { Put64(b, 24, Get64(b, 24) + 64), Reseal(b); }},
      {"too many blocks for the file", "entries is not right after the key or is outside the file",
       [](std::vector<uint8_t>& b) { Put32(b, 12, 65536), Reseal(b); }},
      {"block outside", "is outside the file or unaligned",
       [&](std::vector<uint8_t>& b) { Put64(b, last, uint64_t{1} << 40), Reseal(b); }},
      {"block unaligned", "is outside the file or unaligned", [&](std::vector<uint8_t>& b) { Put64(b, last, Get64(b, last) + 1), Reseal(b); }},
      {"size under the layer's", "(XNNPACK packs", [&](std::vector<uint8_t>& b) { Put64(b, last + 8, 64), Reseal(b); }},
      {"shape", "shape [0,", [&](std::vector<uint8_t>& b) { Put64(b, last + 24, 0), Reseal(b); }},
      {"dtype", ": dtype 77", [&](std::vector<uint8_t>& b) { Put32(b, last + 20, 77), Reseal(b); }},
      {"XNNPACK's seed", "1 of " + std::to_string(n) + " blocks were not in it or not accepted by XNNPACK",
       [&](std::vector<uint8_t>& b) { Put32(b, last + 16, Get64(b, last + 16) ^ 0x5a5a), Reseal(b); }},
      {"a layer's shape differs", "1 of " + std::to_string(n) + " blocks were not in it",
       [&](std::vector<uint8_t>& b) {  // the first entry claims one output row less: not this model's layer
         Put64(b, index_at + 24, Get64(b, index_at + 24) - 1), Reseal(b);
       }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    std::vector<uint8_t> bad = good;
    c.edit(bad);
    WriteBytes(file, bad);
    if (c.name != "XNNPACK's seed" && c.name != "a layer's shape differs") {
      auto open = OpenEntry(file, s.model);
      CHECK(!open.ok());
    }
    CHECK(Run(s.model, s.cache.string(), &note) == reference);
    CHECK_MESSAGE(StartsWith(note, "packed at load (cache: "), note);
    CHECK_MESSAGE(note.find(c.reason) != std::string::npos, note);
    CHECK_MESSAGE(note.find("; wrote " + file.string()) != std::string::npos, note);
    CHECK(SameEntry(ReadBytes(file.string()), good));  // rewritten as it was
    CHECK(Run(s.model, s.cache.string(), &note) == reference);
    CHECK_MESSAGE(StartsWith(note, "mapped from "), note);
  }
}

TEST_CASE("packed cache: a block whose size is understated reads zero pages past the file, never past the mapping") {
  Scratch s(ModelPath("pre-relu", "f32"), "understated");
  std::string note;
  Run(s.model, s.cache.string(), &note);
  const fs::path file = s.CacheFile();
  std::vector<uint8_t> b = ReadBytes(file.string());
  const uint64_t index_at = Get64(b, 24);
  uint32_t n;
  std::memcpy(&n, b.data() + 12, 4);
  const size_t last = index_at + (n - 1) * size_t{48};
  const uint64_t out = Get64(b, last + 24), in = Get64(b, last + 32);
  const uint64_t least = PackedBytesLowerBound(DType::kF32, out, in);
  REQUIRE(least < Get64(b, last + 8));
  Put64(b, last + 8, least);  // the last block ends early and the file with it
  b.resize(Get64(b, last) + least);
  Put64(b, 32, b.size());
  Reseal(b);
  WriteBytes(file, b);
  auto open = OpenEntry(file, s.model);
  CHECK(open.status().code() == StatusCode::kUnsupported);  // sound apart from the key
  LoadOptions o;
  o.packed_cache_dir = s.cache.string();
  auto m = Model::Load(s.model.string(), o);
  REQUIRE(m.ok());
  auto t = MakeTranslator(m.value());
  CHECK_MESSAGE(StartsWith(m.value()->packed_weights_note(), "mapped from "), m.value()->packed_weights_note());
  Span<const TranslationResult> rs;
  CHECK(t->Translate(Span<const std::string_view>(kTexts.data(), 1), {}, &rs).ok());  // wrong numbers, no fault
}

TEST_CASE("packed cache: a model file replaced by rename with the same bytes keeps its entry, and an unwritable directory only loses the cache") {
  Scratch s(ModelPath("post-swish", "f32"), "replaced");
  const Out reference = Run(s.model, "");
  std::string note;
  Run(s.model, s.cache.string(), &note);
  const fs::path tmp = s.dir / "new.tern";
  fs::copy_file(s.model, tmp);
  fs::rename(tmp, s.model);  // same bytes, new inode: the stamp differs, the digest does not
  CHECK(Run(s.model, s.cache.string(), &note) == reference);
  CHECK_MESSAGE(StartsWith(note, "mapped from "), note);
  CHECK_MESSAGE(note.find("checked by its digest") != std::string::npos, note);

  const fs::path blocker = s.dir / "a-file";
  WriteBytes(blocker, {1, 2, 3});
  CHECK(Run(s.model, (blocker / "cache").string(), &note) == reference);
  CHECK_MESSAGE(note.find("packed at load (packed-weights cache not used: " + (blocker / "cache").string() + ": cannot open") == 0, note);
  CHECK(ReadBytes(blocker.string()) == std::vector<uint8_t>{1, 2, 3});

  const auto bytes = ReadBytes(s.model.string());
  auto m = Model::FromBytes(bytes.data(), bytes.size(), "in memory", [&] {
    LoadOptions o;
    o.packed_cache_dir = s.cache.string();
    return o;
  }());
  REQUIRE(m.ok());
  auto t = MakeTranslator(m.value());
  CHECK(m.value()->packed_weights_note() == "packed at load (a model from memory is not cached)");
}

TEST_CASE("packed cache: the key holds the packer's identity for the model's weight formats only") {
  const uint32_t int8 = FormatBit(DType::kInt8) | FormatBit(DType::kF32);
  const uint32_t mixed = int8 | FormatBit(DType::kQb4w);
  const std::string a = PackerIdentity(int8), b = PackerIdentity(mixed);
  CHECK(a == PackerIdentity(int8));  // computed once, the same every time
  CHECK(a.find(" int8:") != std::string::npos);
  CHECK(a.find(" f32:") != std::string::npos);
  CHECK(a.find("qb4w") == std::string::npos);  // no 4-bit probe or fingerprint for an int8 model
  CHECK(a.find("qc4w") == std::string::npos);
  CHECK(b.find(" qb4w:") != std::string::npos);
  CHECK(b.find("xnnpack-") != std::string::npos);  // whether XNNPACK's 4-bit operator is right here
  CHECK(b.rfind(a.substr(0, a.find("\nformats")), 0) == 0);  // the same header
  CHECK(PackedCacheKey("/m.tern", int8) != PackedCacheKey("/m.tern", mixed));
  CHECK(PackedCacheKey("", int8).empty());  // a model from memory has no key
}

TEST_CASE("packed cache: the per-user default, its opt-outs, and the least recently used entries removed past the bound") {
  // DefaultPackedCacheDir: TERN_PACKED_CACHE=off wins, then TERN_PACKED_CACHE_DIR, XDG_CACHE_HOME, HOME.
  struct Env {
    std::string name;
    std::optional<std::string> old;
    Env(const char* n, const char* v) : name(n) {
      if (const char* o = std::getenv(n)) old = o;
      v ? setenv(n, v, 1) : unsetenv(n);
    }
    ~Env() { old ? setenv(name.c_str(), old->c_str(), 1) : unsetenv(name.c_str()); }
  };
  {
    Env a("TERN_PACKED_CACHE", nullptr), b("TERN_PACKED_CACHE_DIR", nullptr), c("XDG_CACHE_HOME", "/x/cache"),
        d("HOME", "/home/u");
    CHECK(DefaultPackedCacheDir() == "/x/cache/tern/packed");
    Env e("XDG_CACHE_HOME", "relative/not/allowed");  // the XDG rule: a relative path is ignored
    CHECK(DefaultPackedCacheDir() == "/home/u/.cache/tern/packed");
    Env f("TERN_PACKED_CACHE_DIR", "/elsewhere");
    CHECK(DefaultPackedCacheDir() == "/elsewhere");
    for (const char* off : {"off", "0", "no", "false"}) {
      Env g("TERN_PACKED_CACHE", off);
      CHECK(DefaultPackedCacheDir().empty());
    }
  }
  // LoadOptions::packed_cache = false: no cache even with TERN_PACKED_CACHE_DIR set.
  Scratch s(ModelPath("post-swish", "f32"), "lru");
  {
    Env dir("TERN_PACKED_CACHE_DIR", s.cache.string().c_str());
    LoadOptions o;
    o.packed_cache = false;
    auto m = Model::Load(s.model.string(), o);
    REQUIRE(m.ok());
    MakeTranslator(m.value());
    CHECK(m.value()->packed_weights_note() == "packed at load (no packed-weights cache directory)");
    CHECK_FALSE(fs::exists(s.cache));
  }
  // Three model files (three entries) under a bound that holds two: the least recently used goes.
  std::vector<fs::path> models = {s.model};
  for (const char* name : {"b.tern", "c.tern"}) {
    models.push_back(s.dir / name);
    fs::copy_file(s.model, models.back());
  }
  auto load = [&](const fs::path& p, uint64_t bound) {
    LoadOptions o;
    o.packed_cache_dir = (s.cache / "deep" / "er").string();  // missing parents are made
    o.packed_cache_max_bytes = bound;
    auto m = Model::Load(p.string(), o);
    REQUIRE(m.ok());
    MakeTranslator(m.value());
    return m.value()->packed_weights_note();
  };
  auto entries = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(s.cache / "deep" / "er"))
      names.push_back(e.path().filename().string().substr(0, 6));
    std::sort(names.begin(), names.end());
    return names;
  };
  load(models[0], 0);
  struct stat st;
  REQUIRE(stat(fs::directory_iterator(s.cache / "deep" / "er")->path().c_str(), &st) == 0);
  const uint64_t entry_bytes = static_cast<uint64_t>(st.st_blocks) * 512;  // what the bound counts
  REQUIRE(entry_bytes > 0);
  const uint64_t bound = entry_bytes * 2 + entry_bytes / 2;  // two entries, not three
  usleep(20000);
  load(models[1], bound);
  CHECK(entries() == std::vector<std::string>{"b.tern", "post-s"});
  usleep(20000);
  CHECK(StartsWith(load(models[0], bound), "mapped from "));  // used again: now the most recent
  usleep(20000);
  CHECK(StartsWith(load(models[2], bound), "packed at load (cache: none yet); wrote "));
  CHECK(entries() == std::vector<std::string>{"c.tern", "post-s"});  // b.tern's was the least recently used
  // A bound below one entry keeps the one just written.
  usleep(20000);
  load(models[1], 1);
  CHECK(entries() == std::vector<std::string>{"b.tern"});
}

TEST_CASE("packed cache: the row sums of tern's own int8 layers and of the shortlist's projection are kept, and checked") {
  // A layer tern's own GEMM runs (CPUs without int8 dot products) and the gathered output projection of a
  // shortlisted model need one int32 sum per weight row, which a load computed by reading every weight; the
  // cache keeps them (block_size kRowSumsBlock, exactly out x 4 bytes).
  Scratch s(ModelPath("pre-relu", "int8-shortlist"), "row-sums");
  const Out reference = Run(s.model, "");
  std::string note;
  CHECK(Run(s.model, s.cache.string(), &note) == reference);
  CHECK(Run(s.model, s.cache.string(), &note) == reference);
  CHECK_MESSAGE(StartsWith(note, "mapped from "), note);
  const fs::path file = s.CacheFile();
  const std::vector<uint8_t> good = ReadBytes(file.string());
  const uint64_t index_at = Get64(good, 24);
  uint32_t n;
  std::memcpy(&n, good.data() + 12, 4);
  std::vector<size_t> sums;  // index entries of row sums
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t block_size;
    std::memcpy(&block_size, good.data() + index_at + i * size_t{48} + 40, 4);
    if (block_size == kRowSumsBlock) sums.push_back(index_at + i * size_t{48});
  }
  REQUIRE_MESSAGE(!sums.empty(), "the shortlist's projection keeps its row sums on every CPU");
  MESSAGE(sums.size() << " of " << n << " blocks are row sums on this CPU");
  const size_t e = sums.back();
  CHECK(Get64(good, e + 8) == Get64(good, e + 24) * 4);  // size = out x 4
  struct Case {
    std::string name, reason;
    std::function<void(std::vector<uint8_t>&)> edit;
  };
  const std::vector<Case> cases = {
      {"size", "bytes for [", [&](std::vector<uint8_t>& b) { Put64(b, e + 8, Get64(b, e + 8) + 4), Reseal(b); }},
      {"dtype", "row sums of a f32 layer", [&](std::vector<uint8_t>& b) { Put32(b, e + 20, 0), Reseal(b); }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    std::vector<uint8_t> bad = good;
    c.edit(bad);
    WriteBytes(file, bad);
    CHECK(Run(s.model, s.cache.string(), &note) == reference);
    CHECK_MESSAGE(note.find(c.reason) != std::string::npos, note);
    CHECK(SameEntry(ReadBytes(file.string()), good));  // rewritten as it was
  }
}
