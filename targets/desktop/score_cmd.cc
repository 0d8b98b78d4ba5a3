#include "score_cmd.h"

#include <iomanip>
#include <iostream>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_io.h"
#include "tern/model.h"
#include "tern/translator.h"

namespace tern::cli {
namespace {

struct Pair {
  size_t number;
  std::string source, target;
  std::vector<uint32_t> source_ids, target_ids;
  std::string error;  // the line could not be read as a pair
};

Pair ParsePair(size_t number, const std::string& line, bool too_long, bool ids) {
  Pair p{number, {}, {}, {}, {}, {}};
  if (too_long) return p.error = LineTooLong(), p;
  const size_t tab = line.find('\t');
  if (tab == std::string::npos) return p.error = "no tab: a line is 'source<TAB>target'", p;
  p.source = line.substr(0, tab);
  p.target = line.substr(tab + 1);
  if (ids && ParseIds(p.source, &p.source_ids, &p.error)) ParseIds(p.target, &p.target_ids, &p.error);
  return p;
}

void Write(std::ostream& out, bool json, const Pair& p, const TranslationResult* r, const std::string& error) {
  if (!json) {
    if (r) out << std::setprecision(6) << r->best().score;
    out << "\n";
    return;
  }
  nlohmann::json j;
  j["line"] = p.number;
  if (!r) {
    j["error"] = error;
  } else {
    const Hypothesis& h = r->best();
    j["score"] = h.score;
    j["text"] = std::string(h.text);
    nlohmann::json tokens = nlohmann::json::array();
    for (size_t k = 0; k < h.tokens.size(); ++k) tokens.push_back({{"id", h.tokens[k]}, {"logprob", h.token_logprobs[k]}});
    j["tokens"] = tokens;
  }
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

int RunScore(const ScoreArgs& args) {
  auto model = Model::Load(args.model, ToolLoadOptions(args.packed_cache, args.no_packed_cache));
  if (!model.ok()) {
    std::cerr << "tern: " << model.status().message() << "\n";
    return 2;
  }
  TranslatorConfig cfg;
  cfg.threads = args.threads;
  auto tr = Translator::Create(model.value(), cfg);
  if (!tr.ok()) {
    std::cerr << "tern: " << tr.status().message() << "\n";
    return 2;
  }
  Translator& t = *tr.value();
  LineInput in;
  OutputFile output;
  for (Status st : {in.Open(args.input), CheckNotAnInput(args.output, args.model, "model"), output.Open(args.output, args.input)}) {
    if (!st.ok()) {
      std::cerr << "tern: " << st.message() << "\n";
      return 2;
    }
  }
  std::ostream& out = output.stream();
  size_t failed = 0, line_no = 0;
  std::vector<Pair> pairs;
  auto flush = [&]() {
    std::vector<std::string_view> src, tgt;
    std::vector<Span<const uint32_t>> src_ids, tgt_ids;
    for (const Pair& p : pairs) {
      if (!p.error.empty()) continue;
      src.push_back(p.source), tgt.push_back(p.target);
      src_ids.emplace_back(p.source_ids.data(), p.source_ids.size());
      tgt_ids.emplace_back(p.target_ids.data(), p.target_ids.size());
    }
    Span<const TranslationResult> results;
    Status st;
    if (!src.empty())
      st = args.ids ? t.ScoreIds(Span<const Span<const uint32_t>>(src_ids.data(), src_ids.size()),
                                 Span<const Span<const uint32_t>>(tgt_ids.data(), tgt_ids.size()), {}, &results)
                    : t.Score(Span<const std::string_view>(src.data(), src.size()),
                              Span<const std::string_view>(tgt.data(), tgt.size()), {}, &results);
    size_t k = 0;
    for (const Pair& p : pairs) {
      std::string error = p.error;
      const TranslationResult* r = nullptr;
      if (error.empty()) {
        if (!st.ok()) error = st.message();
        else if (!results[k].ok()) error = std::string(results[k].error_message);
        else r = &results[k];
        ++k;
      }
      if (!r) {
        std::cerr << "tern: line " << p.number << ": " << error << "\n";
        ++failed;
      }
      Write(out, args.json, p, r, error);
    }
    pairs.clear();
  };
  std::string s;
  bool too_long = false;
  while (in.Next(&s, &too_long)) {
    pairs.push_back(ParsePair(++line_no, s, too_long, args.ids));
    if (pairs.size() >= t.max_batch()) flush();
  }
  // Every pair read before a read error is scored and written first; then the error, naming the line.
  flush();
  if (in.error()) {
    out.flush();
    std::cerr << "tern: " << (args.input.empty() ? std::string("standard input") : args.input) << ": read failed at line "
              << line_no + 1 << ": " << std::strerror(in.errno_value() ? in.errno_value() : EIO) << "\n";
    return 2;
  }
  out.flush();
  if (!out) {
    std::cerr << "tern: write failed\n";
    return 2;
  }
  if (Status st = output.Commit(); !st.ok()) {
    std::cerr << "tern: " << st.message() << "\n";
    return 2;
  }
  if (failed) std::cerr << "tern: " << failed << " of " << line_no << " lines failed\n";
  return failed ? 1 : 0;
}

}  // namespace tern::cli
