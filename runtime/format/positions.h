// Sinusoidal position tables.
#pragma once

#include <cstddef>

#include "tern/model.h"

namespace tern::format {

/// Fills out[n_positions * dim] (row-major, position p at row p, positions from 0) with the sinusoid of
/// `layout`, computed in float64 and rounded to float32. Angle for pair i: p / 10000^(2i/dim).
///  - kSinusoidalHalves: sin in column i, cos in column dim/2 + i (transformers'
///    MarianSinusoidalPositionalEmbedding).
///  - kSinusoidalInterleaved: sin in column 2i, cos in column 2i + 1 (Vaswani et al. 2017, sec. 3.5).
/// Allocates dim/2 doubles.
void FillSinusoid(PositionEncoding layout, size_t n_positions, size_t dim, float* out);

/// The per-pair denominators 10000^(2i/dim) of the sinusoid, denom[dim / 2] (float64).
void SinusoidDenominators(size_t dim, double* denom);

/// Rows [begin, end) of FillSinusoid's table into out (which points at row 0), the same values bit for bit,
/// from SinusoidDenominators' `denom`. No allocation.
void FillSinusoidRows(PositionEncoding layout, size_t dim, const double* denom, size_t begin, size_t end, float* out);

}  // namespace tern::format
