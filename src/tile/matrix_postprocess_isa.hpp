// The AVX2 + F16C row kernels of B.FPATR post-processing
// (matrix_postprocess_avx2.cpp, compiled for AVX2 and F16C, called only when
// the CPU has them and the host floating-point environment is the default
// one), four elements per step in any of the seven rounding modes: S32 or
// FP32 accumulators times their column's multiplier encoded as FP32, FP16,
// BF16 or E4M3 (d exact: 31 or 24 by 11 significant bits); S32 or FP32
// accumulators times their column's multiplier rounded to an integer
// destination of at most 32 bits (through the pre-quantisation intermediate
// and its offset when the mode has one); the shift modes' S32 to S16.
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/rounding.hpp"

namespace pto::tile::postprocess {

enum class SimdDestination : std::uint8_t { FP32, FP16, BF16, E4M3 };

struct SimdRowPlan {
  SimdDestination destination = SimdDestination::FP32;
  num::RoundingMode rounding = num::RoundingMode::RNE;  // E4M3: RNE (its modes' fixed rounding)
  bool saturating = false;
  const double* positive = nullptr;  // per column: the multiplier of a positive source
  const double* negative = nullptr;  // and of a negative one
  bool s32_source = false;           // else FP32
};

// Columns [0, columns) (a multiple of 4) of one row, in place; returns the OR
// of their flags.  An element whose source is a NaN, an infinity or -0 (or
// whose carrier has bits beyond 32) is left unchanged, its flags not
// counted, and declined[c] set to 1 (else 0).
num::Flags fp32_row_avx2(std::uint64_t* row, std::size_t columns, const SimdRowPlan& plan, std::uint8_t* declined) noexcept;

struct IntegerRowPlan {
  num::RoundingMode rounding = num::RoundingMode::RNE;
  bool saturating = false;
  bool s32_source = false;   // else FP32
  unsigned width = 0;        // MatrixQuantizedAffine intermediate width (0: none)
  unsigned bits = 32;        // destination width, 1..32
  bool is_signed = true;     // destination signedness
  const double* positive = nullptr;  // per column: the multiplier of a positive source
  const double* negative = nullptr;  // and of a negative one
  const double* offset = nullptr;    // per column: the quantisation offset (width != 0)
};

// The same contract for integer destinations: an element whose FP32 source
// is a NaN, an infinity or -0 (or whose carrier has bits beyond 32), whose
// scaled value is 2^62 or more in magnitude, or whose non-saturating
// overflow is 2^51 or more in magnitude is declined.
num::Flags integer_row_avx2(std::uint64_t* row, std::size_t columns, const IntegerRowPlan& plan,
                            std::uint8_t* declined) noexcept;

// MatrixShiftS32ToS16 of columns [0, columns) (a multiple of 4) of one row,
// in place, shift[c] in 1..16 per column; returns the OR of their flags.
num::Flags shift_row_avx2(std::uint64_t* row, std::size_t columns, const std::int32_t* shift) noexcept;

}  // namespace pto::tile::postprocess
