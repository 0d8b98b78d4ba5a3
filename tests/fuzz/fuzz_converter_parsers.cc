// libFuzzer target: the converter's parsers on arbitrary bytes. The first byte picks the parser:
// safetensors header+data, config.json, vocab.json, generation_config.json, config.json's generation keys,
// or a SentencePiece model: tern's check, and when it passes, SentencePiece itself loading the model and
// encoding text (the check must leave SentencePiece nothing to crash on), and tern's own encoder
// (text/spm_encoder.h), which must give the library's pieces and spans for every model both take. Never a
// crash; every error has a message.
#include <cstdint>
#include <string>
#include <vector>

#include "generation_config.h"
#include "marian_checkpoint.h"
#include "safetensors.h"
#include "sentencepiece_check.h"

#include <sentencepiece_processor.h>

#include "text/piece_text.h"
#include "text/spm_encoder.h"
#include "piece_trie.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t which = data[0] % 6;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  tern::Status s;
  switch (which) {
    case 0: {
      tern::convert::SafeTensorsFile f;
      s = tern::convert::ParseSafeTensors(std::vector<uint8_t>(data + 1, data + size), "fuzz.safetensors", &f);
      if (s.ok())
        for (const auto& [name, t] : f.tensors) {
          std::vector<float> out;
          if (t.numel() < (1u << 20)) (void)tern::convert::ToF32(t, name, &out);
        }
      break;
    }
    case 1: {
      tern::Hyperparameters hp;
      s = tern::convert::ParseMarianConfig(text, "config.json", &hp);
      break;
    }
    case 2: {
      std::vector<std::string> pieces;
      s = tern::convert::ParseVocab(text, "vocab.json", &pieces);
      break;
    }
    case 3: {
      tern::GenerationDefaults g;
      s = tern::convert::ParseGenerationConfig(text, "generation_config.json", 0, 1000, &g);
      break;
    }
    case 4: {
      tern::GenerationDefaults g;
      const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
      s = tern::convert::ReadGenerationKeys(j, tern::convert::GenerationSource::kModelConfig, "config.json", 0, 1000, &g);
      break;
    }
    default: {
      s = tern::format::CheckSentencePieceModel(text, "fuzz.spm");
      if (s.ok()) {
        sentencepiece::SentencePieceProcessor sp;
        if (sp.LoadFromSerializedProto(text).ok()) {
          std::vector<int> ids;
          (void)sp.Encode("A man in a blue shirt. \xef\xbc\xa1\xe2\x85\xa0 Stra\xc3\x9f" "e \xff", &ids);
          auto own = tern::SpmEncoder::Create(text, "fuzz.spm: ");
          if (own.ok()) {  // the same pieces and spans as the library (valid UTF-8: tern checks it first)
            // And over the trie tern-convert would write (format/piece_trie.h): accepted, the same pieces.
            auto trie = tern::format::BuildPieceTrie(text, "fuzz.spm");
            if (!trie.ok()) __builtin_trap();
            auto mapped = tern::SpmEncoder::Create(text, "fuzz.spm: ", &trie.value().arrays());
            if (!mapped.ok()) __builtin_trap();
            tern::SpmEncoder::Scratch scratch, mapped_scratch;
            std::vector<tern::SpmEncoder::Piece> pieces, mapped_pieces;
            for (const char* t : {"A man in a blue shirt.", "  \xef\xbc\xa1\xe2\x85\xa0  Stra\xc3\x9f" "e {{{ }", "\xe2\x96\x81x\tab"}) {
              own.value()->Encode(t, &scratch, &pieces);
              mapped.value()->Encode(t, &mapped_scratch, &mapped_pieces);
              if (mapped_pieces.size() != pieces.size()) __builtin_trap();
              for (size_t i = 0; i < pieces.size(); ++i)
                if (mapped_pieces[i].text != pieces[i].text || mapped_pieces[i].begin != pieces[i].begin) __builtin_trap();
              const std::string spt = sp.EncodeAsSerializedProto(t);
              size_t k = 0;
              bool same = true;
              tern::ForEachPiece(spt, [&](const tern::PieceSpan& p) {
                same = same && k < pieces.size() && pieces[k].text == p.piece && pieces[k].begin == p.begin &&
                       pieces[k].end == p.end;
                ++k;
              });
              if (!same || k != pieces.size()) __builtin_trap();
            }
          }
        }
      }
    }
  }
  if (!s.ok() && s.message().empty()) __builtin_trap();
  return 0;
}
