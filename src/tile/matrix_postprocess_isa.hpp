// The AVX2 + F16C row kernels of B.FPATR post-processing
// (matrix_postprocess_avx2.cpp, compiled for AVX2 and F16C, called only when
// the CPU has them and the host floating-point environment is the default
// one), four elements per step in any of the seven rounding modes (HiF8:
// RHB): S32 or FP32 accumulators times their column's multiplier encoded as
// FP32, FP16, BF16, E4M3 or HiF8 (d exact: 31 or 24 by 11 significant
// bits); S32 or FP32
// accumulators times their column's multiplier rounded to an integer
// destination of at most 32 bits (through the pre-quantisation intermediate
// and its offset when the mode has one); the shift modes' S32 to S16.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "numerics/rounding.hpp"

namespace pto::tile::postprocess {

enum class SimdDestination : std::uint8_t { FP32, FP16, BF16, E4M3, HiF8 };

// HiF8's grid at each binary exponent e in [-22, 15] (word e + 22), from the
// dot-field decode of ReferenceFP8FiniteValue (matrix_postprocess.cpp,
// hif8_grid): a magnitude m of exponent e (m < 2^-22 taking e = -22) is
// m * 2^(F - e) rounded to an integer n on a grid of F fraction bits, and
// its code is `base` + n (n = 0 only at e = -22, whose base is 0: the single
// zero), or the code of 2^(e+1) when n carries to 2^(F+1).  One word per e so
// that a lane fetches its whole grid with one gather:
//   bits 0..10   the biased binary64 exponent of the scale 2^(F - e)
//   bits 16..23  base = code(2^e) - 2^F
//   bits 24..31  the carry's code, code(2^(e+1))
//   bits 32..39  the carry's integer, 2^(F+1)
inline constexpr int kHiF8GridMinimumExponent = -22, kHiF8GridMaximumExponent = 15;
using HiF8GridTable = std::array<std::uint64_t, kHiF8GridMaximumExponent - kHiF8GridMinimumExponent + 1>;

constexpr std::uint64_t hif8_grid_word(int e, int fraction_bits, std::uint64_t code, std::uint64_t carry_code) noexcept {
  const std::uint64_t one = std::uint64_t{1} << fraction_bits;
  return static_cast<std::uint64_t>(fraction_bits - e + 1023) | (code - one) << 16 | carry_code << 24 | (2 * one) << 32;
}

struct SimdRowPlan {
  SimdDestination destination = SimdDestination::FP32;
  num::RoundingMode rounding = num::RoundingMode::RNE;  // E4M3: RNE, HiF8: RHB (their modes' fixed rounding)
  bool saturating = false;
  const double* positive = nullptr;  // per column: the multiplier of a positive source
  const double* negative = nullptr;  // and of a negative one
  bool s32_source = false;           // else FP32
  const HiF8GridTable* hif8_grid = nullptr;  // HiF8 destinations
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
