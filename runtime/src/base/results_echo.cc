#include "base/results_echo.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/options_echo.h"

namespace tern {
namespace {

// One " name=value" per field type of the result table (the format in results_echo.h).
void Put(std::string& s, const char* name, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  s += ' ', s += name, s += '=';
  for (unsigned char c : text) s += kHex[c >> 4], s += kHex[c & 15];
}
void Bits(std::string& s, float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(b));
  s += buf;
}
void Put(std::string& s, const char* name, float v) {
  s += ' ', s += name, s += '=';
  Bits(s, v);
}
void Put(std::string& s, const char* name, Span<const float> v) {
  s += ' ', s += name, s += '=';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    Bits(s, v[i]);
  }
}
template <typename Int>
void Put(std::string& s, const char* name, Span<const Int> v) {
  s += ' ', s += name, s += '=';
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : ""), s += std::to_string(v[i]);
}
void Put(std::string& s, const char* name, Span<const TextSpan> v) {
  s += ' ', s += name, s += '=';
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : ""), s += std::to_string(v[i].begin), s += ':', s += std::to_string(v[i].end);
}

}  // namespace

std::string EchoResultsText(const char* entry, Span<const TranslationResult> results) {
  std::string s = std::string("results ") + entry + " n=" + std::to_string(results.size()) + "\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const TranslationResult& r = results[i];
    s += "r i=" + std::to_string(i) + " ok=" + (r.ok() ? "1" : "0");
    if (r.ok()) {
#define TERN_PUT_RESULT(member) Put(s, #member, r.member);
      TERN_RESULT_FIELDS(TERN_PUT_RESULT)
#undef TERN_PUT_RESULT
    }
    s += '\n';
    for (size_t k = 0; r.ok() && k < r.hypotheses.size(); ++k) {
      const Hypothesis& h = r.hypotheses[k];
      s += "h i=" + std::to_string(i) + " k=" + std::to_string(k);
#define TERN_PUT_HYPOTHESIS(member) Put(s, #member, h.member);
      TERN_HYPOTHESIS_FIELDS(TERN_PUT_HYPOTHESIS)
#undef TERN_PUT_HYPOTHESIS
      s += '\n';
    }
  }
  return s;
}

void EchoResults(const char* entry, Span<const TranslationResult> results) {
  const char* path = std::getenv("TERN_ECHO_RESULTS");
  if (!path || !*path) return;
  AppendToEchoFile("TERN_ECHO_RESULTS", EchoResultsText(entry, results));
}

void EchoResults(const char* entry, const std::vector<OwnedResult>& results) {
  const char* path = std::getenv("TERN_ECHO_RESULTS");
  if (!path || !*path) return;
  std::vector<Hypothesis> hypotheses;
  std::vector<TranslationResult> views;
  ViewResults(results, &hypotheses, &views);
  AppendToEchoFile("TERN_ECHO_RESULTS", EchoResultsText(entry, Span<const TranslationResult>(views.data(), views.size())));
}

}  // namespace tern
