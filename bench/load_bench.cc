// load-bench: a warm load as an application sees it, timed from inside one fresh process: Model::Load then
// Translator::Create (issue 60's goal: <= 10 ms at the OPUS-MT base shape with the real tokenizers and the
// packed-weights cache). Prints the CPU and the two times as one JSON line; run it several times, alternating
// with what it is compared to (each run is a cold process: its allocator, page tables and threads are new):
//
//   build/bench/load-bench -m M.int8.tern --packed-cache DIR     # the first run writes the cache entry
//
// "model_load_ms" covers mapping and checking the file (and, on two or more processors with a packed-weights
// cache, starting the source tokenizer on a thread of its own); "translator_ms" the weights from the cache,
// the network and the tokenizer (waiting for that thread).
#include <chrono>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tern/cpu.h"
#include "tern/model.h"
#include "tern/translator.h"

int main(int argc, char** argv) {
  CLI::App app{"load-bench: Model::Load + Translator::Create, timed in one fresh process"};
  std::string model_path, cache;
  uint32_t threads = 1;
  app.add_option("-m,--model", model_path, ".tern model")->required();
  app.add_option("--packed-cache", cache, "packed-weights cache directory (LoadOptions::packed_cache_dir)");
  app.add_option("--threads", threads, "TranslatorConfig::threads");
  CLI11_PARSE(app, argc, argv);
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  tern::LoadOptions lo;
  lo.packed_cache_dir = cache;
  const auto t0 = Clock::now();
  auto model = tern::Model::Load(model_path, lo);
  if (!model.ok()) return std::fprintf(stderr, "load-bench: %s\n", model.status().message().c_str()), 2;
  const auto t1 = Clock::now();
  tern::TranslatorConfig cfg;
  cfg.threads = threads;
  auto tr = tern::Translator::Create(model.value(), cfg);
  if (!tr.ok()) return std::fprintf(stderr, "load-bench: %s\n", tr.status().message().c_str()), 2;
  const auto t2 = Clock::now();
  std::printf("{\"cpu\": \"%s\", \"load_ms\": %.3f, \"model_load_ms\": %.3f, \"translator_ms\": %.3f}\n",
              tern::CpuSummary().c_str(), ms(t0, t2), ms(t0, t1), ms(t1, t2));
  return 0;
}
