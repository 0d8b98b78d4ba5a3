#include "text/piece_encoder.h"

#include <cstdlib>
#include <exception>
#include <cstring>
#include <new>

#include <sentencepiece_processor.h>

#include "text/spm_encoder.h"

namespace tern {

Result<std::unique_ptr<sentencepiece::SentencePieceProcessor>> ParseSentencePiece(std::string_view proto,
                                                                                 const std::string& where) {
  auto spm = std::make_unique<sentencepiece::SentencePieceProcessor>();
  sentencepiece::util::Status st;
  // The verifier (format::CheckSentencePieceModel) already refused what is known to make SentencePiece or
  // its darts-clone tries throw; an exception that still comes out of that C++ library is this model's
  // error, never the process's end. {data, size}: SentencePiece 0.1.97 upstream takes its own
  // absl::string_view shim, Debian's std::string_view.
  try {
    st = spm->LoadFromSerializedProto({proto.data(), proto.size()});
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidModel, where + "SentencePiece failed to load it: " + e.what());
  }
  if (!st.ok()) return Status(StatusCode::kInvalidModel, where + st.ToString());
  return spm;
}

PieceEncoder::~PieceEncoder() = default;

bool PieceEncoder::piece_trie_from_file() const { return own_ && own_->piece_trie_from_file(); }

const char* PieceEncoder::kind() const { return own_ ? own_->model_type() : "sentencepiece"; }

Result<std::unique_ptr<PieceEncoder>> PieceEncoder::Load(std::string_view proto, const std::string& where,
                                                       const format::ByteTrieArrays* piece_trie) {
  std::unique_ptr<PieceEncoder> e(new (std::nothrow) PieceEncoder());
  if (!e) return Status(StatusCode::kResourceExhausted, where + "no memory for the encoder");
  const char* choice = std::getenv("TERN_SENTENCEPIECE");
  if (!choice || std::strcmp(choice, "library") != 0) {
    try {
      auto own = SpmEncoder::Create(proto, where, piece_trie);
      if (own.ok()) {
        e->own_ = std::move(own).value();
        return e;
      }
      // With the file's piece trie, the model is refused by what refused it here (the trie's check, or the
      // proto's fault SentencePiece refuses too): a corrupted file, whichever encoder would read it.
      if (piece_trie && piece_trie->nodes && own.status().code() == StatusCode::kInvalidModel) return own.status();
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kResourceExhausted, where + "no memory for the piece trie");
    }
    // Anything tern's encoder does not take (another model type, a model SentencePiece refuses): the
    // library decides, and its message is the error.
  }
  TERN_ASSIGN_OR_RETURN(e->library_, ParseSentencePiece(proto, where));
  return e;
}

Status PieceEncoder::Encode(std::string_view text, std::vector<PieceSpan>* out) const {
  out->clear();
  if (own_) {
    thread_local SpmEncoder::Scratch scratch;
    thread_local std::vector<SpmEncoder::Piece> pieces;
    own_->Encode(text, &scratch, &pieces);
    for (const auto& p : pieces) out->push_back(PieceSpan{p.text, p.begin, p.end});
    return Status::Ok();
  }
  thread_local std::string proto;
  proto = library_->EncodeAsSerializedProto({text.data(), text.size()});
  if (!ForEachPiece(proto, [&](const PieceSpan& p) { out->push_back(p); }))
    return Status(StatusCode::kInternal, "SentencePiece returned a SentencePieceText that does not parse");
  if (proto.empty() && text.find_first_not_of(" \t\r\n") != std::string_view::npos)
    return Status(StatusCode::kInvalidArgument, "SentencePiece could not encode the text");
  return Status::Ok();
}

}  // namespace tern
