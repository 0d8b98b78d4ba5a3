// Files tern opens and writes (docs/reliability.md, round four): a FIFO where a file is read is refused at once
// (cache entry, model, glossary, checkpoint, op dump), and a load that writes the packed-weights cache removes
// the temporaries of writers that are gone, not a live one's.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "nn/packer_key.h"
#include "read_file.h"
#include "tern/glossary.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

namespace fs = std::filesystem;

// A scratch directory, removed with what it holds.
struct ScratchDir {
  fs::path dir;
  explicit ScratchDir(const std::string& tag) {
    dir = fs::temp_directory_path() / ("tern-files-" + std::to_string(getpid()) + "-" + tag);
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// Runs f on another thread; true when it returned within `seconds`. When it did not (it blocks in open(2) on
// the FIFO `fifo`), a writer is opened on the FIFO so that the thread returns and the test can fail cleanly.
bool ReturnsPromptly(const std::function<void()>& f, const fs::path& fifo, int seconds = 30) {
  auto done = std::async(std::launch::async, f);
  if (done.wait_for(std::chrono::seconds(seconds)) == std::future_status::ready) return true;
  const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  const int r = w < 0 ? ::open(fifo.c_str(), O_RDWR) : -1;
  done.wait();
  if (w >= 0) ::close(w);
  if (r >= 0) ::close(r);
  return false;
}

}  // namespace

TEST_CASE("a FIFO where a file is read is refused at once (cache entry, model, glossary, checkpoint, op dump)") {
  ScratchDir s("fifo");
  const fs::path model = s.dir / "m.tern";
  fs::copy_file(BundledModel(), model);
  const fs::path cache = s.dir / "cache";
  fs::create_directories(cache);
  // The cache entry's path is a FIFO: a note and a load without the cache (open(2) blocked for good).
  const fs::path entry = cache / PackedCacheName(fs::canonical(model).string());
  REQUIRE(::mkfifo(entry.c_str(), 0644) == 0);
  std::string note, text;
  CHECK(ReturnsPromptly([&] {
    LoadOptions o;
    o.packed_cache_dir = cache.string();
    auto m = Model::Load(model.string(), o);
    REQUIRE(m.ok());
    auto t = MakeTranslator(m.value());
    note = m.value()->packed_weights_note();
    std::string_view in[] = {"A dog runs on the beach."};
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, {}, &r).ok());
    text = std::string(r[0].best().text);
  }, entry));
  CAPTURE(note);
  CHECK(note.find("a FIFO") != std::string::npos);
  CHECK(note.find("packed at load") == 0);
  CHECK(text == "Ein Hund läuft am Strand.");
  struct stat st;
  REQUIRE(::lstat(entry.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));  // not replaced: it is not a cache entry of ours
  // The model itself, a glossary, a converter input: FIFOs are refused at once, named.
  const fs::path fifo = s.dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  Status load = Status::Ok(), gloss = Status::Ok(), conv = Status::Ok();
  CHECK(ReturnsPromptly([&] { load = Model::Load(fifo.string()).status(); }, fifo));
  CHECK(load.message() == fifo.string() + ": not a regular file (a FIFO)");
  auto m = LoadOrFail(BundledModel());
  CHECK(ReturnsPromptly([&] { gloss = Glossary::Load(*m, fifo.string()).status(); }, fifo));
  CHECK(gloss.code() == StatusCode::kInvalidArgument);
  CHECK(gloss.message().find("a FIFO") != std::string::npos);
  CHECK(ReturnsPromptly([&] {
    std::string bytes;
    conv = convert::ReadWholeFile(fifo.string(), 1 << 20, &bytes);
  }, fifo));
  CHECK(conv.message().find("a FIFO") != std::string::npos);
  // TERN_DUMP_OPS naming a FIFO: not dumped, the translation goes on.
  ::setenv("TERN_DUMP_OPS", fifo.c_str(), 1);
  CHECK(ReturnsPromptly([&] {
    auto t = MakeTranslator(m);
    std::string_view in[] = {"A dog."};
    Span<const TranslationResult> r;
    CHECK(t->Translate(in, {}, &r).ok());
  }, fifo));
  ::unsetenv("TERN_DUMP_OPS");
}

TEST_CASE("a load that writes the cache removes the temporaries of writers that are gone, not a live one's") {
  ScratchDir s("tmp");
  const fs::path model = s.dir / "m.tern";
  fs::copy_file(BundledModel(), model);
  const fs::path cache = s.dir / "cache";
  fs::create_directories(cache);
  const std::string entry = (cache / PackedCacheName(fs::canonical(model).string())).string();
  // Three writers killed mid-write (SIGKILL at fsync): their temporaries, the size of a packed model, unlocked.
  std::vector<fs::path> dead;
  for (int k = 0; k < 3; ++k) {
    dead.push_back(entry + ".tmp-" + std::to_string(90000 + k) + "-0");
    std::ofstream(dead.back()) << std::string(1 << 16, 'x');
    fs::last_write_time(dead.back(), fs::file_time_type::clock::now() - std::chrono::minutes(5));
  }
  // A live writer (another entry's): it holds its lock.
  const fs::path live = cache / "other.tern-0000.ternpack.tmp-1-0";
  std::ofstream(live) << "x";
  fs::last_write_time(live, fs::file_time_type::clock::now() - std::chrono::minutes(5));
  const int live_fd = ::open(live.c_str(), O_RDONLY);
  REQUIRE(::flock(live_fd, LOCK_EX) == 0);
  LoadOptions o;
  o.packed_cache_dir = cache.string();
  auto m = Model::Load(model.string(), o);
  REQUIRE(m.ok());
  MakeTranslator(m.value());  // packs and writes the entry
  CHECK(m.value()->packed_weights_note().find("wrote") != std::string::npos);
  for (const fs::path& p : dead) CHECK_FALSE(fs::exists(p));
  CHECK(fs::exists(live));
  CHECK(fs::exists(entry));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(cache)) files += e.path().string().find(".tmp-") == std::string::npos;
  CHECK(files == 1);  // the entry; no temporary of its own left behind
  ::close(live_fd);
}

