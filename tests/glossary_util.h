// Glossary helpers shared by the tests that build glossaries (test_terms.cc, test_glossary_limits.cc,
// test_search_properties.cc).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "tern/glossary.h"
#include "test_util.h"

namespace tern::test {

/// A glossary parsed from `tsv` for `m` (the test fails when it does not parse).
inline std::shared_ptr<const Glossary> GlossaryOf(const Model& m, const std::string& tsv, GlossaryOptions o = {}) {
  auto g = Glossary::Parse(m, tsv, "g.tsv", o);
  REQUIRE_MESSAGE(g.ok(), g.status().message());
  return g.value();
}

/// Whether `needle` occurs in `ids` as a contiguous run.
inline bool Contains(Span<const uint32_t> ids, const std::vector<uint32_t>& needle) {
  return std::search(ids.begin(), ids.end(), needle.begin(), needle.end()) != ids.end();
}

}  // namespace tern::test
