#include "tern/tokenize.h"

#include "text/tokenizer.h"

namespace tern {

TextTokenizer::~TextTokenizer() = default;

Result<std::unique_ptr<TextTokenizer>> TextTokenizer::Create(std::shared_ptr<const Model> model, Side side) {
  if (!model) return Status(StatusCode::kInvalidArgument, "TextTokenizer: no model");
  std::unique_ptr<TextTokenizer> out(new TextTokenizer());
  TERN_ASSIGN_OR_RETURN(out->tokenizer_, Tokenizer::Create(*model, side == Side::kSource ? Tokenizer::Side::kSource
                                                                                          : Tokenizer::Side::kTarget));
  out->model_ = std::move(model);
  out->side_ = side;
  return out;
}

Status TextTokenizer::Encode(std::string_view text, std::string_view target_lang, std::vector<uint32_t>* ids) const {
  // Every piece holds a byte of the text or a word boundary (U+2581): at most 2 per byte, + code + </s>.
  ids->assign(2 * text.size() + 4, 0);
  size_t n = 0;
  TERN_RETURN_IF_ERROR(tokenizer_->Encode(text, target_lang, ids->data(), ids->size(), &n));
  ids->resize(n);
  return Status::Ok();
}

std::string TextTokenizer::Decode(Span<const uint32_t> ids) const {
  std::string out(ids.size() * tokenizer_->max_piece_bytes() + 1, '\0');
  out.resize(tokenizer_->Decode(ids.data(), ids.size(), out.data(), out.size()));
  return out;
}

}  // namespace tern
