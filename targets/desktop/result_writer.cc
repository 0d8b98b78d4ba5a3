#include "result_writer.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "tern/status.h"

namespace tern::cli {
namespace {

using nlohmann::json;

// Bytes [s.begin, s.end) of `text`, or "" when the span is outside it.
std::string Bytes(std::string_view text, TextSpan s) {
  if (s.begin > s.end || s.end > text.size()) return {};
  return std::string(text.substr(s.begin, s.end - s.begin));
}

json HypothesisJson(const Hypothesis& h, const OutputFormat& f) {
  const Confidence c = ConfidenceOf(h);
  json tokens = json::array();
  for (size_t k = 0; k < h.tokens.size(); ++k) {
    json t = {{"id", h.tokens[k]}};
    if (k < h.token_spans.size()) {
      t["text"] = Bytes(h.text, h.token_spans[k]);
      t["span"] = {h.token_spans[k].begin, h.token_spans[k].end};
    }
    if (k < h.token_logprobs.size()) {
      t["logprob"] = h.token_logprobs[k];
      t["low"] = LowConfidenceToken(h.token_logprobs[k], f.thresholds);
    }
    if (k < h.token_sources.size() && h.token_sources[k] >= 0) t["source"] = h.token_sources[k];
    tokens.push_back(std::move(t));
  }
  json out = {{"text", std::string(h.text)}, {"ids", json(std::vector<uint32_t>(h.ids.begin(), h.ids.end()))}, {"score", h.score}};
  if (!h.attention.empty() && !h.tokens.empty()) {  // --attention: a row per token over the source tokens
    const size_t cols = h.attention.size() / h.tokens.size();
    json rows = json::array();
    for (size_t k = 0; k < h.tokens.size(); ++k)
      rows.push_back(std::vector<float>(h.attention.begin() + k * cols, h.attention.begin() + (k + 1) * cols));
    out["attention"] = std::move(rows);
  }
  out["confidence"] = {{"mean", c.mean_logprob}, {"min", c.min_logprob}, {"low", LowConfidence(c, f.thresholds)}};
  out["tokens"] = std::move(tokens);
  return out;
}

}  // namespace

void WriteResult(std::ostream& out, const OutputFormat& f, size_t line, std::string_view input,
                 const TranslationResult* r, const std::string& error) {
  if (f.json) {
    json j = {{"line", line}};
    if (!r) {
      j["error"] = error;
    } else {
      json source = json::array();
      for (size_t k = 0; k < r->source_ids.size(); ++k) {
        json s = {{"id", r->source_ids[k]}};
        if (k < r->source_spans.size()) {
          s["text"] = Bytes(input, r->source_spans[k]);
          s["span"] = {r->source_spans[k].begin, r->source_spans[k].end};
        }
        source.push_back(std::move(s));
      }
      if (f.n_best == 1 && !r->hypotheses.empty()) {
        j.update(HypothesisJson(r->hypotheses[0], f));
      } else {
        json hyps = json::array();
        for (const Hypothesis& h : r->hypotheses) hyps.push_back(HypothesisJson(h, f));
        j["hypotheses"] = std::move(hyps);
      }
      j["source"] = std::move(source);
    }
    // Invalid UTF-8 in a string (an input line that failed for it) is replaced, never thrown.
    out << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    return;
  }
  if (!r) {
    for (uint32_t n = 0; n < f.n_best; ++n) out << "\n";
    return;
  }
  for (size_t n = 0; n < f.n_best; ++n) {
    if (n < r->hypotheses.size()) {
      const Hypothesis& h = r->hypotheses[n];
      if (f.streamed && n == 0) {
        // already printed, word by word
      } else if (f.ids) {
        for (size_t j = 0; j < h.ids.size(); ++j) out << (j ? " " : "") << h.ids[j];
      } else {
        out << h.text;
      }
      if (f.scores && f.exact_scores) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "\t%.9g", static_cast<double>(h.score));
        out << buf;
      } else if (f.scores) {
        out << "\t" << h.score;
      }
    }
    out << "\n";
  }
}

}  // namespace tern::cli
