// Model::Load and Model::FromBytes: the model layer's CreateModel (model/model_impl.h), plus, where a warm
// load can use it, SentencePiece parsing the source proto on a thread of its own from the moment the proto
// is verified (text/spm_prefetch.h). That is when the packed-weights cache is used (the weights then map
// in a few ms and SentencePiece is the longest part) and a second processor exists; without a cache,
// packing takes most of a load and the tokenizer is made alone first, as before (its parser's temporary
// memory is freed before packing begins: peak RSS).
#include "model/model_impl.h"
#include "nn/prepared_model.h"
#include "tern/cpu.h"
#include "text/spm_prefetch.h"

#include <cstdlib>
#include <string>

namespace tern {

namespace {

internal::SourceSpmHook PrefetchHook(const LoadOptions& options, const internal::ModelData& data, const std::string& name) {
  if (DescribeCpu().processors < 2 || PreparedModel::CacheDirectoryPath(options, data).empty()) return {};
  return [name](const format::SourceSpm& spm) { return std::make_shared<SpmPrefetch>(spm, name + ": tokenizer.source_spm: "); };
}

}  // namespace

std::string DefaultPackedCacheDir() {
  if (const char* off = std::getenv("TERN_PACKED_CACHE")) {
    const std::string v = off;
    if (v == "off" || v == "0" || v == "no" || v == "false") return {};
  }
  if (const char* dir = std::getenv("TERN_PACKED_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/tern/packed";
  if (const char* home = std::getenv("HOME"); home && *home == '/') return std::string(home) + "/.cache/tern/packed";
  return {};
}

Result<std::shared_ptr<const Model>> Model::Load(const std::string& path, const LoadOptions& options) {
  TERN_ASSIGN_OR_RETURN(auto data, options.map_file ? internal::ModelData::MapFile(path) : internal::ModelData::ReadFile(path));
  internal::SourceSpmHook hook = PrefetchHook(options, *data, path);
  return internal::CreateModel(std::move(data), path, options, hook);
}

Result<std::shared_ptr<const Model>> Model::FromBytes(const void* data, size_t size, const std::string& name,
                                                      const LoadOptions& options) {
  TERN_ASSIGN_OR_RETURN(auto copy, internal::ModelData::CopyOf(data, size, name));
  return internal::CreateModel(std::move(copy), name, options);  // never cached: packed at load
}

}  // namespace tern
