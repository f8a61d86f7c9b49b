// The AVX2 + F16C row kernel of B.FPATR post-processing
// (matrix_postprocess_avx2.cpp, compiled for AVX2 and F16C, called only when
// the CPU has them and the host floating-point environment is the default
// one): FP32 accumulators times their column's multiplier, encoded as FP32,
// FP16 or BF16 under RNE, RTZ, RTP or RTM, four elements per step.
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/rounding.hpp"

namespace pto::tile::postprocess {

enum class SimdDestination : std::uint8_t { FP32, FP16, BF16 };

struct SimdRowPlan {
  SimdDestination destination = SimdDestination::FP32;
  num::RoundingMode rounding = num::RoundingMode::RNE;  // RNE, RTZ, RTP or RTM
  bool saturating = false;
  const double* positive = nullptr;  // per column: the multiplier of a positive source
  const double* negative = nullptr;  // and of a negative one
};

// Columns [0, columns) (a multiple of 4) of one row, in place; returns the OR
// of their flags.  An element whose source is a NaN, an infinity or -0 (or
// whose carrier has bits beyond 32) is left unchanged, its flags not
// counted, and declined[c] set to 1 (else 0).
num::Flags fp32_row_avx2(std::uint64_t* row, std::size_t columns, const SimdRowPlan& plan, std::uint8_t* declined) noexcept;

}  // namespace pto::tile::postprocess
