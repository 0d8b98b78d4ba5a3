#include "tokenize_cmd.h"

#include <fstream>
#include <iostream>
#include <vector>

#include "cli_io.h"
#include "tern/model.h"
#include "tern/tokenize.h"

namespace tern::cli {

int RunTokenize(const TokenizeArgs& args) {
  auto model = Model::Load(args.model);
  if (!model.ok()) {
    std::cerr << "tern: " << model.status().message() << "\n";
    return 2;
  }
  auto tok = TextTokenizer::Create(model.value(), args.target ? TextTokenizer::Side::kTarget : TextTokenizer::Side::kSource);
  if (!tok.ok()) {
    std::cerr << "tern: " << tok.status().message() << "\n";
    return 2;
  }
  LineInput in;
  if (Status st = in.Open(args.input); !st.ok()) {
    std::cerr << "tern: " << st.message() << "\n";
    return 2;
  }
  OutputFile out;  // standard output, every write checked
  if (Status st = out.Open("", args.input); !st.ok()) {
    std::cerr << "tern: " << st.message() << "\n";
    return 2;
  }
  std::ostream& os = out.stream();
  size_t line_no = 0, failed = 0;
  std::vector<uint32_t> ids;
  std::string s;
  bool too_long = false;
  while (in.Next(&s, &too_long)) {
    ++line_no;
    Status st = too_long ? Status(StatusCode::kInvalidArgument, LineTooLong()) : tok.value()->Encode(s, args.target_lang, &ids);
    if (!st.ok()) {
      std::cerr << "tern: line " << line_no << ": " << st.message() << "\n";
      ++failed;
      os << "\n";
      continue;
    }
    for (size_t i = 0; i < ids.size(); ++i) os << (i ? " " : "") << ids[i];
    os << "\n";
    if (!os) break;  // a failed write ends the run (reported below)
  }
  if (Status st = out.Commit(); !st.ok()) {
    std::cerr << "tern: " << st.message() << "\n";
    return 2;
  }
  return failed ? 1 : 0;
}

}  // namespace tern::cli
