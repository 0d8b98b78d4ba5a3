// tern-bench: translates a file with one configuration and prints the figures as one JSON object:
// load time (mmap + verify, and Translator creation with XNNPACK weight packing; the first translation
// excluded), sentences/s, target tokens/s (generated tokens including </s>), latency per sentence p50 /
// p95 (a sentence's latency is that of the batch it was translated in), peak RSS, arena and file bytes,
// CPU. Translations go to --output for BLEU. --translators N creates N Translators on the one Model and
// runs each in its own thread over the whole input (the shared-model case: packed weights exist once);
// the figures are then totals over all of them, and peak RSS shows what N sessions cost. Also: weight
// bytes the decoder read per generated token and the mean logits columns per step (the shortlist size).
// --continuous: one continuous call per Translator over the input (Translator::TranslateContinuous: --batch
// slots, each refilled as its sentence ends); a sentence's latency is then from the call's start to its result.
//   tern-bench -m MODEL --input FILE --output FILE [--beam 1] [--batch 1] [--threads 1] [--limit N] [--translators N]
//              [--max-length 128] [--no-shortlist] [--profile] [--continuous]
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tern/cpu.h"
#include "tern/glossary.h"
#include "tern/translator.h"

int main(int argc, char** argv) {
  CLI::App app{"tern-bench"};
  std::string model_path, input, output;
  uint32_t beam = 1, batch = 1, threads = 1, limit = 0, max_length = 128, translators = 1;
  app.add_option("-m,--model", model_path)->required();
  app.add_option("--input", input)->required();
  app.add_option("--output", output)->required();
  app.add_option("--beam", beam);
  app.add_option("--batch", batch)->check(CLI::Range(1u, 4096u));
  app.add_option("--threads", threads)->check(CLI::Range(1u, 1024u));
  app.add_option("--limit", limit);
  app.add_option("--max-length", max_length);
  app.add_option("--translators", translators, "Translators sharing the Model, one thread each")->check(CLI::Range(1u, 64u));
  bool no_shortlist = false, scores = false, alignment = false, glossary_ignore_case = false, profile = false;
  bool continuous = false;
  app.add_flag("--continuous", continuous, "continuous batching: one TranslateContinuous call over the input");
  std::string glossary_path;
  app.add_option("--glossary", glossary_path, "TSV glossary: translate with its terms as constraints");
  app.add_flag("--glossary-ignore-case", glossary_ignore_case, "--glossary: source terms match in any case");
  app.add_flag("--scores", scores, "return per-token log-probabilities and the sentence score");
  app.add_flag("--alignment", alignment, "return each token's source alignment (cross-attention)");
  app.add_flag("--no-shortlist", no_shortlist, "score the whole target vocabulary even if the model has a shortlist");
  app.add_flag("--profile", profile, "time each part of decoding (profile_ms in the JSON: Translator::profile)");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> lines;
  {
    std::ifstream in(input);
    if (!in) return std::cerr << "tern-bench: " << input << ": cannot open\n", 2;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  if (limit && lines.size() > limit) lines.resize(limit);

  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const auto t0 = Clock::now();
  auto model = tern::Model::Load(model_path);
  if (!model.ok()) return std::cerr << "tern-bench: " << model.status().message() << "\n", 2;
  const auto t1 = Clock::now();
  tern::TranslatorConfig cfg;
  cfg.max_batch = batch;
  cfg.max_beam = std::max<uint32_t>(beam, 1);
  cfg.threads = threads;
  cfg.max_target_tokens = max_length;
  cfg.continuous_batching = continuous;
  std::vector<std::unique_ptr<tern::Translator>> trs;
  for (uint32_t k = 0; k < translators; ++k) {
    auto tr = tern::Translator::Create(model.value(), cfg);
    if (!tr.ok()) return std::cerr << "tern-bench: " << tr.status().message() << "\n", 2;
    tr.value()->EnableProfile(profile);
    trs.push_back(std::move(tr.value()));
  }
  const auto t2 = Clock::now();

  tern::TranslateOptions opt;
  opt.beam_size = beam;
  opt.max_length = max_length;
  std::shared_ptr<const tern::Glossary> glossary;
  double glossary_ms = 0;
  if (!glossary_path.empty()) {
    tern::GlossaryOptions go;
    go.case_insensitive = glossary_ignore_case;
    const auto g0 = Clock::now();
    auto g = tern::Glossary::Load(*model.value(), glossary_path, go);
    if (!g.ok()) return std::cerr << "tern-bench: " << g.status().message() << "\n", 2;
    glossary_ms = ms(g0, Clock::now());
    glossary = g.value();
    opt.glossary = glossary.get();
  }
  opt.return_scores = scores;
  opt.return_alignment = alignment;
  opt.use_shortlist = !no_shortlist;
  std::ofstream out(output);
  struct Totals {
    std::vector<double> latency;  // per sentence
    size_t tokens = 0, failed = 0;
    double ms = 0;
    std::string error;
  };
  std::vector<Totals> totals(translators);
  // The input as a continuous call's source: in file order; results written in order.
  struct Source final : tern::SentenceSource {
    const std::vector<std::string>* lines;
    Totals* t;
    std::vector<std::string>* texts;  // nullptr: not written
    Clock::time_point start;
    size_t next = 0;
    bool Next(tern::PendingSentence* p) override {
      if (next >= lines->size()) return false;
      p->text = (*lines)[next], p->tag = next++;
      return true;
    }
    std::vector<size_t> several;  // texts of several sentences: translated with Translate afterwards
    void Done(uint64_t tag, const tern::TranslationResult& x) override {
      if (x.error == tern::StatusCode::kUnsupported) return several.push_back(tag);
      t->latency.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      if (!x.ok()) return void(++t->failed);
      t->tokens += x.best().ids.size() + 1;
      if (texts) (*texts)[tag] = std::string(x.best().text);
    }
  };
  std::vector<std::string> continuous_texts(lines.size());
  auto run = [&](size_t k) {
    Totals& t = totals[k];
    if (continuous) {
      Source src;
      src.lines = &lines, src.t = &t, src.texts = k == 0 ? &continuous_texts : nullptr, src.start = Clock::now();
      tern::Status st = trs[k]->TranslateContinuous(src, opt);
      for (size_t i = 0; st.ok() && i < src.several.size(); ++i) {
        std::string_view v = lines[src.several[i]];
        tern::Span<const tern::TranslationResult> r;
        st = trs[k]->Translate(tern::Span<const std::string_view>(&v, 1), opt, &r);
        if (st.ok()) src.Done(src.several[i], r[0]);
      }
      t.ms = ms(src.start, Clock::now());
      if (!st.ok()) return void(t.error = st.message());
      if (k == 0)
        for (const std::string& x : continuous_texts) out << x << "\n";
      return;
    }
    std::vector<std::string_view> views;
    for (size_t s = 0; s < lines.size(); s += batch) {
      views.clear();
      for (size_t i = s; i < std::min(lines.size(), s + batch); ++i) views.push_back(lines[i]);
      tern::Span<const tern::TranslationResult> r;
      const auto a = Clock::now();
      tern::Status st = trs[k]->Translate(tern::Span<const std::string_view>(views.data(), views.size()), opt, &r);
      const auto b = Clock::now();
      if (!st.ok()) return void(t.error = st.message());
      t.ms += ms(a, b);
      for (const auto& x : r) {
        t.latency.push_back(ms(a, b));
        if (!x.ok()) {
          ++t.failed;
          if (k == 0) out << "\n";
          continue;
        }
        t.tokens += x.best().ids.size() + 1;
        if (k == 0) out << x.best().text << "\n";
      }
    }
  };
  const auto t3 = Clock::now();
  std::vector<std::thread> workers;
  for (size_t k = 1; k < translators; ++k) workers.emplace_back(run, k);
  run(0);
  for (auto& w : workers) w.join();
  const double wall_ms = ms(t3, Clock::now());
  std::vector<double> latency;
  size_t tokens = 0, failed = 0;
  for (const Totals& t : totals) {
    if (!t.error.empty()) return std::cerr << "tern-bench: " << t.error << "\n", 1;
    latency.insert(latency.end(), t.latency.begin(), t.latency.end());
    tokens += t.tokens, failed += t.failed;
  }
  const double total_ms = translators == 1 ? totals[0].ms : wall_ms;
  const size_t sentences = lines.size() * translators;
  std::sort(latency.begin(), latency.end());
  auto pct = [&](double p) { return latency.empty() ? 0.0 : latency[std::min(latency.size() - 1, static_cast<size_t>(p * latency.size()))]; };
  nlohmann::json j = {{"system", std::string("tern ") + tern::DTypeName(model.value()->weight_dtype())},
                      {"cpu", tern::CpuSummary()},
                      {"beam", beam}, {"batch", batch}, {"continuous", continuous}, {"scores", scores}, {"alignment", alignment}, {"threads", trs[0]->threads()}, {"translators", translators},
                      {"sentences", sentences}, {"failed", failed}, {"target_tokens", tokens},
                      {"seconds", total_ms / 1000}, {"sentences_per_s", sentences / (total_ms / 1000)},
                      {"tokens_per_s", tokens / (total_ms / 1000)}, {"latency_p50_ms", pct(0.50)}, {"latency_p95_ms", pct(0.95)},
                      {"load_ms", ms(t0, t2)}, {"load_file_ms", ms(t0, t1)}, {"load_translator_ms", ms(t1, t2)},
                      {"peak_rss_mib", tern::PeakRssMiB()}, {"arena_bytes", trs[0]->arena_bytes()},
                      {"file_mib", model.value()->file_bytes() / 1048576.0}};
  // What the decoder steps read (counted by the runtime whether or not profiling is on): weights per
  // generated token, and the logits columns per step (the mean shortlist size).
  uint64_t weight_bytes = 0, steps = 0, columns = 0;
  for (const auto& tr : trs) {
    weight_bytes += tr->profile().weight_bytes_read, steps += tr->profile().decoder_steps;
    columns += tr->profile().output_columns;
  }
  j["shortlist"] = model.value()->shortlist().present && !no_shortlist;
  j["glossary_entries"] = glossary ? glossary->size() : 0;
  j["glossary_load_ms"] = glossary_ms;
  j["weights"] = model.value()->provenance().weights;
  j["decoder_steps"] = steps;
  j["weight_bytes_per_token"] = tokens ? static_cast<double>(weight_bytes) / tokens : 0.0;
  j["mean_output_columns"] = steps ? static_cast<double>(columns) / steps : 0.0;
  if (profile) {  // summed over the Translators, ms
    tern::Profile p;
    for (const auto& tr : trs) {
      const tern::Profile& q = tr->profile();
      p.encoder_ms += q.encoder_ms, p.cross_kv_ms += q.cross_kv_ms, p.decoder_linear_ms += q.decoder_linear_ms;
      p.self_attention_ms += q.self_attention_ms, p.cross_attention_ms += q.cross_attention_ms;
      p.output_projection_ms += q.output_projection_ms, p.softmax_topk_ms += q.softmax_topk_ms;
      p.beam_bookkeeping_ms += q.beam_bookkeeping_ms, p.other_ms += q.other_ms;
    }
    j["profile_ms"] = {{"encoder", p.encoder_ms}, {"cross_kv", p.cross_kv_ms}, {"decoder_linear", p.decoder_linear_ms},
                       {"self_attention", p.self_attention_ms}, {"cross_attention", p.cross_attention_ms},
                       {"output_projection", p.output_projection_ms}, {"softmax_topk", p.softmax_topk_ms},
                       {"beam_bookkeeping", p.beam_bookkeeping_ms}, {"other", p.other_ms}};
  }
  std::cout << j.dump() << "\n";
  return 0;
}
