// B.FPATR matrix post-processing of one accumulator element: pre-quantisation
// (FP19 scale, signed intermediate, offset), activation (ReLU / LReLU /
// PReLU multiplier), destination encoding and special values, with the exact
// NV/OF/UF/NX flags the ASL records.
//
// Source: asl/arch/profile/matrix-postprocess.asl and
// asl/arch/profile/matrix-quantization.asl (PTO-MATRIX-POSTPROCESS-BITEXACT-001,
// PTO-MATRIX-QUANT-BITEXACT-001), B.FPATR mode tables in
// asl/block/attributes/B.FPATR.asl.  The computation is the same in both
// numeric profiles: the hardware numeric vectors name B.FPATR post-processing
// a bit-exact surface of the reference profile (implementation status
// "b-fpatr-...-asl-proven"), see docs/semantics-notes.md "Matrix post-processing".
//
// Real arithmetic is carried in binary64 exactly: a source is an S32/U32
// integer or an FP32 value (<= 32 significant bits), every multiplier an FP19
// value (11 significant bits), so each product has <= 43 significant bits and
// an exponent well inside binary64's range; offsets are added only to
// integers.  Every rounding below therefore sees the exact ASL real.
#pragma once

#include <cstdint>
#include <span>

#include "numerics/datatypes.hpp"
#include "numerics/rounding.hpp"

namespace pto::tile::postprocess {

using num::DataType;

// NumericExecutionControl.
struct Control {
  num::RoundingMode rounding = num::RoundingMode::RNE;
  bool saturating = false;
};

// MatrixRoundAndSaturateSigned: round once, clamp to the S5/S9/S17
// intermediate (width 5, 9 or 17), OF|NX on clamp, NX when inexact.
struct Intermediate {
  std::int32_t value = 0;
  num::Flags flags = 0;
};
Intermediate round_and_saturate_signed(double value, unsigned width, num::RoundingMode mode) noexcept;

// MatrixShiftS32ToS16: arithmetic shift right by 1..16, S16 saturation with
// OF|NX; the result is sign-extended to 64 bits.
num::Result shift_s32_to_s16(std::uint32_t value, unsigned shift) noexcept;

// ReferenceMatrixIntegerEncoding: round, then clamp (Sat) or wrap; the
// result is NormalizeTileInteger of the destination type (sign-extended for
// signed types).
num::Result integer_encoding(double value, DataType destination, Control control) noexcept;

// ReferenceMatrixFloatingEncoding: FP32, FP16, BF16, E4M3 or HiF8.
num::Result floating_encoding(double value, DataType destination, Control control) noexcept;

// MatrixQuantParameter / MatrixShiftParameter (parameter word builders).
std::uint64_t quant_parameter(std::uint32_t fp19, std::uint64_t offset, unsigned offset_width) noexcept;
std::uint64_t shift_parameter(unsigned code) noexcept;
// MatrixQuantOffset: the signed offset of a parameter word (width 0, 5, 9, 17).
std::int32_t quant_offset(std::uint64_t parameter, unsigned width) noexcept;
// BundleFPATRModeOffsetWidth.
unsigned mode_offset_width(unsigned pre_quant_mode) noexcept;

// MatrixFPATREffectiveControl: modes 25/28 round RHB, the other fixed
// floating modes RNE; saturation stays the B.DATR Sat control.
Control effective_control(unsigned pre_quant_mode, Control control) noexcept;

// TileProfileMatrixPostProcessWithFlags (both profiles).  Preconditions, as
// the complete-bundle preflight guarantees: a legal PreQuantMode / ReluMode,
// `output` = BundleFPATROutputType (or the accumulator type for mode 0), and
// parameter words passing BundleFPATRQuant/ReluParameterWordLegal.
num::Result post_process(std::uint64_t value, unsigned pre_quant_mode, unsigned relu_mode, DataType output,
                         std::uint64_t quant_param, std::uint64_t relu_param, Control control) noexcept;

// The parameter words of one output column: row 0, column c, of a vector
// parameter tile, or the scalar parameter repeated.
struct ColumnWords {
  std::uint64_t quant = 0, relu = 0;
};

// Whether post_process_tile's kernel takes tiles of this mode, destination
// and control (else every element keeps the exact path).
bool tile_kernel_applies(unsigned pre_quant_mode, DataType output, Control control) noexcept;
// Whether, on this host, its vector row kernel takes such tiles' whole
// groups of four columns (when their multipliers are finite).
bool row_kernel_applies(unsigned pre_quant_mode, DataType output, Control control) noexcept;

// MatrixPostProcessResult over a row-major tile of columns.size() columns:
// every element replaced by post_process(element, ..., its column's words)
// and the OR of their flags returned.  A per-tile kernel decodes the mode,
// the rounding and each column's multipliers once and encodes with host
// arithmetic (four elements per step on AVX2 + F16C,
// matrix_postprocess_isa.hpp); the exact post_process stays the path of
// every element it declines (NaN, infinity and -0 FP32 sources, products
// beyond 2^62 on an integer path) and of every tile it declines (sources
// other than S32 / FP32; HiF8 in RNE or RTO, which no mode uses).  The
// row kernel takes every destination (HiF8 in RHB, its modes' rounding);
// the scalar kernel the columns after the last group of four, and whole
// tiles on a CPU without AVX2 + F16C or under num::simd::limit_tier below
// AVX2.
num::Flags post_process_tile(std::span<std::uint64_t> values, std::span<const ColumnWords> columns, unsigned pre_quant_mode,
                             unsigned relu_mode, DataType output, Control control) noexcept;

}  // namespace pto::tile::postprocess
