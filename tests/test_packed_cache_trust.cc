// The packed-weights cache can never change an answer (docs/cold-start.md "Trust"): whatever happens to the
// model file, the cache directory or its entries (rewritten in place with the times put back, swapped,
// truncated, planted by another user, bytes flipped, made writable by others), a translation with the cache
// is bit for bit one without it, or the cache is skipped with a note. Each case is made here from good files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "model/model_impl.h"
#include "nn/packed_cache.h"
#include "nn/packer_key.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string_view> kTexts = {"A man in a blue shirt is standing on a ladder.", "Two dogs play.", "A girl."};

struct Dir {
  fs::path dir;
  explicit Dir(const std::string& tag) {
    dir = fs::temp_directory_path() / ("tern-cache-trust-" + std::to_string(getpid()) + "-" + tag);
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Dir() {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, ec);
    fs::remove_all(dir, ec);
  }
};

// Loads `path` with the cache in `cache` ("" for none) and translates kTexts (beam 2 x 2-best).
HypothesisOutputs Run(const fs::path& path, const fs::path& cache, std::string* note = nullptr) {
  LoadOptions o;
  o.packed_cache_dir = cache.string();
  o.packed_cache = !cache.empty();
  auto m = Model::Load(path.string(), o);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  HypothesisOutputs out = TranslateTwoBest(m.value(), kTexts);
  if (note) *note = m.value()->packed_weights_note();
  return out;
}

bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Writes `bytes` over `path` in place (O_TRUNC, the same inode, as cp does), then puts its access and
// modification times back to `st`'s (touch -r): only the status-change time tells.
void RewriteInPlace(const fs::path& path, const std::vector<uint8_t>& bytes, const struct stat& st) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  ::close(fd);
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

// A model of the same size as `path`'s with other weights: the signs of its largest 2-D tensor flipped.
std::vector<uint8_t> AnotherModelOfTheSameSize(const fs::path& path) {
  std::vector<uint8_t> b = ReadBytes(path.string());
  auto m = LoadOrFail(path.string());
  const TensorView* largest = nullptr;
  for (const TensorView& t : m->impl().tensors())
    if (t.rank == 2 && t.dtype == DType::kF32 && (!largest || t.bytes > largest->bytes)) largest = &t;
  REQUIRE(largest);
  const size_t at = static_cast<const uint8_t*>(largest->data) - m->impl().data->bytes();
  for (size_t i = 3; i < largest->bytes; i += 4) b[at + i] ^= 0x80;
  return b;
}

}  // namespace

TEST_CASE("packed cache trust: a model file rewritten in place with its times put back never gets the old entry's weights") {
  Dir d("rewritten");
  const fs::path model = d.dir / "m.tern", cache = d.dir / "cache";
  fs::copy_file(ModelPath("post-swish", "f32"), model);
  // Left alone for longer than the stamp's quiet time: the entry records a trusted stamp.
  std::this_thread::sleep_for(std::chrono::milliseconds(internal::kStampQuietSeconds * 1000 + 100));
  const HypothesisOutputs a = Run(model, "");
  std::string note;
  CHECK(Run(model, cache, &note) == a);
  const fs::path entry = cache / PackedCacheName(fs::canonical(model).string());
  REQUIRE(fs::exists(entry));
  CHECK(ReadBytes(entry.string())[120] == 1);  // flags: the stamp is trusted
  CHECK(Run(model, cache, &note) == a);
  CHECK_MESSAGE(note.rfind("mapped from " + entry.string() + " (", 0) == 0, note);
  CHECK_MESSAGE(!Has(note, "digest"), note);  // known by its stamp: no hashing

  struct stat st;
  REQUIRE(::stat(model.c_str(), &st) == 0);
  const std::vector<uint8_t> original = ReadBytes(model.string());
  // cp B A; touch -r saved A: another model of the same size, the same inode, size and mtime.
  const std::vector<uint8_t> other = AnotherModelOfTheSameSize(model);
  RewriteInPlace(model, other, st);
  const HypothesisOutputs b = Run(model, "");
  REQUIRE_FALSE(b == a);  // the weights matter
  CHECK(Run(model, cache, &note) == b);  // was a's: the stale entry's packed weights
  CHECK_MESSAGE(Has(note, "written for other contents of the model file (it changed since)"), note);
  CHECK_MESSAGE(Has(note, "; wrote " + entry.string()), note);
  CHECK(Run(model, cache, &note) == b);
  CHECK_MESSAGE(note.rfind("mapped from ", 0) == 0, note);

  // One weight's sign flipped in place, times put back again.
  std::vector<uint8_t> flipped = other;
  flipped[flipped.size() / 2 + 3] ^= 0x80;
  RewriteInPlace(model, flipped, st);
  const HypothesisOutputs c = Run(model, "");
  CHECK(Run(model, cache, &note) == c);
  CHECK_MESSAGE(Has(note, "written for other contents of the model file"), note);

  // Back to the original bytes (a restore with cp -p): the entry written for b is not a's either.
  RewriteInPlace(model, original, st);
  CHECK(Run(model, cache, &note) == a);
  CHECK_MESSAGE(note.rfind("packed at load (cache: ", 0) == 0, note);

  // Truncated in place: the model itself is refused, with or without a cache.
  std::vector<uint8_t> cut(original.begin(), original.begin() + original.size() / 2);
  RewriteInPlace(model, cut, st);
  LoadOptions o;
  o.packed_cache_dir = cache.string();
  CHECK_FALSE(Model::Load(model.string(), o).ok());
}

