// tern-memory: what one process holds after loading a model and translating one sentence, from
// /proc/self/smaps (Linux), as one JSON object: private bytes (clean + dirty), of them the resident part of
// the Translator's arena (its mapping) and the rest, RSS and PSS, the arena's planned size, where the packed
// weights came from. Run one with --hold (it waits for a line on stdin) and a second one beside it to see
// what a second process on the same model adds (the packed-weights cache's pages are then shared):
//   tern-memory -m MODEL --packed-cache DIR --hold &   tern-memory -m MODEL --packed-cache DIR
// docs/cold-start.md has the figures.
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tern/translator.h"

namespace {

struct Region {
  unsigned long begin = 0, end = 0;
  double private_kib = 0, rss_kib = 0, pss_kib = 0;
};

// Sums /proc/self/smaps: everything, and the mapping that holds `inside`.
void ReadSmaps(const void* inside, Region* all, Region* holding) {
  std::ifstream f("/proc/self/smaps");
  Region cur;
  bool have = false;
  auto flush = [&] {
    if (!have) return;
    all->private_kib += cur.private_kib, all->rss_kib += cur.rss_kib, all->pss_kib += cur.pss_kib;
    const auto at = reinterpret_cast<unsigned long>(inside);
    if (at >= cur.begin && at < cur.end) *holding = cur;
  };
  for (std::string line; std::getline(f, line);) {
    unsigned long b, e;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &b, &e) == 2 && line.find(':') > line.find(' ')) {
      flush();
      cur = Region{b, e};
      have = true;
      continue;
    }
    std::istringstream in(line);
    std::string key;
    double kib = 0;
    in >> key >> kib;
    if (key == "Private_Clean:" || key == "Private_Dirty:") cur.private_kib += kib;
    if (key == "Rss:") cur.rss_kib = kib;
    if (key == "Pss:") cur.pss_kib = kib;
  }
  flush();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tern-memory"};
  std::string model_path, cache, sentence = "A man in a blue shirt is standing on a ladder.";
  bool hold = false;
  uint32_t max_length = 64;
  app.add_option("-m,--model", model_path)->required();
  app.add_option("--packed-cache", cache, "packed-weights cache directory (LoadOptions::packed_cache_dir)");
  app.add_option("--sentence", sentence);
  app.add_option("--max-length", max_length, "tokens generated at most, </s> included (64: as bench/cold_start.py)");
  app.add_flag("--hold", hold, "after printing, wait for a line on stdin (a first process for a second one)");
  CLI11_PARSE(app, argc, argv);
  tern::LoadOptions lo;
  lo.packed_cache_dir = cache;
  auto model = tern::Model::Load(model_path, lo);
  if (!model.ok()) return std::cerr << "tern-memory: " << model.status().message() << "\n", 1;
  tern::TranslatorConfig cfg;
  cfg.threads = 1;
  // The arena in a mapping of its own (what a Translator allocates for itself is one too, from malloc), so
  // that smaps tells its resident pages apart.
  auto need = tern::Translator::RequiredArenaBytes(*model.value(), cfg);
  if (!need.ok()) return std::cerr << "tern-memory: " << need.status().message() << "\n", 1;
  // Between two inaccessible pages: the kernel merges neighbouring anonymous mappings of the same protection.
  const size_t page = 4096, span = (need.value() + page - 1) / page * page;
  auto* guard = static_cast<uint8_t*>(mmap(nullptr, span + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (guard == MAP_FAILED || mprotect(guard + page, span, PROT_READ | PROT_WRITE) != 0)
    return std::cerr << "tern-memory: no memory for the arena\n", 1;
  void* arena = guard + page;
  cfg.arena = arena;
  cfg.arena_bytes = need.value();
  auto tr = tern::Translator::Create(model.value(), cfg);
  if (!tr.ok()) return std::cerr << "tern-memory: " << tr.status().message() << "\n", 1;
  std::string_view text = sentence;
  tern::Span<const tern::TranslationResult> results;
  tern::TranslateOptions options;
  options.max_length = max_length;
  const tern::Status st = tr.value()->Translate(tern::Span<const std::string_view>(&text, 1), options, &results);
  if (!st.ok()) return std::cerr << "tern-memory: " << st.message() << "\n", 1;
  Region all, arena_region;
  ReadSmaps(arena, &all, &arena_region);
  const double mib = 1024.0;
  nlohmann::json j = {{"private_mib", all.private_kib / mib}, {"arena_resident_mib", arena_region.private_kib / mib},
                      {"private_besides_arena_mib", (all.private_kib - arena_region.private_kib) / mib},
                      {"rss_mib", all.rss_kib / mib}, {"pss_mib", all.pss_kib / mib},
                      {"arena_mib", need.value() / 1048576.0},
                      {"packed_weights", model.value()->packed_weights_note()}, {"text", results[0].best().text.substr(0, 60)}};
  std::cout << j.dump() << std::endl;
  if (hold) {
    std::string line;
    std::getline(std::cin, line);
  }
}
