// One line of `tern translate`'s input as the commands hold it until its batch is translated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tern::cli {

struct InputLine {
  size_t number;             ///< 1-based line number in the input
  std::string text;          ///< the line (UTF-8, no newline)
  std::vector<uint32_t> ids; ///< --ids: the line's source ids
  std::string parse_error;   ///< what was wrong with the line before translation (empty: nothing)
};

}  // namespace tern::cli
