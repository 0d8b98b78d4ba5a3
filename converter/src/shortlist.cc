#include "shortlist.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>
#include <utility>

#include "read_file.h"
#include "tern/tokenize.h"

namespace tern::convert {
namespace {

Status CheckParams(const ShortlistParams& p) {
  if (p.best == 0 && p.frequent == 0)
    return Status(StatusCode::kInvalidArgument, "shortlist: --shortlist-frequent and --shortlist-best are both 0");
  if (!(p.min_prob >= 0.f && p.min_prob <= 1.f))
    return Status(StatusCode::kInvalidArgument, "shortlist: the minimum probability must be in [0, 1]");
  if (p.iterations == 0 || p.iterations > 100)
    return Status(StatusCode::kInvalidArgument, "shortlist: IBM Model 1 iterations must be in 1..100");
  return Status::Ok();
}

uint64_t Key(uint32_t s, uint32_t t) { return (uint64_t{s} << 32) | t; }

// Per source id, its (target, p) pairs -> offsets and candidates: the `best` by p (ties: lower id first)
// with p >= min_prob.
void SelectCandidates(std::vector<std::vector<std::pair<uint32_t, float>>>& by_source, const ShortlistParams& params,
                      ShortlistTables* out) {
  out->offsets.assign(by_source.size() + 1, 0);
  out->candidates.clear();
  for (size_t s = 0; s < by_source.size(); ++s) {
    auto& c = by_source[s];
    std::sort(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    for (size_t i = 0; i < c.size() && i < params.best && c[i].second >= params.min_prob; ++i) out->candidates.push_back(c[i].first);
    out->offsets[s + 1] = static_cast<uint32_t>(out->candidates.size());
  }
}

}  // namespace

Status BuildShortlist(std::shared_ptr<const Model> model, const std::string& source_path, const std::string& target_path,
                      const ShortlistParams& params, ShortlistTables* out) {
  TERN_RETURN_IF_ERROR(CheckParams(params));
  if (!model) return Status(StatusCode::kInvalidArgument, "shortlist: no model");
  auto src_tok = TextTokenizer::Create(model, TextTokenizer::Side::kSource);
  if (!src_tok.ok()) return src_tok.status();
  auto tgt_tok = TextTokenizer::Create(model, TextTokenizer::Side::kTarget);
  if (!tgt_tok.ok()) return tgt_tok.status();
  LineReader src, tgt;
  if (Status st = src.Open(source_path); !st.ok()) return Status(st.code(), "shortlist: " + st.message());
  if (Status st = tgt.Open(target_path); !st.ok()) return Status(st.code(), "shortlist: " + st.message());

  const Hyperparameters& hp = model->hparams();
  const uint32_t S = hp.source_vocab_size, T = hp.target_vocab_size, eos = hp.eos_id;
  const uint32_t null_word = S;  // IBM Model 1's empty source word
  // The corpus as ids: sentence i's source ids (without </s>) in src_ids[src_off[i] .. src_off[i + 1]).
  std::vector<uint32_t> src_ids, tgt_ids;
  std::vector<uint64_t> src_off{0}, tgt_off{0};
  std::vector<uint64_t> target_count(T, 0);
  std::string a, b;
  std::vector<uint32_t> ids;
  uint64_t line = 0, skipped = 0, too_long = 0;
  std::string first_skip;
  for (;;) {
    bool ga = false, gb = false;
    TERN_RETURN_IF_ERROR(src.Next(&a, &ga));
    TERN_RETURN_IF_ERROR(tgt.Next(&b, &gb));
    if (!ga && !gb) break;
    if (ga != gb) {
      for (bool more = true; more;) TERN_RETURN_IF_ERROR((ga ? src : tgt).Next(ga ? &a : &b, &more));
      return Status(StatusCode::kIoError, "shortlist: " + source_path + " has " + std::to_string(src.line_number()) + " lines, " +
                                              target_path + " has " + std::to_string(tgt.line_number()));
    }
    ++line;
    if (line > params.max_lines) break;
    std::vector<uint32_t> sids, tids;
    Status es = src_tok.value()->Encode(a, "", &sids);
    Status et = es.ok() ? tgt_tok.value()->Encode(b, "", &tids) : Status::Ok();
    if (!es.ok() || !et.ok()) {  // a line the tokenizer refuses is left out, and reported
      if (skipped++ == 0)
        first_skip = (es.ok() ? target_path : source_path) + ":" + std::to_string(line) + ": " + (es.ok() ? et : es).message();
      continue;
    }
    // Model 1's work and its table grow with |source| x |target| per pair: over-long pairs are left out,
    // as alignment tools' corpus cleaning does (Moses' clean-corpus-n), so time and memory stay linear.
    if (sids.size() > params.max_pair_tokens || tids.size() > params.max_pair_tokens) {
      ++too_long;
      continue;
    }
    for (uint32_t id : sids)
      if (id != eos) src_ids.push_back(id);
    for (uint32_t id : tids)
      if (id != eos) tgt_ids.push_back(id), target_count[id]++;
    src_off.push_back(src_ids.size());
    tgt_off.push_back(tgt_ids.size());
  }
  const size_t pairs = src_off.size() - 1;
  if (pairs == 0) return Status(StatusCode::kInvalidArgument, "shortlist: no usable sentence pair in " + source_path);
  out->warning = skipped ? std::to_string(skipped) + " line pair(s) left out, the first at " + first_skip : "";
  if (too_long)
    out->warning += (out->warning.empty() ? "" : "; ") + std::to_string(too_long) + " line pair(s) longer than " +
                    std::to_string(params.max_pair_tokens) + " tokens on a side left out";

  // IBM Model 1 by EM: prob[s, t] = p(t | s) over the pairs that co-occur, uniform to start.
  std::unordered_map<uint64_t, float> prob, count;
  prob.reserve(tgt_ids.size() * 8);
  for (size_t i = 0; i < pairs; ++i)
    for (uint64_t j = tgt_off[i]; j < tgt_off[i + 1]; ++j) {
      prob[Key(null_word, tgt_ids[j])] = 1.f;
      for (uint64_t k = src_off[i]; k < src_off[i + 1]; ++k) prob[Key(src_ids[k], tgt_ids[j])] = 1.f;
    }
  std::vector<double> total(S + 1);
  for (uint32_t it = 0; it < params.iterations; ++it) {
    count.clear();
    count.reserve(prob.size());
    std::fill(total.begin(), total.end(), 0.0);
    for (size_t i = 0; i < pairs; ++i)
      for (uint64_t j = tgt_off[i]; j < tgt_off[i + 1]; ++j) {
        const uint32_t t = tgt_ids[j];
        double z = prob[Key(null_word, t)];
        for (uint64_t k = src_off[i]; k < src_off[i + 1]; ++k) z += prob[Key(src_ids[k], t)];
        if (!(z > 0)) continue;
        auto add = [&](uint32_t s) {
          const float c = static_cast<float>(prob[Key(s, t)] / z);
          count[Key(s, t)] += c;
          total[s] += c;
        };
        add(null_word);
        for (uint64_t k = src_off[i]; k < src_off[i + 1]; ++k) add(src_ids[k]);
      }
    for (auto& [key, p] : prob) {
      const uint32_t s = static_cast<uint32_t>(key >> 32);
      p = total[s] > 0 ? static_cast<float>(count[key] / total[s]) : 0.f;
    }
  }
  std::vector<std::vector<std::pair<uint32_t, float>>> by_source(S);
  for (const auto& [key, p] : prob) {
    const uint32_t s = static_cast<uint32_t>(key >> 32);
    if (s < S) by_source[s].push_back({static_cast<uint32_t>(key & 0xffffffffu), p});
  }
  SelectCandidates(by_source, params, out);

  std::vector<uint32_t> order(T);
  for (uint32_t t = 0; t < T; ++t) order[t] = t;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return target_count[x] > target_count[y]; });
  out->frequent.clear();
  for (uint32_t t : order) {
    if (out->frequent.size() >= params.frequent || target_count[t] == 0) break;
    out->frequent.push_back(t);
  }
  out->method = "IBM Model 1 (" + std::to_string(params.iterations) + " EM iterations, NULL word) over " +
                std::to_string(pairs) + " sentence pairs: the " + std::to_string(out->frequent.size()) +
                " most frequent target tokens, at most " + std::to_string(params.best) + " per source token with p >= " +
                std::to_string(params.min_prob);
  return Status::Ok();
}

