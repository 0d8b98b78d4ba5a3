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
  // Usually enough: a piece per byte of the text and a word boundary (U+2581) per byte, + code + </s>. NFKC
  // can make a character many (U+FDFA's 3 bytes become 18 characters), so a text that needs more is
  // encoded again into exactly what it needs (the first pass counted it).
  ids->assign(2 * text.size() + 4, 0);
  size_t n = 0;
  Status st = tokenizer_->Encode(text, target_lang, ids->data(), ids->size(), &n);
  if (st.code() == StatusCode::kResourceExhausted && n > ids->size()) {
    ids->assign(n, 0);
    st = tokenizer_->Encode(text, target_lang, ids->data(), ids->size(), &n);
  }
  TERN_RETURN_IF_ERROR(st);
  ids->resize(n);
  return Status::Ok();
}

std::string TextTokenizer::Decode(Span<const uint32_t> ids) const {
  std::string out(ids.size() * tokenizer_->max_piece_bytes() + 1, '\0');
  out.resize(tokenizer_->Decode(ids.data(), ids.size(), out.data(), out.size()));
  return out;
}

}  // namespace tern
