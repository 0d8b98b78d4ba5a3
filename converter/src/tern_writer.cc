#include "tern_writer.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <ctime>
#include <algorithm>

#include "format.h"
#include "layer_spec.h"
#include "piece_trie.h"
#include "quantize.h"
#include "tensor_specs.h"
#include "weight_formats.h"

#ifndef TERN_VERSION
#define TERN_VERSION "0.0.0"
#endif

namespace tern::convert {
namespace {

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

Result<WeightPlan> WeightPlan::Named(const std::string& name, uint32_t block_size) {
  if (block_size < 32 || block_size % 32 != 0)
    return Status(StatusCode::kInvalidArgument, "--int4-block " + std::to_string(block_size) + ": a multiple of 32 is needed");
  WeightPlan p;
  p.name = name;
  p.block_size = block_size;
  if (name == "int4") {  // measured on the bundled model (docs/evaluation.md, "Weight formats"): qb4w-32 keeps int8's BLEU
    p.attention = p.feed_forward = DType::kQb4w;
    p.embeddings = DType::kInt8;
    p.block_size = 32;
    return p;
  }
  if (name == "mixed") {
    p.attention = p.embeddings = DType::kInt8;
    p.feed_forward = DType::kQb4w;
    return p;
  }
  const format::WeightFormat* f = format::FormatNamed(name.c_str());
  if (!f) return Status(StatusCode::kInvalidArgument, "unknown weight format '" + name + "' (f32, f16, int8, qc4w, qb4w, int4)");
  p.attention = p.feed_forward = p.embeddings = f->dtype;
  if (f->bits == 4) p.embeddings = DType::kInt8;
  return p;
}

DType WeightPlan::For(const std::string& name) const {
  format::Role role;
  if (!format::RoleOfTensor(name, &role)) return embeddings;  // embed_tokens, lm_head
  return role == format::Role::kFeedForward ? feed_forward : attention;
}

std::string WeightPlan::Description() const {
  auto one = [&](DType t) {
    std::string d = format::FormatOf(t).description;
    if (t == DType::kQb4w) d += " (block_size " + std::to_string(block_size) + ")";
    return d;
  };
  if (attention == feed_forward && feed_forward == embeddings) return one(attention);
  std::string out = "feed-forward: " + one(feed_forward);
  out += "; attention: " + one(attention);
  out += "; embeddings and output projection: " + one(embeddings);
  return out;
}

// The segment's layout: first every small piece the runtime reads at load or per token whatever the weights'
// source (the f32 tensors: norms, biases; each quantized matrix's scales, checked at load), then the quantized
// matrices, which a load from the packed-weights cache never touches. The kernel maps a file's page cache in
// folios of up to 2 MiB: a scale stored next to its matrix made every load fault in most of the file (126 of
// 227 MiB at the tc-big shape) although the cache held the packed weights.
Status EncodeTensors(const Checkpoint& ck, const WriteOptions& opts, EncodedTensors* out) {
  out->date = UtcNow();
  const Hyperparameters& hp = ck.hp;
  if (opts.limits.max_source_tokens > hp.max_positions || uint64_t{opts.limits.max_target_tokens} + 1 > hp.max_positions)
    return Status(StatusCode::kInvalidArgument, "limits: max source/target tokens exceed max_position_embeddings " +
                                                    std::to_string(hp.max_positions));
  const std::string date = out->date;
  *out = EncodedTensors();
  out->date = date;
  const std::vector<format::TensorSpec> specs = format::ExpectedTensors(hp);
  uint64_t cursor = 0;
  for (const format::TensorSpec& spec : specs) {  // placement, small pieces first
    const DType dt = spec.quantizable ? opts.weights.For(spec.name) : DType::kF32;
    const format::WeightFormat& f = format::FormatOf(dt);
    const size_t rows = spec.shape[0], cols = spec.shape.size() == 2 ? spec.shape[1] : 1;
    const uint32_t block = f.scales == format::ScaleLayout::kPerBlockBf16 ? opts.weights.block_size : 0;
    if (block && cols % block != 0)
      return Status(StatusCode::kInvalidArgument, "tensor '" + spec.name + "': " + std::to_string(cols) +
                                                      " columns are not a multiple of the block size " + std::to_string(block));
    out->uses_int4 |= f.bits == 4;
    EncodedTensors::Placement p{spec.name, spec.shape, dt, 0, f.DataBytes(rows, cols)};
    p.block = block;
    p.scales_length = f.ScaleBytes(rows, cols, block);
    if (dt == DType::kF32) {
      p.offset = format::AlignUp(cursor);
      cursor = p.offset + p.length;
    } else if (p.scales_length) {
      p.scales_offset = format::AlignUp(cursor);
      cursor = p.scales_offset + p.scales_length;
    }
    out->placed.push_back(std::move(p));
  }
  for (EncodedTensors::Placement& p : out->placed) {  // then the quantized matrices
    if (p.dtype == DType::kF32) continue;
    p.offset = format::AlignUp(cursor);
    cursor = p.offset + p.length;
  }
  out->segment.assign(format::AlignUp(cursor), 0);
  for (EncodedTensors::Placement& p : out->placed) {
    const size_t rows = p.shape[0], cols = p.shape.size() == 2 ? p.shape[1] : 1;
    uint8_t* seg = out->segment.data();
    p.err = EncodeWeights(p.dtype, ck.tensors.at(p.name).data.data(), rows, cols, p.block, seg + p.offset,
                          p.scales_length ? seg + p.scales_offset : nullptr);
    out->worst = std::max(out->worst, p.err);
    out->report.push_back({p.name, p.dtype, static_cast<size_t>(p.length + p.scales_length), p.err});
  }
  return Status::Ok();
}

namespace {

// The FlatBuffer of the file: every table, with the weights inside (`segment_offset` 0) or, for format 5,
// a DataSegment naming bytes [segment_offset, + the weights' size) of the file. `source_trie`: the source
// SentencePiece model's piece trie, or null.
Status BuildFlatBuffer(const Checkpoint& ck, const WriteOptions& opts, const EncodedTensors& enc, uint64_t segment_offset,
                       const format::ByteTrie* source_trie, std::vector<uint8_t>* out) {
  const Hyperparameters& hp = ck.hp;
  const std::vector<uint8_t>& seg = enc.segment;
  const bool inline_weights = segment_offset == 0;
  // The weight segment goes in first so that it sits at the end of the FlatBuffer.
  flatbuffers::FlatBufferBuilder fbb((inline_weights ? seg.size() : 0) + (size_t{1} << 20));
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> weights = 0;
  if (inline_weights) {
    fbb.ForceVectorAlignment(seg.size(), sizeof(uint8_t), format::kTensorAlignment);
    weights = fbb.CreateVector(seg);
  }
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const EncodedTensors::Placement& p : enc.placed) {
    const auto name = fbb.CreateString(p.name);
    const auto shape = fbb.CreateVector(p.shape);
    tensors.push_back(fb::CreateTensor(fbb, name, shape, format::ToFb(p.dtype), p.offset, p.length, p.scales_offset,
                                       p.scales_length, p.err, p.block));
  }
  const auto tensor_vec = fbb.CreateVectorOfSortedTables(&tensors);
  const auto src_spm = fbb.CreateVector(reinterpret_cast<const uint8_t*>(ck.source_spm.data()), ck.source_spm.size());
  const auto tgt_spm = fbb.CreateVector(reinterpret_cast<const uint8_t*>(ck.target_spm.data()), ck.target_spm.size());
  const auto src_vocab = fbb.CreateVectorOfStrings(ck.source_vocab);
  const auto tgt_vocab = fbb.CreateVectorOfStrings(ck.target_vocab);
  const auto src_lang = fbb.CreateString(ck.source_lang);
  const auto tgt_lang = fbb.CreateString(ck.target_lang);
  flatbuffers::Offset<fb::PieceTrie> src_trie = 0;
  if (source_trie) {
    const format::ByteTrieArrays& a = source_trie->arrays();
    src_trie = fb::CreatePieceTrie(fbb, fbb.CreateVector(a.first, a.nodes), fbb.CreateVector(a.count, a.nodes),
                                   fbb.CreateVector(a.label, a.nodes), fbb.CreateVector(a.value, a.nodes));
  }
  const auto tokenizer = fb::CreateTokenizer(fbb, src_spm, tgt_spm, src_vocab, tgt_vocab, ck.clean_up_tokenization_spaces,
                                             src_lang, tgt_lang, src_trie);
  const auto hparams = format::ToFb(fbb, hp);
  const auto gen = format::ToFb(fbb, ck.gen);
  const auto limits = format::ToFb(fbb, opts.limits);
  Provenance prov;
  prov.source_checkpoint = opts.source_checkpoint;
  prov.converter_version = "tern-convert " TERN_VERSION;
  prov.weights = opts.weights.name;
  prov.quantization = opts.weights.Description();
  prov.date = enc.date;
  prov.max_abs_error = enc.worst;
  prov.notes = ck.notes;
  const auto provenance = format::ToFb(fbb, prov);
  flatbuffers::Offset<fb::Shortlist> shortlist = 0;
  if (const ShortlistTables* sl = opts.shortlist) {
    if (sl->offsets.size() != uint64_t{hp.source_vocab_size} + 1)
      return Status(StatusCode::kInvalidArgument, "shortlist: offsets do not match the source vocabulary");
    shortlist = fb::CreateShortlist(fbb, fbb.CreateVector(sl->frequent), fbb.CreateVector(sl->offsets),
                                    fbb.CreateVector(sl->candidates), fbb.CreateString(sl->method));
  }
  const auto segment = inline_weights ? 0 : fb::CreateDataSegment(fbb, segment_offset, seg.size());
  const uint32_t version = format::RequiredVersion(ck.gen, ck.clean_up_tokenization_spaces, enc.uses_int4, !inline_weights);
  const auto root =
      fb::CreateModel(fbb, version, provenance, hparams, tensor_vec, tokenizer, gen, limits, weights, shortlist, segment);
  fb::FinishModelBuffer(fbb, root);
  out->assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  return Status::Ok();
}

}  // namespace

Status SerializeTernImage(const Checkpoint& ck, const WriteOptions& opts, const EncodedTensors& enc,
                          std::vector<uint8_t>* image) {
  // Everything but the weights: the tokenizer blobs, the vocabularies (a string and an offset each), the
  // shortlist, and 1 MiB for the rest.
  uint64_t tables = ck.source_spm.size() + ck.target_spm.size() + (uint64_t{1} << 20);
  // The source model's piece trie, which a load then maps instead of building (format/piece_trie.h). A proto
  // it cannot be built from (a piece defined twice) gets none: the load reports the proto's fault.
  auto trie = format::BuildPieceTrie(ck.source_spm, "source.spm");
  const format::ByteTrie* source_trie = trie.ok() ? &trie.value() : nullptr;
  if (source_trie) tables += uint64_t{source_trie->nodes()} * 11 + 64;
  for (const auto* v : {&ck.source_vocab, &ck.target_vocab})
    for (const std::string& p : *v) tables += p.size() + 8;
  if (const ShortlistTables* sl = opts.shortlist) tables += 4 * (sl->frequent.size() + sl->offsets.size() + sl->candidates.size());
  if (!opts.weights_segment && enc.segment.size() + tables <= format::kMaxImageBytes)
    return BuildFlatBuffer(ck, opts, enc, 0, source_trie, image);
  // Format 5: the FlatBuffer, zeros to the next multiple of 4096, the weights. The offset is a 64-bit field
  // of a table, stored whatever its value, so the FlatBuffer's size does not depend on it: build once to
  // learn the size, then again with the offset.
  std::vector<uint8_t> fbuf;
  TERN_RETURN_IF_ERROR(BuildFlatBuffer(ck, opts, enc, format::kSegmentAlignment, source_trie, &fbuf));
  const uint64_t base = (fbuf.size() + format::kSegmentAlignment - 1) / format::kSegmentAlignment * format::kSegmentAlignment;
  const size_t first_size = fbuf.size();
  TERN_RETURN_IF_ERROR(BuildFlatBuffer(ck, opts, enc, base, source_trie, &fbuf));
  if (fbuf.size() != first_size)
    return Status(StatusCode::kInternal, "weights segment: the FlatBuffer's size changed with the segment's offset");
  try {
    image->assign(fbuf.begin(), fbuf.end());
    image->resize(base, 0);
    image->insert(image->end(), enc.segment.begin(), enc.segment.end());
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "no memory for a " + std::to_string(base + enc.segment.size()) + "-byte image");
  }
  return Status::Ok();
}

Status BuildTernImage(const Checkpoint& ck, const WriteOptions& opts, std::vector<uint8_t>* image,
                      std::vector<TensorReport>* report) {
  EncodedTensors enc;
  TERN_RETURN_IF_ERROR(EncodeTensors(ck, opts, &enc));
  if (report) *report = enc.report;
  return SerializeTernImage(ck, opts, enc, image);
}

}  // namespace tern::convert
