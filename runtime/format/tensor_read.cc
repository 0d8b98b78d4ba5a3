// Check 5 of model_reader.h, for one tensor table entry (semantic_checks.cc has the rest).
#include <cmath>

#include "check_util.h"
#include "weight_formats.h"

namespace tern::format {

Status ReadTensor(const fb::Tensor& t, const uint8_t* seg, uint64_t seg_bytes, const std::string& file, TensorView* out) {
  TensorView& v = *out;
  v.name = View(t.name());
  const std::string tn = "tensor '" + std::string(v.name) + "'";
  if (!InRange(t.dtype()))
    return Invalid(file, tn + ": dtype " + std::to_string(static_cast<int>(t.dtype())) + " unknown");
  v.dtype = static_cast<DType>(t.dtype());
  const WeightFormat& f = FormatOf(v.dtype);
  if (!t.shape() || t.shape()->size() == 0 || t.shape()->size() > 2) return Invalid(file, tn + ": rank must be 1 or 2");
  v.rank = t.shape()->size();
  v.shape[0] = t.shape()->Get(0);
  v.shape[1] = v.rank == 2 ? t.shape()->Get(1) : 1;
  const uint64_t off = t.offset(), len = t.length();
  const uint64_t want = f.DataBytes(v.shape[0], v.shape[1]);  // both factors < 2^32: no overflow
  if (off % kTensorAlignment != 0)
    return Invalid(file, tn + ": offset " + std::to_string(off) + " is not 64-byte aligned");
  if (len != want)
    return Invalid(file, tn + ": length " + std::to_string(len) + " bytes, expected " + std::to_string(want) +
                             " for shape " + ShapeString(v.shape, v.rank) + " " + f.name);
  if (off > seg_bytes || len > seg_bytes - off)
    return Invalid(file, tn + ": bytes [" + std::to_string(off) + ", " + std::to_string(off + len) + ") outside the " +
                             std::to_string(seg_bytes) + "-byte weight segment");
  v.data = seg + off;
  v.bytes = len;
  if (f.scales != ScaleLayout::kNone) {
    const uint64_t so = t.scales_offset(), sl = t.scales_length();
    if (v.rank != 2) return Invalid(file, tn + ": " + f.name + " tensors must be 2-D");
    if (f.scales == ScaleLayout::kPerBlockBf16) {
      v.block_size = t.block_size();
      if (v.block_size < 32 || v.block_size % 32 != 0 || v.shape[1] % v.block_size != 0)
        return Invalid(file, tn + ": block_size " + std::to_string(v.block_size) +
                                 " must be a multiple of 32 that divides the " + std::to_string(v.shape[1]) + " columns");
    }
    if (sl != f.ScaleBytes(v.shape[0], v.shape[1], v.block_size) || so % 4 != 0 || so > seg_bytes || sl > seg_bytes - so)
      return Invalid(file, tn + ": scales [" + std::to_string(so) + ", +" + std::to_string(sl) +
                               ") misaligned, mis-sized or outside the weight segment");
    // "scale of row 3" (per-row formats) or "scale of row 3, block 2 (columns 64..95)" (per-block).
    auto bad_scale = [&](uint64_t i, float s) {
      std::string where = "scale of row " + std::to_string(i);
      if (f.scales == ScaleLayout::kPerBlockBf16) {
        const uint64_t blocks = v.shape[1] / v.block_size, b = i % blocks;
        where = "scale of row " + std::to_string(i / blocks) + ", block " + std::to_string(b) + " (columns " +
                std::to_string(b * v.block_size) + ".." + std::to_string((b + 1) * v.block_size - 1) + ")";
      }
      return Invalid(file, tn + ": " + where + " is " + std::to_string(s) +
                               (f.scales == ScaleLayout::kPerRow ? " (must be finite and > 0)" : " (must be a normal number > 0)"));
    };
    if (f.scales == ScaleLayout::kPerRow) {
      v.scales = reinterpret_cast<const float*>(seg + so);
      for (uint32_t r = 0; r < v.shape[0]; ++r)
        if (!(std::isfinite(v.scales[r]) && v.scales[r] > 0.f)) return bad_scale(r, v.scales[r]);
    } else {
      v.block_scales = reinterpret_cast<const uint16_t*>(seg + so);
      for (uint64_t i = 0; i < sl / 2; ++i) {  // XNNPACK's qb4w needs normal, positive scales
        const float s = Bf16ToFloat(v.block_scales[i]);
        if (!(std::isnormal(s) && s > 0.f)) return bad_scale(i, s);
      }
    }
    v.max_abs_error = t.max_abs_error();
  }
  return Status::Ok();
}


}  // namespace tern::format