Status ReadMarianShortlist(const Model& model, const std::string& path, const ShortlistParams& params, ShortlistTables* out) {
  TERN_RETURN_IF_ERROR(CheckParams(params));
  LineReader in;
  if (Status st = in.Open(path); !st.ok()) return Status(st.code(), "shortlist: " + st.message());
  std::unordered_map<std::string_view, uint32_t> src_id, tgt_id;
  for (size_t i = 0; i < model.source_vocab().size(); ++i) src_id.emplace(model.source_vocab()[i], static_cast<uint32_t>(i));
  for (size_t i = 0; i < model.target_vocab().size(); ++i) tgt_id.emplace(model.target_vocab()[i], static_cast<uint32_t>(i));
  std::vector<std::vector<std::pair<uint32_t, float>>> by_source(model.hparams().source_vocab_size);
  std::string text;
  uint64_t line = 0, used = 0, unknown = 0;
  for (;;) {
    bool got = false;
    TERN_RETURN_IF_ERROR(in.Next(&text, &got));
    if (!got) break;
    ++line;
    if (line > params.max_lines * 100) break;  // lexical tables hold many lines per sentence
    if (text.empty()) continue;
    const size_t a = text.find(' '), b = a == std::string::npos ? a : text.find(' ', a + 1);
    if (b == std::string::npos || text.find(' ', b + 1) != std::string::npos)
      return Status(StatusCode::kInvalidArgument,
                    path + ":" + std::to_string(line) + ": expected 'target source probability' (three fields separated by spaces)");
    const std::string prob_text = text.substr(b + 1);
    char* end = nullptr;
    const float p = std::strtof(prob_text.c_str(), &end);
    if (end == prob_text.c_str() || *end != '\0' || !(p >= 0.f && p <= 1.f))
      return Status(StatusCode::kInvalidArgument,
                    path + ":" + std::to_string(line) + ": probability '" + prob_text + "' is not a number in [0, 1]");
    const auto t = tgt_id.find(std::string_view(text).substr(0, a));
    const auto s = src_id.find(std::string_view(text).substr(a + 1, b - a - 1));
    if (t == tgt_id.end() || s == src_id.end()) {
      ++unknown;
      continue;
    }
    by_source[s->second].push_back({t->second, p});
    ++used;
  }
  if (used == 0) return Status(StatusCode::kInvalidArgument, path + ": no line names pieces of the model's vocabularies");
  SelectCandidates(by_source, params, out);
  out->frequent.clear();
  for (uint32_t t = 0; t < params.frequent && t < model.hparams().target_vocab_size; ++t) out->frequent.push_back(t);
  out->method = "Marian lexical shortlist " + std::string(path.substr(path.find_last_of('/') + 1)) + " (" +
                std::to_string(used) + " pairs, " + std::to_string(unknown) + " with pieces outside the vocabularies): the first " +
                std::to_string(out->frequent.size()) + " target ids, at most " + std::to_string(params.best) +
                " per source token with p >= " + std::to_string(params.min_prob);
  out->warning = "";
  return Status::Ok();
}

}  // namespace tern::convert
