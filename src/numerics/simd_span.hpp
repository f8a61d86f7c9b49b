// Vector span loops of the tile fast paths that have no F16C instruction to
// lean on: BF16 arithmetic through binary32, FP32 -> BF16 RNE narrowing,
// ADR 0050 MAX/MIN and an FP32 exp (binary32 evaluation, binary64 for the
// elements it leaves open); and the flag-recording tile-scalar arithmetic
// whose IEEE flags the host's MXCSR records (HostFlagScope).  Each entry point picks, at run time, the
// widest loop the host runs (AVX-512 with BW and BF16, else AVX2 and, for
// exp, FMA) and otherwise runs a portable loop with the same contract; the
// tails shorter than a vector take the portable loop too.  None of them decides a rounding the exact path could decide
// differently: they report the elements (or the span) the caller must
// recompute exactly (docs/numerics.md, fast paths of the tile kernels).
// The host must run in the default floating-point environment (round to
// nearest even, no DAZ/FTZ); callers check fegetround().
#pragma once

#include <algorithm>
#include <array>
#include <cfenv>
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

// FP32 -> BF16 RNE in blocks of kNarrowBlock elements (the last one may be
// shorter), at most kNarrowBlocks blocks a call: writes the carry-add
// narrowing of every element.  A block is common when every element's
// rounded exponent field lies strictly between 1 and all ones (no zero,
// subnormal, tiny, overflow, infinity or NaN); then the only possible flag
// is NX.  Bit k of `uncommon` marks block k as not common: its outputs are
// not meaningful and the caller converts it exactly.  `inexact` is true iff
// some element of a common block is inexact.  One call for the whole span
// and a block loop inside the tier's function: a call a block cost about
// 5% of the tile kernel (perf, TCVT FP32->BF16 ieee).
inline constexpr std::size_t kNarrowBlock = 1024;
inline constexpr std::size_t kNarrowBlocks = 64;
struct NarrowBlocks {
  std::uint64_t uncommon = 0;
  bool inexact = false;
};
NarrowBlocks bf16_narrow_blocks(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept;

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

// ---- IEEE status flags from the host (x86 MXCSR) ----
//
// The flag-recording ieee arithmetic (TADDS/TSUBS/TMULS/TDIVS) runs the
// host's binary32/binary64 operations and reads the IEEE status flags they
// raised from the host's sticky MXCSR bits, a span at a time, instead of
// deciding them per element (docs/numerics.md, fast paths).  x86 SSE/AVX
// arithmetic and conversions with every exception masked, DAZ and FTZ
// clear, are IEEE 754 operations with tininess detected after rounding and
// a masked underflow signalled only when also inexact: the spec's rules
// (asl/arch/features/mx-formats.asl HardwareNumericTininessDetectionRule,
// AfterRounding; docs/numerics.md, ieee profile).

// Host flags available: x86-64 (GCC or clang).  Without them the
// *_with_flags functions return std::nullopt and write nothing.
bool host_flags_available() noexcept;

// While alive, the host computes in RNE with every exception masked, no
// DAZ/FTZ and the sticky flags clear; the caller's floating-point
// environment (x86-64: MXCSR; elsewhere <cfenv>) comes back at destruction.
// take() returns the IEEE flags raised since construction or the last
// take() (NV, DZ, OF, UF, NX from IE, ZE, OE, UE, PE; DE is not an IEEE
// flag) and clears them.  Its members are out-of-line calls, so the
// compiler cannot move memory-fed host arithmetic across them.
class HostFlagScope {
 public:
  HostFlagScope() noexcept;
  ~HostFlagScope();
  HostFlagScope(const HostFlagScope&) = delete;
  HostFlagScope& operator=(const HostFlagScope&) = delete;
  Flags take() noexcept;

 private:
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  std::uint32_t saved_ = 0;
#else
  std::fenv_t saved_{};
#endif
};

// What a *_scalar_with_flags call reports beyond the host's sticky MXCSR
// bits: `flags` the span's flags no host instruction raised (BF16: the
// narrowing's NX), and whether some element needs the caller's exact
// recomputation (which function says which elements; their host flags
// never exceed the exact ones).  The calls run inside the caller's
// HostFlagScope (one for many calls: an MXCSR round trip costs about 20 ns)
// and leave their operations' flags in it; the caller take()s them before
// any exact recomputation and again, discarding them, after it.
struct HostFlags {
  Flags flags = 0;
  bool special = false;
};

// Runs loop(a, out, count) over the span's whole Steps, then over the rest
// copied into one Step of operands padded with copies of its first element,
// so every element goes through the loop's vector instructions (whose host
// flags the caller reads) and the padding raises no flag the span does not.
// Returns the OR of the loop's results.
template <std::size_t Step, typename T, typename Loop>
auto padded_steps(Loop loop, const T* a, T* out, std::size_t n) noexcept {
  const std::size_t whole = n - n % Step;
  const auto summary = loop(a, out, whole);
  if (whole == n) return summary;
  std::array<T, Step> x, z;
  x.fill(a[whole]);
  std::copy(a + whole, a + n, x.begin());
  const auto rest = loop(x.data(), z.data(), Step);
  std::copy_n(z.begin(), n - whole, out + whole);
  return static_cast<decltype(summary)>(summary | rest);
}

// FP32 / FP64 a[i] op scalar (ieee, RNE; TADDS..TDIVS): out[i] is the
// host's binary32/binary64 result, the operations' flags in MXCSR;
// `special` when some result is a NaN (PTO returns the canonical NaN: the
// caller rewrites those).  Any tier.
std::optional<HostFlags> scalar_with_flags(f16c::Op op, const std::uint32_t* a, std::uint32_t scalar,
                                           std::uint32_t* out, std::size_t n) noexcept;
std::optional<HostFlags> scalar_with_flags(f16c::Op op, const std::uint64_t* a, std::uint64_t scalar,
                                           std::uint64_t* out, std::size_t n) noexcept;

// FP32 -> S32 (TCVT, ieee): out[i] is the host's conversion (VCVTTPS2DQ
// toward zero when `truncate`, else VCVTPS2DQ to nearest even), its IEEE
// flags in MXCSR: NX when inexact, which is num::convert's rule for every
// source with |x| < 2^31.  `special` when some source is a NaN or has
// |x| >= 2^31 (out of range, or -2^31 itself): the host returns the
// indefinite value and IE there, so the caller converts the span exactly
// and discards the host flags.  x86 hosts (AVX-512 or SSE2 loops).
std::optional<HostFlags> fp32_to_s32_with_flags(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                                                bool truncate) noexcept;

// S32 -> FP32 to nearest even (TCVT, ieee): the host's conversion, NX in
// MXCSR when inexact (|x| > 2^24 with low bits lost), as num::convert;
// never `special`.  x86 hosts.
std::optional<HostFlags> s32_to_fp32_with_flags(const std::uint32_t* in, std::uint32_t* out, std::size_t n) noexcept;

// TFMA (ieee) on the host, FP32 or FP64: out[i] = l[i] * r[i] + a[i]
// rounded once (VFMADD in RNE, its IEEE flags in the caller's
// HostFlagScope: an IEEE 754 fusedMultiplyAdd, tininess after rounding,
// as num::ieee_fused) for i below the returned count, which ends at the
// first vector step holding a NaN or an infinite operand (n when none
// does).  The element there is the caller's (exactly, with its own
// flags); it calls again past it.  Nothing at or after the count is
// written, so the destination may be a source.  Avx512 tier;
// std::nullopt otherwise.
std::optional<std::size_t> fma_ordinary_prefix(const std::uint32_t* l, const std::uint32_t* r, const std::uint32_t* a,
                                               std::uint32_t* out, std::size_t n) noexcept;
std::optional<std::size_t> fma_ordinary_prefix(const std::uint64_t* l, const std::uint64_t* r, const std::uint64_t* a,
                                               std::uint64_t* out, std::size_t n) noexcept;

// TFMA (ieee) of FP16 (`bf16` false) or BF16 through one binary32 FMA of
// the exactly widened operands, W = RN24(l * r + a), then RNE narrowing:
// out[i] is the correctly rounded result for i below the returned count,
// which is the first element whose W the narrowing may not take (an
// FP16/BF16 rounding midpoint the loop cannot resolve, a result in the
// subnormal or overflow range, NaN and infinity included, and for BF16
// zero; simd_span.cpp has the argument), or n.  Nothing at or after the count is written, so the
// destination may be a source; the caller takes that element exactly and
// calls again after it.  The elements done have no OF or UF; their NX is
// `inexact` (BF16: a nonzero dropped half) or the PE the FMA and VCVTPS2PH
// leave in the caller's HostFlagScope, whose other bits the caller drops
// (lanes past the count may leave OE or UE there).  Avx512 tier;
// std::nullopt otherwise.
struct HalfFmaPrefix {
  std::size_t count = 0;
  bool inexact = false;
};
std::optional<HalfFmaPrefix> half_fma_ordinary_prefix(bool bf16, const std::uint16_t* l, const std::uint16_t* r,
                                                      const std::uint16_t* a, std::uint16_t* out,
                                                      std::size_t n) noexcept;

// FP16 a[i] op scalar through binary32 (VCVTPH2PS, one binary32 operation,
// VCVTPS2PH; f16c_span.cpp): out[i] is the correctly rounded FP16 result
// (some NaN encoding for a NaN); the union of the three instructions'
// flags, left in MXCSR, is the FP16 operation's (the argument is in
// f16c_span.cpp); `special` when some result is a NaN.  AVX2/F16C and
// AVX-512 tiers; std::nullopt in the portable tier.
std::optional<HostFlags> fp16_scalar_with_flags(f16c::Op op, const std::uint16_t* a, std::uint16_t scalar,
                                                std::uint16_t* out, std::size_t n) noexcept;

// BF16 a[i] op scalar through binary32 (bf16_binary_via_fp32's loops):
// out[i] as there.  The operation's flags are the binary32 operations'
// (in MXCSR) with UF removed (the caller removes it), plus `flags`: NX when
// some binary32 result has a nonzero low half (the narrowing drops it).  `special` when some result has a BF16 exponent field of 0, 1
// or all ones: the caller recomputes those elements, which hold every
// element whose exact flags can include UF (results below 2^-125), so UF
// comes from the exact path alone and binary32 and BF16 tininess need not
// be compared.  The host flags of every element are a subset of its exact
// flags: binary32 inexact or overflowing implies BF16 inexact or
// overflowing, and NV/DZ are the same.  AVX2 and AVX-512 tiers;
// std::nullopt in the portable tier.
std::optional<HostFlags> bf16_scalar_with_flags(f16c::Op op, const std::uint16_t* a, std::uint16_t scalar,
                                                std::uint16_t* out, std::size_t n) noexcept;

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
