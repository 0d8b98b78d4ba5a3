// Hostile input, round four (docs/reliability.md "Round four"): each reproduction of the issue as a test that
// failed before its fix, and the general rules it came with. The engine's callback cases are in
// test_engine_callbacks.cc (ThreadSanitizer runs them), the C API's in test_c_api.c and test_c_engine.c, the
// Python and CTranslate2-shim cases in tests/python_package/test_round4.py.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <string>
#include <vector>

#include "nn/packer_key.h"
#include "read_file.h"
#include "tern/glossary.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("round 4, #3: an empty or blank source is scored from its </s> (not 0 for nothing), and keeps a target prefix") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  const uint32_t eos = m->hparams().eos_id;
  const std::vector<uint32_t> target = {m->target_vocab().size() > 100 ? 100u : 5u, 7u};
  // The reference: the same target scored against the source ids [</s>] (what MarianTokenizer makes of "").
  const uint32_t eos_only[] = {eos};
  Span<const uint32_t> src_ids[] = {Span<const uint32_t>(eos_only, 1)};
  Span<const uint32_t> tgt_ids[] = {Span<const uint32_t>(target.data(), target.size())};
  Span<const TranslationResult> r;
  REQUIRE(t->ScoreIds(src_ids, tgt_ids, {}, &r).ok());
  REQUIRE(r[0].ok());
  const float want = r[0].best().score;
  CHECK(want < -1.f);
  // As text: the target's pieces.
  std::string_view targets[] = {"Ein Hund läuft.", "Ein Hund läuft.", "Ein Hund läuft.", ""};
  std::string_view sources[] = {"", " \t", "A dog runs.", ""};
  REQUIRE(t->Score(sources, targets, {}, &r).ok());
  for (size_t i : {0, 1}) {
    CAPTURE(i);
    REQUIRE(r[i].ok());
    CHECK(r[i].best().score < -1.f);                      // was exactly 0 (probability 1) with no tokens
    CHECK(r[i].best().token_logprobs.size() == r[2].best().token_logprobs.size());  // every token and </s>
    CHECK(r[i].best().score == r[0].best().score);
    CHECK(ToVector(r[i].source_ids) == std::vector<uint32_t>{eos});
  }
  CHECK(r[0].best().score < r[2].best().score);  // the source helps
  REQUIRE(r[3].ok());
  CHECK(r[3].best().token_logprobs.size() == 1);  // an empty target: its </s> alone, scored
  CHECK(r[3].best().score < 0.f);
  // A target prefix on an empty source stays (it was dropped with the source).
  TranslateOptions o;
  std::string_view prefix[] = {"Eine Frau", ""};
  o.target_prefix = prefix;
  std::string_view in[] = {"", ""};
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(std::string(r[0].best().text).rfind("Eine Frau", 0) == 0);
  CHECK(r[1].best().text.empty());  // no prefix, nothing to translate: still the empty translation
  CHECK(r[1].best().score == 0.f);
}

TEST_CASE("round 4, general rule: a callback may destroy its own Translator, the session going when the call returns") {
  auto m = LoadOrFail(BundledModel());
  struct Ctx {
    std::unique_ptr<Translator> t;
    int events = 0;
  } ctx;
  ctx.t = MakeTranslator(m);
  Translator* raw = ctx.t.get();
  TranslateOptions o;
  o.beam_size = 1;
  o.on_token = [](const TokenEvent&, void* u) {
    auto* c = static_cast<Ctx*>(u);
    ++c->events;
    c->t.reset();  // the Translator goes; its session stays until this call returns
    return true;
  };
  o.on_token_user_data = &ctx;
  std::string_view in[] = {"A dog runs on the beach."};
  Span<const TranslationResult> r;
  const Status s = raw->Translate(in, o, &r);
  CHECK(s.ok());
  CHECK(ctx.events > 1);  // the call went on to the end
  CHECK(ctx.t == nullptr);
}

namespace {

namespace fs = std::filesystem;

// A scratch directory, removed with what it holds.
struct ScratchDir {
  fs::path dir;
  explicit ScratchDir(const std::string& tag) {
    dir = fs::temp_directory_path() / ("tern-round4-" + std::to_string(getpid()) + "-" + tag);
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

TEST_CASE("round 4, #5 and general rule: a FIFO where a file is read is refused at once (cache entry, model, glossary, checkpoint, op dump)") {
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

TEST_CASE("round 4, #6: a load that writes the cache removes the temporaries of writers that are gone, not a live one's") {
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

TEST_CASE("round 4, #4: a run of characters the model lacks is one unknown piece, and the abort check comes before tokenizing") {
  // SentencePiece's encoder was quadratic in such a run (1 MB of '{': 24 s); tern's unigram encoder
  // (text/spm_encoder.h) is linear: test_spm_encoder.cc compares the times and the pieces. Here the API's side.
  auto m = LoadOrFail(BundledModel());
  TranslatorConfig c;
  c.max_source_tokens = 16;
  auto t = MakeTranslator(m, c);
  const std::string unknown(1000000, '{'), plain(1000000, 'a');
  std::string_view in[] = {unknown, plain};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, {}, &r).ok());
  CHECK_MESSAGE(r[0].ok(), r[0].error_message);  // a few ids: translated
  REQUIRE_FALSE(r[1].ok());                      // a million ids: too long, alone
  CHECK(r[1].error == StatusCode::kResourceExhausted);
  // The abort callback is asked before each input is tokenized: a call aborted at once tokenizes nothing
  // (the too-long text would otherwise fail as too long, after a pass over its megabyte).
  int asked = 0;
  TranslateOptions o;
  o.abort = [](void* data) { return ++*static_cast<int*>(data) >= 1; };
  o.abort_user_data = &asked;
  const Status st = t->Translate(in, o, &r);
  CHECK(st.code() == StatusCode::kCancelled);
  CHECK(asked == 1);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(r[i].error == StatusCode::kCancelled);
    CHECK(std::string(r[i].error_message) == "cancelled by the caller");
  }
  // Aborted after the first input: both fail as cancelled, neither was translated.
  asked = 0;
  o.abort = [](void* data) { return ++*static_cast<int*>(data) >= 2; };
  CHECK(t->Translate(in, o, &r).code() == StatusCode::kCancelled);
  CHECK(r[0].error == StatusCode::kCancelled);
  CHECK(r[1].error == StatusCode::kCancelled);
  // The next call on the same Translator works.
  std::string_view one[] = {"A dog runs."};
  REQUIRE(t->Translate(one, {}, &r).ok());
  CHECK(r[0].ok());
}
