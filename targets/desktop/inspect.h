// `tern inspect`: a description of a .tern file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tern/model.h"

namespace tern::cli {

/// Hyperparameters, tensor count and bytes per element type, tokenizer sizes, generation defaults,
/// the arena plan for the file's default limits (bytes, and bytes without lifetime sharing),
/// provenance. Keys are stable (tests and scripts read them).
nlohmann::json Describe(const Model& model);

/// The same as aligned "key: value" lines for a terminal.
std::string DescribeText(const nlohmann::json& description);

}  // namespace tern::cli