TEST_CASE("packed cache trust: entries swapped, truncated, flipped or made writable by others are never used") {
  Dir d("entries");
  const fs::path a = d.dir / "a.tern", b = d.dir / "b.tern", cache = d.dir / "cache";
  fs::copy_file(ModelPath("post-swish", "f32"), a);
  {
    std::ofstream f(b, std::ios::binary);
    const std::vector<uint8_t> bytes = AnotherModelOfTheSameSize(a);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const HypothesisOutputs want_a = Run(a, ""), want_b = Run(b, "");
  std::string note;
  Run(a, cache), Run(b, cache);
  const fs::path ea = cache / PackedCacheName(fs::canonical(a).string()), eb = cache / PackedCacheName(fs::canonical(b).string());
  const std::vector<uint8_t> good_a = ReadBytes(ea.string()), good_b = ReadBytes(eb.string());

  struct Case {
    std::string name, reason;
    std::function<void()> make;
  };
  auto put = [](const fs::path& p, const std::vector<uint8_t>& bytes, fs::perms perms = fs::perms::owner_read | fs::perms::owner_write) {
    fs::remove(p);
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    f.close();
    fs::permissions(p, perms);
  };
  const std::vector<Case> cases = {
      {"b's entry under a's name", "written for another CPU, XNNPACK, tern or model path", [&] { put(ea, good_b); }},
      {"truncated", "at byte 32, the file has", [&] { put(ea, std::vector<uint8_t>(good_a.begin(), good_a.end() - 4096)); }},
      {"a block's byte flipped", "the blocks digest at byte 48 does not match", [&] {
         std::vector<uint8_t> x = good_a;
         x[x.size() - 4096 - 5] ^= 0x01;
         put(ea, x);
       }},
      {"writable by its group", "writable by its group (mode 0660)",
       [&] { put(ea, good_a, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::group_write); }},
      {"writable by others", "writable by other users (mode 0606)",
       [&] { put(ea, good_a, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read | fs::perms::others_write); }},
      {"a symbolic link to a good entry", "not a regular file (a symbolic link)", [&] {
         put(d.dir / "elsewhere", good_a);
         fs::remove(ea);
         fs::create_symlink(d.dir / "elsewhere", ea);
       }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    c.make();
    CHECK(Run(a, cache, &note) == want_a);
    CHECK_MESSAGE(note.rfind("packed at load (cache: ", 0) == 0, note);
    CHECK_MESSAGE(Has(note, c.reason), note);
    if (c.name == "a symbolic link to a good entry") {
      CHECK_MESSAGE(Has(note, "not written: "), note);  // a link is not ours to replace
      CHECK(fs::is_symlink(ea));
      fs::remove(ea);
      Run(a, cache, &note);
    } else {
      CHECK_MESSAGE(Has(note, "; wrote " + ea.string()), note);
    }
    CHECK(Run(a, cache, &note) == want_a);  // rewritten: used again
    CHECK_MESSAGE(note.rfind("mapped from ", 0) == 0, note);
  }
  CHECK(Run(b, cache, &note) == want_b);
  CHECK_MESSAGE(note.rfind("mapped from " + eb.string(), 0) == 0, note);
}

TEST_CASE("packed cache trust: a directory another user can write, or owns, is neither read nor written") {
  Dir d("shared");
  const fs::path model = d.dir / "m.tern", shared = d.dir / "scratch";
  fs::copy_file(ModelPath("post-swish", "f32"), model);
  const HypothesisOutputs want = Run(model, "");
  std::string note;
  fs::create_directories(shared);
  fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);  // 1777, as /tmp
  CHECK(Run(model, shared, &note) == want);
  CHECK_MESSAGE(note == "packed at load (packed-weights cache not used: " + shared.string() + ": writable by other users (mode 1777))", note);
  CHECK(fs::is_empty(shared));  // nothing written there either
  // An entry planted there by another user is never read, whatever it holds.
  Run(model, d.dir / "mine");
  const fs::path planted = shared / PackedCacheName(fs::canonical(model).string());
  fs::copy_file(d.dir / "mine" / planted.filename(), planted);
  CHECK(Run(model, shared, &note) == want);
  CHECK_MESSAGE(Has(note, "not used: "), note);
  fs::permissions(shared, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_write | fs::perms::group_exec);
  CHECK(Run(model, shared, &note) == want);
  CHECK_MESSAGE(Has(note, "writable by its group (mode 0770)"), note);
  if (::geteuid() == 0) {  // owned by someone else (root can make that here)
    fs::permissions(shared, fs::perms::owner_all);
    REQUIRE(::chown(shared.c_str(), 65534, 65534) == 0);
    CHECK(Run(model, shared, &note) == want);
    CHECK_MESSAGE(Has(note, "owned by uid 65534, not this user (uid 0)"), note);
    REQUIRE(::chown(shared.c_str(), 0, 0) == 0);
    // An entry of another user's in a directory of ours: not read; replaced by ours.
    REQUIRE(::chown(planted.c_str(), 65534, 65534) == 0);
    CHECK(Run(model, shared, &note) == want);
    CHECK_MESSAGE(Has(note, "owned by uid 65534, not this user"), note);
    CHECK_MESSAGE(Has(note, "; wrote "), note);
    struct stat st;
    REQUIRE(::stat(planted.c_str(), &st) == 0);
    CHECK(st.st_uid == 0);
    CHECK(Run(model, shared, &note) == want);
    CHECK_MESSAGE(note.rfind("mapped from ", 0) == 0, note);
  } else {
    MESSAGE("not root: the other-owner cases need chown");
  }
}

TEST_CASE("packed cache trust: any legal model file name gets an entry (a name of 250 bytes)") {
  Dir d("long-name");
  std::string name(155, 'm');
  for (int i = 0; i < 40; ++i) name += "\xC3\xA9";  // two-byte characters across the cut at 160 bytes
  name += ".tern";
  const fs::path model = d.dir / name, cache = d.dir / "cache";
  REQUIRE(name.size() <= 255);
  fs::copy_file(ModelPath("post-swish", "f32"), model);
  const HypothesisOutputs want = Run(model, "");
  std::string note;
  CHECK(Run(model, cache, &note) == want);
  CHECK_MESSAGE(Has(note, "; wrote "), note);
  CHECK(Run(model, cache, &note) == want);
  CHECK_MESSAGE(note.rfind("mapped from ", 0) == 0, note);  // packed again at every load before
  const std::string entry = PackedCacheName(fs::canonical(model).string());
  CHECK(entry.size() <= kMaxNameStemBytes + 26);
  CHECK(entry.compare(0, 159, name, 0, 159) == 0);  // cut before the character byte 160 is inside of
  CHECK(entry[159] == '-');
}
