// Vector span loops of the tile fast paths that have no F16C instruction to
// lean on: BF16 arithmetic through binary32, FP32 -> BF16 RNE narrowing,
// ADR 0050 MAX/MIN and an FP32 exp (binary32 evaluation, binary64 for the
// elements it leaves open).  Each entry point picks, at run time, the
// widest loop the host runs (AVX-512 with BW and BF16, else AVX2 and, for
// exp, FMA) and otherwise runs a portable loop with the same contract; the
// tails shorter than a vector take the portable loop too.  None of them decides a rounding the exact path could decide
// differently: they report the elements (or the span) the caller must
// recompute exactly (docs/numerics.md, fast paths of the tile kernels).
// The host must run in the default floating-point environment (round to
// nearest even, no DAZ/FTZ); callers check fegetround().
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/f16c_span.hpp"
#include "numerics/rounding.hpp"

namespace pto::num::simd {

// The loop families, narrowest first.  Avx512 needs AVX512F, AVX512BW and
// AVX512_BF16 (VCVTNE2PS2BF16); Avx2 needs AVX2 (F16C for the FP16 loops).
enum class Tier : std::uint8_t { Portable, Avx2, Avx512 };

// The widest tier the CPU runs (queried once), capped by limit_tier.
Tier active_tier() noexcept;

// Caps the tier every entry point (and num::f16c) uses from now on, so
// tests run the narrower loops on a wide host; Avx512 lifts the cap.
void limit_tier(Tier cap) noexcept;

// True when the active tier is at least Avx2; exp also needs FMA.
bool avx2_available() noexcept;
bool avx2_fma_available() noexcept;

// BF16 a op b through binary32: out[i] = the carry-add RNE narrowing of the
// binary32 result of the widened operands.  Returns true when some binary32
// result is a NaN, zero or subnormal (the AVX2 loop also for a few other
// results, e.g. infinities): those elements are not known to be the BF16
// operation's result and must be recomputed.
bool bf16_binary_via_fp32(f16c::Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                          std::size_t n) noexcept;

// FP32 -> BF16 RNE for spans of common values: writes the carry-add
// narrowing of every element and returns {common, inexact}.  `common` is
// false when some element's rounded exponent field is 0 or all ones (zero,
// subnormal, tiny, overflow, infinity or NaN); then neither the outputs
// nor `inexact` are meaningful and the caller converts the span exactly.
// Otherwise the only possible flag is NX, raised iff `inexact`.
struct NarrowSummary {
  bool common = true;
  bool inexact = false;
};
NarrowSummary bf16_narrow_common(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept;

// ADR 0050 MAX (max true) or MIN of carriers of an IEEE interchange-style
// format whose +infinity encoding is `inf` (its NaNs are the magnitudes
// above): for each pair without a NaN, out[i] is the larger (smaller)
// operand by TileFloatingOrderKey, -0 below +0, the left one on ties.
// Returns true when some pair holds a NaN; those out[i] are unspecified
// and the caller recomputes them.
bool min_max(bool max, std::uint16_t inf, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
             std::size_t n) noexcept;
bool min_max(bool max, std::uint32_t inf, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out,
             std::size_t n) noexcept;
bool min_max(bool max, std::uint64_t inf, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out,
             std::size_t n) noexcept;

// ADR 0050 MAX (max true) or MIN of each of `rows` rows of `columns`
// (>= 1) carriers, row k at first + k * stride, into out[k * out_stride]:
// the element of the row greatest (least) by TileFloatingOrderKey.  That
// order is total and injective on the non-NaN encodings, so this is the
// result of the row's sequential MAX/MIN fold whatever the grouping.
// Returns true when some element is a NaN; then the outputs are
// unspecified and the caller folds exactly.
bool row_extremes(bool max, std::uint16_t inf, const std::uint16_t* first, std::size_t stride, std::uint32_t rows,
                  std::uint32_t columns, std::uint16_t* out, std::size_t out_stride) noexcept;
bool row_extremes(bool max, std::uint32_t inf, const std::uint32_t* first, std::size_t stride, std::uint32_t rows,
                  std::uint32_t columns, std::uint32_t* out, std::size_t out_stride) noexcept;
bool row_extremes(bool max, std::uint64_t inf, const std::uint64_t* first, std::size_t stride, std::uint32_t rows,
                  std::uint32_t columns, std::uint64_t* out, std::size_t out_stride) noexcept;

// The same for each of `columns` columns of `rows` (>= 1) rows, row k at
// first + k * stride, into out[0, columns) (not a source row): the
// column's extreme, or true (outputs unspecified) when some element is a
// NaN.
bool column_extremes(bool max, std::uint16_t inf, const std::uint16_t* first, std::size_t stride, std::uint32_t rows,
                     std::uint32_t columns, std::uint16_t* out) noexcept;
bool column_extremes(bool max, std::uint32_t inf, const std::uint32_t* first, std::size_t stride, std::uint32_t rows,
                     std::uint32_t columns, std::uint32_t* out) noexcept;
bool column_extremes(bool max, std::uint64_t inf, const std::uint64_t* first, std::size_t stride, std::uint32_t rows,
                     std::uint32_t columns, std::uint64_t* out) noexcept;

// Binary32 sums of up to 16 rows (`rows`), each folded strictly in column
// order from +0 (ADR 0092): row k holds `columns` floats at
// first + k * stride.  One vector lane per row; each step is one binary32
// add in the host's default environment (round to nearest even, no flush
// to zero), and no other floating-point operation runs, so the host's
// inexact flag afterwards tells whether some step rounded.  Writes
// sums[0, rows) and returns true.
// Only in the Avx512 tier (16 x 16 blocks transposed in registers):
// returns false, with no effect, otherwise.
bool fp32_row_sums16(const float* first, std::size_t stride, unsigned rows,
                                             std::uint32_t columns, float* sums) noexcept;

// FP32 exp for 0 < |x| <= 87: out[i] = exp(x) correctly rounded to
// binary32 (RNE) for every element not marked slow; such a result is
// normal and inexact.  Every other element is slow: bit i % 64 of
// slow[i / 64] is set (slow holds (n + 63) / 64 words) and out[i] is
// unspecified.  Returns true when some element is slow.  Slow are the
// elements outside the range and those whose rounding the evaluations
// cannot decide: with AVX2+FMA a binary32 evaluation (absolute error below
// 2^-32.3 before scaling) hands the ~0.5% of elements within that bound
// of a midpoint to a binary64 evaluation (relative error below 2^-45),
// which keeps those within 2^-43 of a binary32 midpoint (about one random
// element in 2^18); the portable loop runs the binary64 evaluation on every
// element (docs/numerics.md, TEXP FP32).
bool exp_fp32(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept;

// exp_fp32 through the portable loop whatever the CPU (the loop exp_fp32
// runs without AVX2+FMA; tests compare both).
bool exp_fp32_portable(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept;

}  // namespace pto::num::simd
