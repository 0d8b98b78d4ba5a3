// tokenize-bench: tern's unigram encoder (text/spm_encoder.h) against SentencePiece's own C++ encoder on the same
// lines, one thread, in one process (issue 60's goal: at least SentencePiece's speed, the same pieces on every
// line). Prints the CPU, each encoder's load time (SentencePiece's LoadFromSerializedProto against
// SpmEncoder::Create, best of --load-runs, and the first run of each: a fresh process's; "tern_stored_trie" is
// SpmEncoder::Create over the piece trie tern-convert writes into a .tern, format/piece_trie.h, which a load maps
// instead of building), and the encode time of all lines for each (best of --runs,
// interleaved), as one JSON line:
//
//   build/bench/tokenize-bench --spm ../shared/opus-assets/en-mg/source.spm
//       --lines ../shared/data/multi30k/train.en --lines ../shared/data/multi30k/train.de --max-lines 100000
//
// "identical_lines" counts the lines whose pieces, ids and byte ranges agree (SentencePiece's side read from
// its serialized SentencePieceText by text/piece_text.h); SentencePiece's Encode to ids is what is timed, the
// call an application makes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <sentencepiece_processor.h>

#include "tern/cpu.h"
#include "text/piece_text.h"
#include "text/spm_encoder.h"
#include "piece_trie.h"

namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tern's unigram encoder against SentencePiece's C++ encoder"};
  std::string spm_path;
  std::vector<std::string> line_files;
  size_t max_lines = 100000;
  int runs = 5, load_runs = 5;
  app.add_option("--spm", spm_path, "a SentencePiece model (unigram)")->required();
  app.add_option("--lines", line_files, "text files, a sentence a line (read in order)")->required();
  app.add_option("--max-lines", max_lines, "lines to take at most");
  app.add_option("--runs", runs, "encode runs of each (the best counts)");
  app.add_option("--load-runs", load_runs, "load runs of each (the best counts)");
  CLI11_PARSE(app, argc, argv);

  std::ifstream f(spm_path, std::ios::binary);
  const std::string proto((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  for (const auto& path : line_files) {
    std::ifstream in(path);
    for (std::string line; lines.size() < max_lines && std::getline(in, line);) lines.push_back(line);
  }
  size_t bytes = 0;
  for (const auto& l : lines) bytes += l.size();

  // The trie tern-convert writes into a .tern (format/piece_trie.h), which a load maps.
  auto trie = tern::format::BuildPieceTrie(proto, spm_path);
  if (!trie.ok()) {
    std::fprintf(stderr, "tokenize-bench: %s\n", trie.status().message().c_str());
    return 1;
  }
  double load_spm = 1e9, load_ours = 1e9, load_stored = 1e9, first_spm = 0, first_ours = 0, first_stored = 0;
  std::unique_ptr<tern::SpmEncoder> ours, stored;
  sentencepiece::SentencePieceProcessor spm;
  for (int r = 0; r < load_runs; ++r) {
    double t0 = Now();
    sentencepiece::SentencePieceProcessor fresh;
    if (!fresh.LoadFromSerializedProto({proto.data(), proto.size()}).ok()) {
      std::fprintf(stderr, "tokenize-bench: SentencePiece refuses %s\n", spm_path.c_str());
      return 1;
    }
    load_spm = std::min(load_spm, Now() - t0);
    if (r == 0) first_spm = load_spm;
    // tern's encoder with the trie built (trie null) or over the file's: timed, kept in *out.
    auto create = [&](const tern::format::ByteTrieArrays* trie_arrays, double* best, double* first,
                      std::unique_ptr<tern::SpmEncoder>* out) {
      const double t = Now();
      auto e = tern::SpmEncoder::Create(proto, spm_path + ": ", trie_arrays);
      if (!e.ok()) return std::fprintf(stderr, "tokenize-bench: %s\n", e.status().message().c_str()), false;
      *best = std::min(*best, Now() - t);
      if (r == 0) *first = *best;
      *out = std::move(e).value();
      return true;
    };
    if (!create(nullptr, &load_ours, &first_ours, &ours) ||
        !create(&trie.value().arrays(), &load_stored, &first_stored, &stored))
      return 1;
  }
  spm.LoadFromSerializedProto({proto.data(), proto.size()});

  // The same pieces, ids (piece -> SentencePiece's id) and spans on every line.
  size_t identical = 0, pieces_total = 0;
  tern::SpmEncoder::Scratch scratch;
  std::vector<tern::SpmEncoder::Piece> pieces, pieces_stored;
  std::vector<int> ids;
  for (const auto& l : lines) {
    stored->Encode(l, &scratch, &pieces_stored);
    ours->Encode(l, &scratch, &pieces);
    const std::string spt = spm.EncodeAsSerializedProto({l.data(), l.size()});
    std::vector<tern::PieceSpan> want;
    tern::ForEachPiece(spt, [&](const tern::PieceSpan& p) { want.push_back(p); });
    bool same = want.size() == pieces.size() && pieces_stored.size() == pieces.size();
    for (size_t i = 0; same && i < want.size(); ++i)
      same = want[i].piece == pieces[i].text && pieces_stored[i].text == pieces[i].text &&
             pieces_stored[i].begin == pieces[i].begin && pieces_stored[i].end == pieces[i].end && want[i].begin == pieces[i].begin && want[i].end == pieces[i].end &&
             spm.PieceToId({want[i].piece.data(), want[i].piece.size()}) ==
                 spm.PieceToId({pieces[i].text.data(), pieces[i].text.size()});
    identical += same;
    pieces_total += pieces.size();
  }

  double t_spm = 1e9, t_ours = 1e9;
  size_t sink = 0;
  for (int r = 0; r < runs; ++r) {  // interleaved
    double t0 = Now();
    for (const auto& l : lines) {
      spm.Encode({l.data(), l.size()}, &ids);
      sink += ids.size();
    }
    t_spm = std::min(t_spm, Now() - t0);
    t0 = Now();
    for (const auto& l : lines) {
      ours->Encode(l, &scratch, &pieces);
      sink += pieces.size();
    }
    t_ours = std::min(t_ours, Now() - t0);
  }
  const std::string cpu = tern::CpuSummary();
  std::printf(
      "{\"cpu\": \"%s\", \"spm\": \"%s\", \"lines\": %zu, \"bytes\": %zu, \"pieces\": %zu, \"identical_lines\": %zu, "
      "\"load_ms\": {\"sentencepiece\": %.3f, \"tern\": %.3f, \"tern_stored_trie\": %.3f}, "
      "\"first_load_ms\": {\"sentencepiece\": %.3f, \"tern\": %.3f, \"tern_stored_trie\": %.3f}, "
      "\"trie_nodes\": %zu, \"encode_ms\": {\"sentencepiece\": %.1f, \"tern\": %.1f}, "
      "\"lines_per_s\": {\"sentencepiece\": %.0f, \"tern\": %.0f}, \"speed_ratio\": %.2f, \"sink\": %zu}\n",
      cpu.c_str(), spm_path.c_str(), lines.size(), bytes, pieces_total, identical, load_spm * 1e3, load_ours * 1e3,
      load_stored * 1e3, first_spm * 1e3, first_ours * 1e3, first_stored * 1e3, trie.value().nodes(),
      t_spm * 1e3, t_ours * 1e3, lines.size() / t_spm, lines.size() / t_ours, t_spm / t_ours, sink);
  return identical == lines.size() ? 0 : 2;
}
