#include "tern_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "quantize.h"
#include "tern_generated.h"

#ifndef TERN_VERSION
#define TERN_VERSION "0.0.0"
#endif

namespace tern::convert {
namespace {

constexpr size_t kAlign = 64;

size_t AlignUp(size_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// SIGINT/SIGTERM while the temporary file exists: remove it, then die with the usual status.
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_active = 0;

extern "C" void RemoveTempAndExit(int sig) {
  if (g_temp_active) unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

Status BuildTernImage(const Checkpoint& ck, const WriteOptions& opts, std::vector<uint8_t>* image,
                      std::vector<TensorReport>* report) {
  const Hyperparameters& hp = ck.hp;
  if (opts.limits.max_source_tokens > hp.max_positions || opts.limits.max_target_tokens + 1 > hp.max_positions)
    return Status(StatusCode::kInvalidArgument, "limits: max source/target tokens exceed max_position_embeddings " +
                                                    std::to_string(hp.max_positions));
  // 1. The weight segment.
  struct Placed {
    std::string name;
    std::vector<uint32_t> shape;
    fb::DType dtype;
    uint64_t offset, length, scales_offset = 0, scales_length = 0;
    float err = 0.f;
  };
  std::vector<Placed> placed;
  std::vector<uint8_t> seg;
  float worst = 0.f;
  for (const TensorSpec& spec : ExpectedTensors(hp)) {
    const Checkpoint::Tensor& t = ck.tensors.at(spec.name);
    const size_t n = t.data.size();
    Placed p{spec.name, spec.shape, fb::DType::F32, AlignUp(seg.size()), 0};
    const DType dt = spec.quantizable ? opts.weights : DType::kF32;
    if (dt == DType::kInt8) {
      const size_t rows = spec.shape[0], cols = spec.shape[1];
      p.dtype = fb::DType::INT8_QC8W;
      p.length = n;
      p.scales_offset = AlignUp(p.offset + n);
      p.scales_length = rows * 4;
      seg.resize(p.scales_offset + p.scales_length);
      p.err = QuantizePerRow(t.data.data(), rows, cols, reinterpret_cast<int8_t*>(seg.data() + p.offset),
                             reinterpret_cast<float*>(seg.data() + p.scales_offset));
    } else if (dt == DType::kF16) {
      p.dtype = fb::DType::F16;
      p.length = n * 2;
      seg.resize(p.offset + p.length);
      p.err = ToHalf(t.data.data(), n, reinterpret_cast<uint16_t*>(seg.data() + p.offset));
    } else {
      p.length = n * 4;
      seg.resize(p.offset + p.length);
      std::memcpy(seg.data() + p.offset, t.data.data(), p.length);
    }
    worst = std::max(worst, p.err);
    if (report) report->push_back({spec.name, dt, static_cast<size_t>(p.length + p.scales_length), p.err});
    placed.push_back(std::move(p));
  }
  seg.resize(AlignUp(seg.size()));

  // 2. The FlatBuffer. The weight segment goes in first so that it sits at the end of the file.
  flatbuffers::FlatBufferBuilder fbb(seg.size() + (size_t{1} << 20));
  fbb.ForceVectorAlignment(seg.size(), sizeof(uint8_t), kAlign);
  auto weights = fbb.CreateVector(seg);
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const Placed& p : placed) {
    tensors.push_back(fb::CreateTensor(fbb, fbb.CreateString(p.name), fbb.CreateVector(p.shape), p.dtype, p.offset,
                                       p.length, p.scales_offset, p.scales_length, p.err));
  }
  auto tensor_vec = fbb.CreateVectorOfSortedTables(&tensors);
  auto src_spm = fbb.CreateVector(reinterpret_cast<const uint8_t*>(ck.source_spm.data()), ck.source_spm.size());
  auto tgt_spm = fbb.CreateVector(reinterpret_cast<const uint8_t*>(ck.target_spm.data()), ck.target_spm.size());
  auto src_vocab = fbb.CreateVectorOfStrings(ck.source_vocab);
  auto tgt_vocab = fbb.CreateVectorOfStrings(ck.target_vocab);
  auto tokenizer = fb::CreateTokenizer(fbb, src_spm, tgt_spm, src_vocab, tgt_vocab);
  auto hparams = fb::CreateHyperparameters(
      fbb, hp.d_model, hp.n_heads, hp.head_dim, hp.ffn_dim, hp.encoder_layers, hp.decoder_layers,
      hp.source_vocab_size, hp.target_vocab_size, static_cast<fb::Activation>(hp.activation),
      static_cast<fb::NormPlacement>(hp.norm_placement), hp.layer_norm_epsilon,
      static_cast<fb::PositionEncoding>(hp.position_encoding), hp.max_positions, hp.embedding_scale,
      hp.shared_embeddings, hp.tied_output_projection, hp.final_logits_bias, hp.pad_id, hp.eos_id, hp.unk_id,
      hp.decoder_start_id);
  const GenerationDefaults& g = ck.gen;
  auto gen = fb::CreateGenerationDefaults(fbb, g.beam_size, g.length_penalty, g.max_length, g.max_length_ratio,
                                          g.forced_eos, fbb.CreateVector(g.bad_word_ids));
  const ArenaLimits& l = opts.limits;
  auto limits = fb::CreateArenaLimits(fbb, l.max_source_tokens, l.max_target_tokens, l.max_batch, l.max_rows);
  const char* wname = DTypeName(opts.weights);
  auto prov = fb::CreateProvenance(
      fbb, fbb.CreateString(opts.source_checkpoint), fbb.CreateString("tern-convert " TERN_VERSION),
      fbb.CreateString(wname),
      fbb.CreateString(opts.weights == DType::kInt8
                           ? "int8 symmetric per-output-channel (qc8w), scale = max|w_row| / 127; activations "
                             "quantized per row at run time (qd8)"
                           : opts.weights == DType::kF16 ? "f16 (round to nearest even)" : "none (f32)"),
      fbb.CreateString(UtcNow()), worst, fbb.CreateString(ck.notes));
  auto root = fb::CreateModel(fbb, kFormatVersion, prov, hparams, tensor_vec, tokenizer, gen, limits, weights);
  fb::FinishModelBuffer(fbb, root);
  image->assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& image) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  if (tmp.size() >= sizeof g_temp_path) return Status(StatusCode::kInvalidArgument, path + ": path too long");
  std::memcpy(g_temp_path, tmp.c_str(), tmp.size() + 1);
  auto old_int = std::signal(SIGINT, RemoveTempAndExit);
  auto old_term = std::signal(SIGTERM, RemoveTempAndExit);
  auto restore = [&] {
    g_temp_active = 0;
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
  };
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    restore();
    return Status(StatusCode::kIoError, tmp + ": cannot create: " + std::strerror(errno));
  }
  g_temp_active = 1;
  // Test hook: keep the temporary file open a while, so tests can interrupt the converter mid-write.
  if (const char* pause = std::getenv("TERN_CONVERT_TEST_PAUSE_MS")) usleep(static_cast<useconds_t>(std::atoi(pause)) * 1000);
  const uint8_t* p = image.data();
  size_t left = image.size();
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = errno;
      close(fd);
      unlink(tmp.c_str());
      restore();
      return Status(StatusCode::kIoError, tmp + ": write failed: " + std::strerror(e));
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    restore();
    return Status(StatusCode::kIoError, tmp + ": fsync/close failed: " + std::strerror(e));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    restore();
    return Status(StatusCode::kIoError, path + ": rename failed: " + std::strerror(e));
  }
  restore();
  return Status::Ok();
}

}  // namespace tern::convert
