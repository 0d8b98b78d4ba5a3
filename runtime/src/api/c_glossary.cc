// The C API's glossaries (tern.h: tern_glossary_*), over tern::Glossary.
#include <vector>

#include "api/c_api_internal.h"

using tern::c_api::Fail;
using tern::c_api::Guarded;
using tern::c_api::SetError;

extern "C" {

tern_glossary* tern_glossary_load(const tern_model* model, const char* path, int case_insensitive, tern_error* err) {
  return Guarded(err, static_cast<tern_glossary*>(nullptr), [&]() -> tern_glossary* {
    if (!model || !path) return SetError(err, TERN_INVALID_ARGUMENT, "tern_glossary_load: model or path is NULL"), nullptr;
    tern::GlossaryOptions o;
    o.case_insensitive = case_insensitive != 0;
    auto g = tern::Glossary::Load(*model->model, path, o);
    if (!g.ok()) return Fail(err, g.status()), nullptr;
    return new tern_glossary{g.value()};
  });
}

tern_glossary* tern_glossary_create(const tern_model* model, const char* const* sources, const char* const* targets,
                                    size_t n, int case_insensitive, tern_error* err) {
  return Guarded(err, static_cast<tern_glossary*>(nullptr), [&]() -> tern_glossary* {
    if (!model || (n && (!sources || !targets)))
      return SetError(err, TERN_INVALID_ARGUMENT, "tern_glossary_create: model, sources or targets is NULL"), nullptr;
    if (n > tern::kMaxGlossaryEntries)
      return SetError(err, TERN_INVALID_ARGUMENT, "tern_glossary_create: more than 1000000 entries"), nullptr;
    std::vector<tern::GlossaryEntry> e(n);
    for (size_t i = 0; i < n; ++i) {
      if (!sources[i] || !targets[i])
        return SetError(err, TERN_INVALID_ARGUMENT, "tern_glossary_create: entry " + std::to_string(i + 1) + " is NULL"), nullptr;
      e[i] = {sources[i], targets[i]};
    }
    tern::GlossaryOptions o;
    o.case_insensitive = case_insensitive != 0;
    auto g = tern::Glossary::Create(*model->model, tern::Span<const tern::GlossaryEntry>(e.data(), e.size()), o);
    if (!g.ok()) return Fail(err, g.status()), nullptr;
    return new tern_glossary{g.value()};
  });
}

void tern_glossary_free(tern_glossary* glossary) { delete glossary; }

size_t tern_glossary_size(const tern_glossary* glossary) { return glossary ? glossary->glossary->size() : 0; }

}  // extern "C"
