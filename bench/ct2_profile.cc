// CTranslate2's own per-operation profile of one batch (bench/profile_vs_ct2.py runs it beside tern's --profile).
// CTranslate2 is not part of tern and this file is not built by CMake: build CTranslate2 from its source release
// outside the repository with -DENABLE_PROFILING=ON (docs/performance.md), then
//   g++ -O2 -std=c++17 -DCT2_ENABLE_PROFILING bench/ct2_profile.cc -I CT2/include -L CT2/lib -lctranslate2 \
//       -Wl,-rpath,CT2/lib -o ct2-profile
//   ct2-profile MODEL_DIR TOKENS_FILE BEAM MAX_DECODING_LENGTH
// TOKENS_FILE: one sentence per line, SentencePiece pieces separated by spaces, </s> last (MarianTokenizer's).
// Prints "seconds S tokens N tok/s R", then CTranslate2's dump_profiling table (one thread, int8).
#include <ctranslate2/translator.h>
#include <ctranslate2/profiler.h>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: ct2-profile MODEL_DIR TOKENS_FILE BEAM MAX_DECODING_LENGTH\n";
    return 2;
  }
  const std::string model = argv[1], tokens = argv[2];
  const size_t beam = std::stoul(argv[3]), max_len = std::stoul(argv[4]);
  std::vector<std::vector<std::string>> batch;
  std::ifstream in(tokens);
  for (std::string line; std::getline(in, line);) {
    std::istringstream ss(line);
    std::vector<std::string> t;
    for (std::string w; ss >> w;) t.push_back(w);
    batch.push_back(t);
  }
  ctranslate2::models::ModelLoader loader(model);
  loader.device = ctranslate2::Device::CPU;
  loader.compute_type = ctranslate2::ComputeType::INT8;
  ctranslate2::ReplicaPoolConfig pc;
  pc.num_threads_per_replica = 1;
  pc.max_queued_batches = 0;
  ctranslate2::Translator tr(loader, pc);
  ctranslate2::TranslationOptions o;
  o.beam_size = beam;
  o.max_decoding_length = max_len;
  tr.translate_batch(batch, o);  // warm-up
  ctranslate2::init_profiling(ctranslate2::Device::CPU, 1);
  const auto t0 = std::chrono::steady_clock::now();
  auto res = tr.translate_batch(batch, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t toks = 0;
  for (auto& r : res) toks += r.hypotheses[0].size() + 1;
  std::cout << "seconds " << s << " tokens " << toks << " tok/s " << toks / s << "\n";
  ctranslate2::dump_profiling(std::cout);
}
