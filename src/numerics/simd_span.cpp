#include "numerics/simd_span.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <type_traits>

#include "numerics/convert_span.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define PTO_HAVE_AVX2_PATH 1
#endif

namespace pto::num::simd {

namespace {

using f16c::Op;

// ---- BF16 arithmetic through binary32 ----

template <Op O, typename F>
F apply(F x, F y) noexcept {
  if constexpr (O == Op::ADD) return x + y;
  else if constexpr (O == Op::SUB) return x - y;
  else if constexpr (O == Op::MUL) return x * y;
  else return x / y;
}

// RNE of a binary32 encoding to its top 16 bits by a carry-add: exact for
// every finite result whose exponent field is nonzero (BF16 is the top half
// of binary32, so the exponent range is shared and only the significand is
// rounded).
constexpr std::uint32_t carry_add_rne(std::uint32_t w) noexcept { return (w + 0x7FFFU + ((w >> 16) & 1U)) >> 16; }

// A binary32 result whose BF16 narrowing the caller recomputes exactly:
// exponent field 0 (zero, subnormal: the binary32 rounding may differ from
// BF16's) or all ones (NaN: PTO returns the canonical NaN; infinity).
constexpr bool bf16_needs_exact(std::uint32_t w) noexcept {
  const std::uint32_t e = w & 0x7F800000U;
  return e == 0 || e == 0x7F800000U;
}

// What a BF16 loop reports: some result needs the exact path (`special`),
// some binary32 result has a nonzero low half (`inexact`: its narrowing is
// inexact; only the loops asked to (Low) compute it).
struct Bf16Summary {
  bool special = false;
  bool inexact = false;
};
constexpr Bf16Summary operator|(Bf16Summary x, Bf16Summary y) noexcept {
  return {x.special || y.special, x.inexact || y.inexact};
}

template <Op O>
PTO_NUM_CLONES bool bf16_binary_lanes(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                                      std::size_t n) noexcept {
  std::uint32_t flagged = 0;  // no short circuit: the loop vectorises
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t w = std::bit_cast<std::uint32_t>(
        apply<O>(std::bit_cast<float>(std::uint32_t{a[i]} << 16), std::bit_cast<float>(std::uint32_t{b[i]} << 16)));
    flagged |= static_cast<std::uint32_t>(bf16_needs_exact(w));
    out[i] = static_cast<std::uint16_t>(carry_add_rne(w));
  }
  return flagged != 0;
}

// ---- FP32 -> BF16 narrowing of common spans ----

// The rounded BF16 exponent field in [1 << 8, 0xFE << 7]: the result is
// normal, finite and at least 2^-125, so the source was normal and not tiny
// (a rounded exponent of -126 may come from a tiny source, e.g.
// 0x007FBFFF, whose UF the exact converter raises).
constexpr std::uint16_t kRoundedExponentBias = 0x0100;
constexpr std::uint16_t kRoundedExponentSpan = 0x7F00 - kRoundedExponentBias;

// What a narrowing loop reports for its elements: all common, and then
// whether some is inexact (meaningless otherwise).
struct NarrowSummary {
  bool common = true;
  bool inexact = false;
};

// The tier's block loop Block over consecutive blocks of kNarrowBlock
// elements, each summarised into NarrowBlocks.  Always inlined into the
// tier's entry point, whose target lets Block inline in turn: one call a
// span, no dispatch a block.
template <auto Block>
[[gnu::always_inline]] inline NarrowBlocks narrow_blocks(const std::uint32_t* in, std::uint16_t* out,
                                                         std::size_t n) noexcept {
  NarrowBlocks s;
  for (std::size_t k = 0; k * kNarrowBlock < n; ++k) {
    const std::size_t first = k * kNarrowBlock;
    const NarrowSummary b = Block(in + first, out + first, std::min(kNarrowBlock, n - first));
    if (b.common) s.inexact = s.inexact || b.inexact;
    else s.uncommon |= std::uint64_t{1} << k;
  }
  return s;
}

PTO_NUM_CLONES NarrowSummary bf16_narrow_lanes(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  std::uint32_t bits = 0;
  std::uint16_t worst = 0;  // reductions: the loop vectorises
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t x = in[i];
    const auto r = static_cast<std::uint16_t>(carry_add_rne(x));
    out[i] = r;
    bits |= x;
    worst = std::max(worst, static_cast<std::uint16_t>((r & 0x7F80U) - kRoundedExponentBias));
  }
  return {worst <= kRoundedExponentSpan, (bits & 0xFFFFU) != 0};
}

// ---- ADR 0050 MAX/MIN ----

// TileFloatingOrderKey on a carrier, as a signed integer: monotonic in
// value with -0 (key -1) below +0 (key 0), so MAX/MIN of non-NaN operands
// (ties: MAX +0, MIN -0, else equal bits) is a signed key comparison that
// keeps the left operand on ties.  Negative encodings flip their magnitude
// bits.
template <typename T>
constexpr std::make_signed_t<T> order_key(T v) noexcept {
  using S = std::make_signed_t<T>;
  constexpr unsigned shift = sizeof(T) * 8 - 1;
  const T flip = static_cast<T>(static_cast<T>(0 - static_cast<T>(v >> shift)) >> 1);
  return static_cast<S>(static_cast<T>(v ^ flip));
}

// Either operand a NaN (magnitude above +infinity): one signed maximum of
// the magnitudes (both below the sign bit), one compare.
template <typename T>
constexpr bool either_nan_bits(T x, T y, T inf) noexcept {
  using S = std::make_signed_t<T>;
  constexpr T magnitude = static_cast<T>(~(T{1} << (sizeof(T) * 8 - 1)));
  return std::max(static_cast<S>(x & magnitude), static_cast<S>(y & magnitude)) > static_cast<S>(inf);
}

template <bool Max, typename T>
PTO_NUM_CLONES bool min_max_lanes(T inf, const T* a, const T* b, T* out, std::size_t n) noexcept {
  T nan = 0;  // no short circuit: the loop vectorises
  for (std::size_t i = 0; i < n; ++i) {
    const T x = a[i], y = b[i];
    const bool left = Max ? order_key(x) >= order_key(y) : order_key(x) <= order_key(y);
    nan |= static_cast<T>(either_nan_bits(x, y, inf));
    out[i] = left ? x : y;
  }
  return nan != 0;
}

// ---- ieee FP32/FP64 arithmetic whose flags the host's MXCSR records ----

// One host operation per element; NaN results are reported (an integer
// OR-reduction, so the loop vectorises).  No other floating-point
// instruction runs: the sticky MXCSR flags afterwards are exactly those of
// the n operations.  Out of line (an ifunc call), so the caller's MXCSR
// accesses stay around it.
template <Op O, typename T>
PTO_NUM_CLONES bool host_scalar_lanes(const T* a, T scalar, T* out, std::size_t n) noexcept {
  using F = std::conditional_t<sizeof(T) == 4, float, double>;
  constexpr auto inf = static_cast<T>(sizeof(T) == 4 ? 0x7F800000ULL : 0x7FF0000000000000ULL);
  const F y = std::bit_cast<F>(scalar);
  T nan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T z = std::bit_cast<T>(apply<O>(std::bit_cast<F>(a[i]), y));
    out[i] = z;
    nan |= static_cast<T>(either_nan_bits(z, z, inf));
  }
  return nan != 0;
}

template <typename T>
bool host_scalar(Op op, const T* a, T scalar, T* out, std::size_t n) noexcept {
  switch (op) {
    case Op::ADD: return host_scalar_lanes<Op::ADD>(a, scalar, out, n);
    case Op::SUB: return host_scalar_lanes<Op::SUB>(a, scalar, out, n);
    case Op::MUL: return host_scalar_lanes<Op::MUL>(a, scalar, out, n);
    default: return host_scalar_lanes<Op::DIV>(a, scalar, out, n);
  }
}

// A row's extreme as the signed maximum (minimum) of the order keys: the
// key is its own inverse (it keeps the sign bit and flips the magnitude
// bits of negative encodings), so the winning key decodes to its element.
// Integer reductions, so the loop vectorises.
template <bool Max, typename T>
PTO_NUM_CLONES bool row_extremes_lanes(T inf, const T* first, std::size_t stride, std::uint32_t rows,
                                       std::uint32_t columns, T* out, std::size_t out_stride) noexcept {
  T nan = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    const T* row = first + r * stride;
    auto best = order_key(row[0]);
    for (std::uint32_t c = 0; c < columns; ++c) {
      const auto k = order_key(row[c]);
      best = Max ? std::max(best, k) : std::min(best, k);
      nan |= static_cast<T>(either_nan_bits(row[c], row[c], inf));
    }
    out[r * out_stride] = static_cast<T>(order_key(static_cast<T>(best)));
  }
  return nan != 0;
}

// Columns: out holds the running keys (as carriers) until the last row.
template <bool Max, typename T>
PTO_NUM_CLONES bool column_extremes_lanes(T inf, const T* first, std::size_t stride, std::uint32_t rows,
                                          std::uint32_t columns, T* out) noexcept {
  using S = std::make_signed_t<T>;
  T nan = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    const T* row = first + r * stride;
    for (std::uint32_t c = 0; c < columns; ++c) {
      const S k = order_key(row[c]);
      const S best = r == 0 ? k : Max ? std::max(static_cast<S>(out[c]), k) : std::min(static_cast<S>(out[c]), k);
      out[c] = static_cast<T>(best);
      nan |= static_cast<T>(either_nan_bits(row[c], row[c], inf));
    }
  }
  for (std::uint32_t c = 0; c < columns; ++c) out[c] = static_cast<T>(order_key(out[c]));
  return nan != 0;
}

template <typename T>
bool column_extremes_of(bool max, T inf, const T* first, std::size_t stride, std::uint32_t rows, std::uint32_t columns,
                        T* out) noexcept {
  return max ? column_extremes_lanes<true>(inf, first, stride, rows, columns, out)
             : column_extremes_lanes<false>(inf, first, stride, rows, columns, out);
}

template <typename T>
bool row_extremes_of(bool max, T inf, const T* first, std::size_t stride, std::uint32_t rows, std::uint32_t columns,
                     T* out, std::size_t out_stride) noexcept {
  return max ? row_extremes_lanes<true>(inf, first, stride, rows, columns, out, out_stride)
             : row_extremes_lanes<false>(inf, first, stride, rows, columns, out, out_stride);
}

// ---- FP32 exp ----
//
// Tiers, each vouching only for the roundings it can prove (docs/numerics.md,
// TEXP FP32): the AVX2+FMA loop evaluates eight lanes in binary32 with an
// error bound and marks the lanes whose rounding that bound leaves open
// (about 1 in 500); the binary64 evaluation below redoes those (and is the
// portable loop for every element); what it cannot decide (about one
// random element in 2^18) stays slow for the caller's exact path.
//
// Binary64: exp(x) = 2^k exp(r), k = round(x / ln2), r = x - k ln2 with a two-part
// ln2 (the 32-bit high part times |k| <= 126 and x - k ln2_hi are exact),
// |r| <= ln2/2 (1 + 2^-20).  exp(r) is a degree-9 polynomial: the
// Chebyshev fit of exp on that interval (mpmath chebyfit, coefficients
// rounded to binary64) has relative error below 2^-45.6 there; argument
// reduction and evaluation add a few 2^-53.  The result is normal for
// 0 < |x| <= 87 (e^-87 > 2^-126, e^87 < 2^128), so 2^k is an exponent add.
constexpr double kInvLn2 = 0x1.71547652b82fep0;
constexpr double kLn2Hi = 0x1.62e42feep-1;
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
constexpr double kRound = 0x1.8p52;  // adding it rounds to an integer (|value| < 2^51), k in the low bits
constexpr double kExpCoefficients[10] = {0x1.000000000003dp+0, 0x1.0000000000006p+0, 0x1.ffffffffe74f0p-2,
                                         0x1.5555555550d87p-3, 0x1.55555588b8538p-5, 0x1.11111123bf1c5p-7,
                                         0x1.6c162bb7b3ef5p-10, 0x1.a01994c82e1c6p-13, 0x1.a17df105a3981p-16,
                                         0x1.72e107e8d8eb6p-19};
constexpr std::uint32_t kExpFastLimit = 0x42ae0000;  // 87.0f
// Half-width of the window around each binary32 midpoint, in binary64
// ulps: 2^10 ulps >= 2^-43 relative, above the evaluation error.  Only
// midpoints matter: the exact path raises NX for every nonzero finite
// argument (its sticky bit), so a result near a binary32 value rounds to it
// either way.
constexpr std::uint64_t kExpTolerance = std::uint64_t{1} << 10;
// A binary64 value of the binary32 exponent range is a binary32 midpoint
// when its low 29 bits (those binary32 drops) are 1 followed by 28 zeros.
constexpr std::uint64_t kDroppedBits = (std::uint64_t{1} << 29) - 1;
constexpr std::uint64_t kMidpointBits = std::uint64_t{1} << 28;

constexpr bool exp_fast_range(std::uint32_t v) noexcept { return (v & 0x7FFFFFFFU) - 1U < kExpFastLimit; }

// Within kExpTolerance ulps of a binary32 midpoint.
constexpr bool near_fp32_midpoint(std::uint64_t bits) noexcept {
  return ((bits + kExpTolerance - kMidpointBits) & kDroppedBits) < 2 * kExpTolerance;
}

double exp_binary64(double x) noexcept {
  const double shifted = x * kInvLn2 + kRound;
  const double k = shifted - kRound;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = kExpCoefficients[9];
  for (int i = 8; i >= 0; --i) p = p * r + kExpCoefficients[i];
  const std::uint64_t scale = std::bit_cast<std::uint64_t>(shifted) << 52;  // k mod 2^12 in the exponent field
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(p) + scale);
}

// Elements [first, n): sets bit i % 64 of slow[i / 64] for each slow one.
PTO_NUM_CLONES bool exp_fp32_lanes(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow,
                                   std::size_t first, std::size_t n) noexcept {
  std::uint32_t any = 0;
  for (std::size_t i = first; i < n; ++i) {
    const std::uint32_t v = in[i];
    const bool fast = exp_fast_range(v);
    // Other lanes evaluate exp(+0), branch-free.
    const double y = exp_binary64(static_cast<double>(std::bit_cast<float>(v & (0U - static_cast<std::uint32_t>(fast)))));
    const bool s = !fast || near_fp32_midpoint(std::bit_cast<std::uint64_t>(y));
    slow[i / 64] |= std::uint64_t{s} << (i % 64);
    any |= static_cast<std::uint32_t>(s);
    out[i] = std::bit_cast<std::uint32_t>(static_cast<float>(y));
  }
  return any != 0;
}

#ifdef PTO_HAVE_AVX2_PATH

#define PTO_AVX2 __attribute__((target("avx2")))

// A region of functions compiled for a target (each compiler's pragma):
// the width-generic loops are included once per width inside one.
#if defined(__clang__)
#define PTO_TARGET_BEGIN(s) _Pragma(PTO_STRINGIFY(clang attribute push(__attribute__((target(s))), apply_to = function)))
#define PTO_TARGET_END _Pragma("clang attribute pop")
#else
#define PTO_TARGET_BEGIN(s) _Pragma("GCC push_options") _Pragma(PTO_STRINGIFY(GCC target(s)))
#define PTO_TARGET_END _Pragma("GCC pop_options")
#endif
#define PTO_STRINGIFY(x) #x

PTO_AVX2 __m256i load8(const std::uint32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

PTO_AVX2 __m256i carry_add_rne8(__m256i w) {
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(w, 16), _mm256_set1_epi32(1));
  return _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(w, _mm256_set1_epi32(0x7FFF)), lsb), 16);
}

// The running unsigned maximum of (rounded exponent field - bias) over
// sixteen BF16 results (kRoundedExponentBias / kRoundedExponentSpan).
PTO_AVX2 __m256i worst_exponent16(__m256i worst, __m256i r) {
  const __m256i e = _mm256_and_si256(r, _mm256_set1_epi16(0x7F80));
  return _mm256_max_epu16(worst, _mm256_sub_epi16(e, _mm256_set1_epi16(kRoundedExponentBias)));
}

PTO_AVX2 bool exponent_out_of_span(__m256i worst) {
  const __m256i over = _mm256_cmpeq_epi16(_mm256_max_epu16(worst, _mm256_set1_epi16(kRoundedExponentSpan + 1)), worst);
  return !_mm256_testz_si256(over, over);
}

// Sixteen elements a step.  The even BF16 of each 32-bit pair widens by a
// shift, the odd one by masking; after the operation the even result's
// rounded top half shifts down and the odd one's stays in place, so one
// 16-bit blend restores element order.  A binary32 result with exponent
// field 0 or all ones (zero, subnormal, NaN, infinity) rounds to a BF16
// exponent field of 0, 1 or all ones, which the exponent span check flags
// (with some harmless extra results, e.g. overflow or the smallest normals).
// Low: also OR the binary32 results' low halves (Bf16Summary::inexact).
// Scalar: b is one element, the right operand of every lane, and n a
// multiple of 16 (simd::padded_steps).
template <Op O, bool Low, bool Scalar = false>
PTO_AVX2 Bf16Summary bf16_binary_avx2(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                                      std::size_t n) noexcept {
  const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000U));
  const __m256i half = _mm256_set1_epi32(0x7FFF), one = _mm256_set1_epi32(1);
  __m256i worst = _mm256_setzero_si256(), low = worst;
  std::size_t i = 0;
  // Two steps per iteration (GCC and clang): the loop overhead is a tenth of a step.
#pragma GCC unroll 2
  for (; i + 16 <= n; i += 16) {
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i vb = Scalar ? _mm256_set1_epi16(static_cast<short>(b[0]))
                              : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
    __m256i w[2];
    for (int odd = 0; odd < 2; ++odd) {
      const __m256 x = _mm256_castsi256_ps(odd ? _mm256_and_si256(va, high) : _mm256_slli_epi32(va, 16));
      const __m256 y = _mm256_castsi256_ps(odd ? _mm256_and_si256(vb, high) : _mm256_slli_epi32(vb, 16));
      __m256 z;
      if constexpr (O == Op::ADD) z = _mm256_add_ps(x, y);
      else if constexpr (O == Op::SUB) z = _mm256_sub_ps(x, y);
      else if constexpr (O == Op::MUL) z = _mm256_mul_ps(x, y);
      else z = _mm256_div_ps(x, y);
      const __m256i zi = _mm256_castps_si256(z);
      if constexpr (Low) low = _mm256_or_si256(low, zi);
      const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(zi, 16), one);
      w[odd] = _mm256_add_epi32(_mm256_add_epi32(zi, half), lsb);  // carry_add_rne before its shift
    }
    const __m256i r = _mm256_blend_epi16(_mm256_srli_epi32(w[0], 16), w[1], 0xAA);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
    worst = worst_exponent16(worst, r);
  }
  const bool tail = !Scalar && bf16_binary_lanes<O>(a + i, b + i, out + i, n - i);
  return {tail || exponent_out_of_span(worst), !_mm256_testz_si256(low, _mm256_set1_epi32(0xFFFF))};
}

PTO_AVX2 NarrowSummary bf16_narrow_avx2(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  __m256i bits = _mm256_setzero_si256(), worst = bits;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i x0 = load8(in + i), x1 = load8(in + i + 8);
    // The pack interleaves 128-bit halves; the permutation restores order.
    const __m256i r = _mm256_permute4x64_epi64(_mm256_packus_epi32(carry_add_rne8(x0), carry_add_rne8(x1)), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
    bits = _mm256_or_si256(bits, _mm256_or_si256(x0, x1));
    worst = worst_exponent16(worst, r);
  }
  const NarrowSummary tail = i < n ? bf16_narrow_lanes(in + i, out + i, n - i) : NarrowSummary{};  // whole blocks: none
  const bool inexact = !_mm256_testz_si256(bits, _mm256_set1_epi32(0xFFFF));
  return {tail.common && !exponent_out_of_span(worst), tail.inexact || inexact};
}

PTO_AVX2 NarrowBlocks bf16_narrow_blocks_avx2(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  return narrow_blocks<bf16_narrow_avx2>(in, out, n);
}

// ---- FP32 exp, binary32 tier (AVX2 + FMA) ----
//
// exp(x) = 2^e T exp(r): k = round(x 16/ln2), j = k mod 16, e = floor(k / 16),
// T = 2^(j/16) = Th (1 + tau) (Th, tau binary32; |T - Th (1 + tau)| < 2^-49.3 T),
// r = x - k ln2/16 = rh + l.  The loops carry kq = k/16 (the shifter
// 1.5 2^19 rounds x 16/ln2 / 16 to a multiple of 1/16, so kq's low four
// mantissa bits are j and the ones above e), and every constant it
// multiplies is scaled by 16 (exact).  rh = x - k C1 is exact in one FMA
// (C1 = RN(ln2/16) is a multiple of 2^-28; k != 0 needs |x| > 2^-6, a
// multiple of 2^-29, and |rh| <= 0.02167 < 2^-5), l = -k (ln2/16 - C1) is
// below 2^-21.9, and s = RN(tau - k C2) stands for tau + l.  Then
// exp(x) / 2^e = Th exp(rh) (1 + s) up to 2^-43 relative, evaluated as
// yh + low:
//   yh  = RN(Th + Th rh), eps = RN(Th rh + (Th - yh)): Th - yh is exact and
//         Th rh + (Th - yh) is the rounding error of yh (below 2^-24), so
//         eps is that error to 2^-48;
//   P   = RN(Th RN(rh rh)/2) ~ Th H, H = rh^2/2, and
//   q1  = RN(1 + rh RN(c1 + c2 rh)) ~ 1 + Q, Q = (exp(rh) - 1 - rh)/H - 1
//         (c1, c2 binary32, fitted on |rh| <= 0.02167: |Q - rh (c1 + c2 rh)|
//         <= 4.26e-8), so P q1 ~ Th (exp(rh) - 1 - rh);
//   low = RN(P q1 + RN(s RN(P + yh) + eps)).
// |yh + low - exp(x)/2^e| <= 9.1e-11 (2^-33.4; the terms are summed in
// docs/numerics.md).  Lp = RN(low + delta) and Lm = RN(low - delta) lie
// beyond low +- (delta - 2^-36) (|low| < 2^-11), so a binary32 midpoint within
// 9.1e-11 of yh + low (where exp(x)/2^e and the exact path's value, error
// below 2^-62, both lie) separates RN(yh + Lp) from RN(yh + Lm).  When the two
// agree, that value is exp(x)/2^e correctly rounded, as the exact path rounds
// it.  yh + low lies in [0.97, 1.96], so the result is normal in the fast
// range and scaling by 2^e is exact.
// The table holds Th/2: Th is one exact add (on an adder, not an FMA
// unit) and P = RN((Th/2) RN(rh rh)).  Only for |rh| < 2^-62 (k = 0, tiny
// x) can RN(rh rh) or P underflow; those terms are then below 2^-120, far
// inside the error bound.  The vector loops scale the result by 2^e with
// VSCALEFPS (AVX-512) or an exponent add (AVX2).
alignas(64) constexpr float kExpTableHalfHi[16] = {
    0x1p-1f,        0x1.0b5586p-1f, 0x1.172b84p-1f, 0x1.2387a6p-1f, 0x1.306fe0p-1f, 0x1.3dea64p-1f,
    0x1.4bfdaep-1f, 0x1.5ab07ep-1f, 0x1.6a09e6p-1f, 0x1.7a1148p-1f, 0x1.8ace54p-1f, 0x1.9c4918p-1f,
    0x1.ae89fap-1f, 0x1.c199bep-1f, 0x1.d5818ep-1f, 0x1.ea4afap-1f};
alignas(64) constexpr float kExpTableTau[16] = {
    0.0f,            0x1.8d96d4p-25f, -0x1.9c0c22p-27f, 0x1.964904p-25f, 0x1.125002p-25f,  0x1.370be4p-25f,
    -0x1.0a3550p-25f, -0x1.00d8acp-27f, 0x1.26055cp-26f, -0x1.05cb44p-25f, 0x1.67a1cap-28f, 0x1.a3b5e4p-28f,
    -0x1.f9c304p-27f, -0x1.6961b4p-28f, -0x1.a5217cp-28f, 0x1.61428ep-28f};
constexpr float kExp16InvC = 0x1.715476p+0f;   // RN(16 / ln2) / 16
constexpr float kExp16C1 = 0x1.62e430p-1f;     // RN(ln2 / 16) 16
constexpr float kExp16C2 = -0x1.05c610p-29f;   // RN(ln2 / 16 - C1) 16
constexpr float kExp16Shift = 0x1.8p19f;       // adding it rounds to a multiple of 1/16: kq in the low bits
constexpr float kExp16Q1 = 0x1.5556e0p-2f, kExp16Q2 = 0x1.555656p-4f;  // c1 ~ 1/3, c2 ~ 1/12
constexpr float kExp16Delta = 0x1p-33f;  // 1.16e-10 > 9.1e-11 + 2^-36
// Lanes outside 0 < |x| <= 87: 2 |x| bits - 2 (wrapping for zero), biased
// for a signed compare, exceeds 2 * 87.0f bits - 2.
constexpr auto kExpRangeBias = static_cast<int>(0x80000000U - 2U);
constexpr auto kExpRangeLimit = static_cast<int>(0x80000000U + 2U * kExpFastLimit - 2U);

// A batch of the binary64 tier: the in-range arguments the binary32 tier
// left open, gathered with their positions (entries [0, count) live).
struct ExpBatch {
  static constexpr std::size_t kSize = 64;
  static constexpr std::size_t kGroup = 16;  // evaluated in whole groups (the vectorised loop's step)
  std::size_t count;
  std::array<std::size_t, kSize> at;
  std::array<float, kSize> x;
  std::array<std::uint32_t, kSize> y, open;
};

// The binary64 evaluation of a batch, whole groups of lanes the compiler
// vectorises (in each clone; no scalar remainder): y[k] is exp(x[k])
// rounded to binary32 and open[k] is 1 when that rounding is too near a
// midpoint to vouch for.  The lanes from count to the group's end carry
// +0, their results unused.
PTO_NUM_CLONES void exp_binary64_batch(ExpBatch& b) noexcept {
  std::size_t end = b.count;
  for (; end % ExpBatch::kGroup != 0; ++end) b.x[end] = 0.0f;
  for (std::size_t k = 0; k < end; ++k) {
    const double e = exp_binary64(static_cast<double>(b.x[k]));
    b.open[k] = static_cast<std::uint32_t>(near_fp32_midpoint(std::bit_cast<std::uint64_t>(e)));
    b.y[k] = std::bit_cast<std::uint32_t>(static_cast<float>(e));
  }
}

// Evaluates the batch and clears the slow mark of each element it decides;
// returns true when some element stays slow.
bool refine_batch(ExpBatch& b, std::uint32_t* out, std::uint64_t* slow) noexcept {
  exp_binary64_batch(b);
  std::uint32_t open = 0;
  for (std::size_t k = 0; k < b.count; ++k) {
    open |= b.open[k];
    if (b.open[k] != 0) continue;
    out[b.at[k]] = b.y[k];
    slow[b.at[k] / 64] &= ~(std::uint64_t{1} << (b.at[k] % 64));
  }
  b.count = 0;
  return open != 0;
}

// The binary64 tier over the slow words the binary32 tier left nonzero
// (their indices listed[0, count)): the marked elements are gathered
// branch-free (an out-of-range one is overwritten by the next) and
// evaluated a whole batch at a time.  Returns true when some element stays
// slow.
bool refine_exp_binary64(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, const std::uint32_t* listed,
                         std::size_t count) noexcept {
  ExpBatch b;
  b.count = 0;
  bool open = false;
  for (std::size_t k = 0; k < count; ++k)
    for (std::uint64_t bits = slow[listed[k]]; bits != 0; bits &= bits - 1) {
      const std::size_t i = std::size_t{listed[k]} * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      const bool fast = exp_fast_range(in[i]);
      b.at[b.count] = i;
      b.x[b.count] = std::bit_cast<float>(in[i]);
      b.count += static_cast<std::size_t>(fast);
      open = open || !fast;
      if (b.count == ExpBatch::kSize) open = refine_batch(b, out, slow) || open;
    }
  return refine_batch(b, out, slow) || open;
}

// The binary32 tier on eight lanes (AVX2 + FMA).
PTO_TARGET_BEGIN("avx2,fma")
namespace exp8 {
struct V {
  using F = __m256;
  using I = __m256i;
  static constexpr std::size_t kLanes = 8;
  static I load(const std::uint32_t* p) { return load8(p); }
  static void store(std::uint32_t* p, I v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static F to_float(I v) { return _mm256_castsi256_ps(v); }
  static I to_int(F v) { return _mm256_castps_si256(v); }
  static F splat(float v) { return _mm256_set1_ps(v); }
  static I splat(int v) { return _mm256_set1_epi32(v); }
  // A 16-entry table as two registers: the permutation reads the index's
  // low three bits, and bit 3 (moved to the sign) picks the half.
  struct Table {
    F low, high;
  };
  static Table table(const float (&t)[16]) { return {_mm256_load_ps(t), _mm256_load_ps(t + 8)}; }
  static F lookup(const Table& t, I index) {  // index mod 16
    const __m256 upper = _mm256_castsi256_ps(_mm256_slli_epi32(index, 28));
    return _mm256_blendv_ps(_mm256_permutevar8x32_ps(t.low, index), _mm256_permutevar8x32_ps(t.high, index), upper);
  }
  static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static F fnmadd(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  // y 2^floor(kq): the shifter's bits of kq above its four fraction bits
  // are floor(kq) (its own high bits drop out of the exponent field).
  static F scale(F y, F /*kq*/, F shifted) {
    const I e = _mm256_slli_epi32(_mm256_srai_epi32(_mm256_castps_si256(shifted), 4), 23);
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), e));
  }
  // The lanes with a <= limit (signed) and x == y, one bit each.
  static unsigned fast(I a, I limit, F x, F y) {
    const __m256 beyond = _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, limit));
    return static_cast<unsigned>(_mm256_movemask_ps(_mm256_andnot_ps(beyond, _mm256_cmp_ps(x, y, _CMP_EQ_OQ))));
  }
};
#include "numerics/exp_binary32.inc"
}  // namespace exp8
PTO_TARGET_END

// ---- AVX-512 (F, BW, BF16): the same loops on 512-bit vectors ----

// GCC 12's unmasked AVX-512 intrinsics merge into an undefined vector,
// which -Wmaybe-uninitialized (and, where inlined into a helper,
// -Wuninitialized) reports at every use.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#define PTO_AVX512 __attribute__((target("avx512f,avx512bw,avx512bf16")))

template <typename T>
PTO_AVX512 __m512i load512(const T* p) {
  return _mm512_loadu_si512(p);
}
template <typename T>
PTO_AVX512 void store512(T* p, __m512i v) {
  _mm512_storeu_si512(p, v);
}

// VCVTNE2PS2BF16: RNE narrowing of 32 binary32 values, `low` into the low
// sixteen BF16 lanes.  For a result with a nonzero, non-all-ones exponent
// field it equals carry_add_rne (overflow to infinity included); it
// flushes subnormals and quiets NaNs, whose lanes the exponent span check
// flags as carry_add_rne's do.
PTO_AVX512 __m512i narrow_bf16_pair(__m512 low, __m512 high) {
  return (__m512i)_mm512_cvtne2ps_pbh(high, low);  // a vector bit cast: no intrinsic converts __m512bh
}

PTO_AVX512 __m512i worst_exponent32(__m512i worst, __m512i r) {
  const __m512i e = _mm512_and_si512(r, _mm512_set1_epi16(0x7F80));
  return _mm512_max_epu16(worst, _mm512_sub_epi16(e, _mm512_set1_epi16(kRoundedExponentBias)));
}

PTO_AVX512 bool exponent_out_of_span512(__m512i worst) {
  return _mm512_cmpgt_epu16_mask(worst, _mm512_set1_epi16(kRoundedExponentSpan)) != 0;
}

// Thirty-two elements a step, split into even and odd BF16 as in the AVX2
// loop; the narrowing packs the even results low and the odd ones high,
// and one word permutation restores element order.  The running summary
// of the steps (Bf16Summary's exponent span and low halves).
struct Bf16Steps512 {
  __m512i worst, low;
};

template <Op O, bool Low>
PTO_AVX512 void bf16_step512(__m512i va, __m512i vb, std::uint16_t* out, Bf16Steps512& s) {
  alignas(64) static constexpr std::uint16_t kInterleave[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,
                                                                21, 6, 22, 7, 23, 8,  24, 9,  25, 10, 26,
                                                                11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000U));
  __m512 z[2];
  for (int odd = 0; odd < 2; ++odd) {
    const __m512 x = _mm512_castsi512_ps(odd ? _mm512_and_si512(va, high) : _mm512_slli_epi32(va, 16));
    const __m512 y = _mm512_castsi512_ps(odd ? _mm512_and_si512(vb, high) : _mm512_slli_epi32(vb, 16));
    if constexpr (O == Op::ADD) z[odd] = _mm512_add_ps(x, y);
    else if constexpr (O == Op::SUB) z[odd] = _mm512_sub_ps(x, y);
    else if constexpr (O == Op::MUL) z[odd] = _mm512_mul_ps(x, y);
    else z[odd] = _mm512_div_ps(x, y);
  }
  const __m512i r = _mm512_permutexvar_epi16(_mm512_load_si512(kInterleave), narrow_bf16_pair(z[0], z[1]));
  store512(out, r);
  s.worst = worst_exponent32(s.worst, r);
  if constexpr (Low)
    s.low = _mm512_ternarylogic_epi32(s.low, _mm512_castps_si512(z[0]), _mm512_castps_si512(z[1]), 0xFE);  // A | B | C
}

// Two steps an iteration, both steps' operands loaded before either
// result is stored: the tiles' sources and destination sit at the same
// offsets modulo 4 KiB, and a store ahead of the next step's loads made
// them wait (a stand-alone loop on 64 KiB: 1.65 -> 1.15 ns per 32
// elements).
// The right operands of elements [at, at + 32): b's, or with Scalar b[0].
template <bool Scalar>
PTO_AVX512 __m512i right512(const std::uint16_t* b, std::size_t at) {
  return Scalar ? _mm512_set1_epi16(static_cast<short>(b[0])) : load512(b + at);
}

template <Op O, bool Low, bool Scalar = false>
PTO_AVX512 Bf16Summary bf16_binary_avx512(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                                          std::size_t n) noexcept {
  const auto right = right512<Scalar>;
  Bf16Steps512 s{_mm512_setzero_si512(), _mm512_setzero_si512()};
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i va0 = load512(a + i), vb0 = right(b, i), va1 = load512(a + i + 32), vb1 = right(b, i + 32);
    bf16_step512<O, Low>(va0, vb0, out + i, s);
    bf16_step512<O, Low>(va1, vb1, out + i + 32, s);
  }
  if (i + 32 <= n) {
    bf16_step512<O, Low>(load512(a + i), right(b, i), out + i, s);
    i += 32;
  }
  const bool tail = !Scalar && bf16_binary_lanes<O>(a + i, b + i, out + i, n - i);
  return {tail || exponent_out_of_span512(s.worst), _mm512_test_epi32_mask(s.low, _mm512_set1_epi32(0xFFFF)) != 0};
}

PTO_AVX512 NarrowSummary bf16_narrow_avx512(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  __m512i bits = _mm512_setzero_si512(), worst = bits;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i x0 = load512(in + i), x1 = load512(in + i + 16);
    const __m512i r = narrow_bf16_pair(_mm512_castsi512_ps(x0), _mm512_castsi512_ps(x1));
    store512(out + i, r);
    bits = _mm512_or_si512(bits, _mm512_or_si512(x0, x1));
    worst = worst_exponent32(worst, r);
  }
  const NarrowSummary tail = i < n ? bf16_narrow_lanes(in + i, out + i, n - i) : NarrowSummary{};  // whole blocks: none
  const bool inexact = _mm512_test_epi32_mask(bits, _mm512_set1_epi32(0xFFFF)) != 0;
  return {tail.common && !exponent_out_of_span512(worst), tail.inexact || inexact};
}

PTO_AVX512 NarrowBlocks bf16_narrow_blocks_avx512(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  return narrow_blocks<bf16_narrow_avx512>(in, out, n);
}

// The element-width operations of the MAX/MIN loop.
template <typename T>
PTO_AVX512 __m512i broadcast512(T v) {
  if constexpr (sizeof(T) == 2) return _mm512_set1_epi16(static_cast<short>(v));
  else if constexpr (sizeof(T) == 4) return _mm512_set1_epi32(static_cast<int>(v));
  else return _mm512_set1_epi64(static_cast<long long>(v));
}
template <typename T>
PTO_AVX512 __m512i sign_fill512(__m512i v) {
  if constexpr (sizeof(T) == 2) return _mm512_srai_epi16(v, 15);
  else if constexpr (sizeof(T) == 4) return _mm512_srai_epi32(v, 31);
  else return _mm512_srai_epi64(v, 63);
}
template <typename T>
PTO_AVX512 __m512i signed_max512(__m512i x, __m512i y) {
  if constexpr (sizeof(T) == 2) return _mm512_max_epi16(x, y);
  else if constexpr (sizeof(T) == 4) return _mm512_max_epi32(x, y);
  else return _mm512_max_epi64(x, y);
}
template <typename T, int Predicate>
PTO_AVX512 std::uint64_t signed_compare512(__m512i x, __m512i y) {
  if constexpr (sizeof(T) == 2) return _mm512_cmp_epi16_mask(x, y, Predicate);
  else if constexpr (sizeof(T) == 4) return _mm512_cmp_epi32_mask(x, y, Predicate);
  else return _mm512_cmp_epi64_mask(x, y, Predicate);
}
// Lanes of `take_left` from x, the others from y.
template <typename T>
PTO_AVX512 __m512i select512(std::uint64_t take_left, __m512i x, __m512i y) {
  if constexpr (sizeof(T) == 2) return _mm512_mask_blend_epi16(static_cast<__mmask32>(take_left), y, x);
  else if constexpr (sizeof(T) == 4) return _mm512_mask_blend_epi32(static_cast<__mmask16>(take_left), y, x);
  else return _mm512_mask_blend_epi64(static_cast<__mmask8>(take_left), y, x);
}

// order_key: v ^ (sign fill & magnitude mask), one ternary-logic step.
template <typename T>
PTO_AVX512 __m512i order_key512(__m512i v, __m512i magnitude) {
  return _mm512_ternarylogic_epi32(v, sign_fill512<T>(v), magnitude, 0x78);  // A ^ (B & C)
}

template <bool Max, typename T>
PTO_AVX512 bool min_max_avx512(T inf, const T* a, const T* b, T* out, std::size_t n) noexcept {
  constexpr std::size_t kLanes = 64 / sizeof(T);
  const __m512i magnitude = broadcast512<T>(static_cast<T>(~(T{1} << (sizeof(T) * 8 - 1))));
  const __m512i infinity = broadcast512<T>(inf);
  std::uint64_t nan = 0;
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const __m512i x = load512(a + i), y = load512(b + i);
    const __m512i kx = order_key512<T>(x, magnitude), ky = order_key512<T>(y, magnitude);
    const std::uint64_t left = signed_compare512<T, Max ? _MM_CMPINT_NLT : _MM_CMPINT_LE>(kx, ky);
    store512(out + i, select512<T>(left, x, y));
    const __m512i larger = signed_max512<T>(_mm512_and_si512(x, magnitude), _mm512_and_si512(y, magnitude));
    nan |= signed_compare512<T, _MM_CMPINT_NLE>(larger, infinity);
  }
  const bool tail = min_max_lanes<Max>(inf, a + i, b + i, out + i, n - i);
  return tail || nan != 0;
}

// r[k] lane c -> r[c] lane k for a 16 x 16 block of floats: pairs of
// rows interleave by element, then by element pair, then 128-bit quarters
// twice.
PTO_AVX512 void transpose16(__m512 (&r)[16]) {
  __m512 t[16], u[16], v[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 2]);
    const __m512d c = _mm512_castps_pd(t[4 * i + 1]), d = _mm512_castps_pd(t[4 * i + 3]);
    u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
    u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
    u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
  }
  for (int h = 0; h < 2; ++h)
    for (int j = 0; j < 4; ++j) {
      v[8 * h + j] = _mm512_shuffle_f32x4(u[8 * h + j], u[8 * h + 4 + j], 0x88);
      v[8 * h + 4 + j] = _mm512_shuffle_f32x4(u[8 * h + j], u[8 * h + 4 + j], 0xdd);
    }
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_f32x4(v[j], v[8 + j], 0x88);
    r[8 + j] = _mm512_shuffle_f32x4(v[j], v[8 + j], 0xdd);
  }
}

// Sixteen rows side by side: blocks of 16 columns are loaded row by row
// (rows past `rows` are zero, their lanes unused) and transposed in
// registers, then each valid column is one step of every lane.  Columns
// past `columns` are never added (adding +0 would turn a -0 sum into +0).
// Lanes past `rows` add zeros: exact, so the host's inexact flag stays the
// rows' own.
PTO_AVX512 void fp32_row_sums16_avx512(const float* first, std::size_t stride, unsigned rows, std::uint32_t columns,
                                       float* sums) noexcept {
  __m512 acc = _mm512_setzero_ps();  // +0: TileProfileReductionInitial of SUM
  for (std::uint32_t c0 = 0; c0 < columns; c0 += 16) {
    const std::uint32_t count = std::min<std::uint32_t>(16, columns - c0);
    const auto valid = static_cast<__mmask16>((1U << count) - 1U);
    __m512 r[16];
    for (unsigned k = 0; k < 16; ++k)
      r[k] = k < rows ? _mm512_maskz_loadu_ps(valid, first + k * stride + c0) : _mm512_setzero_ps();
    transpose16(r);
    for (std::uint32_t c = 0; c < count; ++c) acc = _mm512_add_ps(acc, r[c]);
  }
  _mm512_mask_storeu_ps(sums, static_cast<__mmask16>((1U << rows) - 1U), acc);
}

// ---- FP32 exp, binary32 tier on sixteen lanes ----
//
// The same operations on 512-bit vectors; each 2^(j/16) table is one
// register, indexed by the four-bit permutation index k mod 16.
PTO_TARGET_BEGIN("avx512f,avx512bw,avx512bf16")
namespace exp16 {
struct V {
  using F = __m512;
  using I = __m512i;
  static constexpr std::size_t kLanes = 16;
  static I load(const std::uint32_t* p) { return load512(p); }
  static void store(std::uint32_t* p, I v) { store512(p, v); }
  static F to_float(I v) { return _mm512_castsi512_ps(v); }
  static I to_int(F v) { return _mm512_castps_si512(v); }
  static F splat(float v) { return _mm512_set1_ps(v); }
  static I splat(int v) { return _mm512_set1_epi32(v); }
  using Table = F;
  static Table table(const float (&t)[16]) { return _mm512_load_ps(t); }
  static F lookup(Table table, I index) { return _mm512_permutexvar_ps(index, table); }  // index mod 16
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }
  static F scale(F y, F kq, F /*shifted*/) { return _mm512_scalef_ps(y, kq); }  // y 2^floor(kq)
  // The lanes with a <= limit (signed) and x == y: one masked compare.
  static unsigned fast(I a, I limit, F x, F y) {
    return _mm512_mask_cmp_ps_mask(_mm512_cmple_epi32_mask(a, limit), x, y, _CMP_EQ_OQ);
  }
};
#include "numerics/exp_binary32.inc"
}  // namespace exp16
PTO_TARGET_END

bool detect_avx512() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // CPUID.(EAX=7, ECX=1):EAX bit 5 is AVX512_BF16; __builtin_cpu_supports
  // covers the OS's saving of the ZMM state for AVX512F/BW.
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1U << 5)) != 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool detect_avx2() noexcept { return __builtin_cpu_supports("avx2"); }
bool detect_fma() noexcept { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

#endif  // PTO_HAVE_AVX2_PATH

template <Op O>
bool bf16_binary(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512) return bf16_binary_avx512<O, false>(a, b, out, n).special;
  if (avx2_available()) return bf16_binary_avx2<O, false>(a, b, out, n).special;
#endif
  return bf16_binary_lanes<O>(a, b, out, n);
}

template <bool Max, typename T>
bool min_max_of(T inf, const T* a, const T* b, T* out, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512) return min_max_avx512<Max>(inf, a, b, out, n);
#endif
  return min_max_lanes<Max>(inf, a, b, out, n);  // its AVX2 clone on AVX2 hosts
}

template <typename T>
bool min_max_span(bool max, T inf, const T* a, const T* b, T* out, std::size_t n) noexcept {
  return max ? min_max_of<true>(inf, a, b, out, n) : min_max_of<false>(inf, a, b, out, n);
}

std::atomic<Tier> tier_cap{Tier::Avx512};

Tier host_tier() noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  static const Tier detected = detect_avx512() ? Tier::Avx512 : detect_avx2() ? Tier::Avx2 : Tier::Portable;
  return detected;
#else
  return Tier::Portable;
#endif
}

#ifdef PTO_HAVE_AVX2_PATH
// MXCSR: every exception masked (bits 12:7), round to nearest even
// (14:13 = 0), no FTZ (15) or DAZ (6), sticky flags (5:0) clear.
constexpr std::uint32_t kMxcsrDefault = 0x1F80;
constexpr std::uint32_t kMxcsrFlags = 0x3F;

std::uint32_t read_mxcsr() noexcept {
  std::uint32_t v = 0;
  asm volatile("stmxcsr %0" : "=m"(v) : : "memory");
  return v;
}
void write_mxcsr(std::uint32_t v) noexcept { asm volatile("ldmxcsr %0" : : "m"(v) : "memory"); }

// IE, ZE, OE, UE, PE -> NV, DZ, OF, UF, NX (DE, a denormal operand, is not
// an IEEE flag).
Flags ieee_flags(std::uint32_t mxcsr) noexcept {
  return static_cast<Flags>(((mxcsr & 0x01) ? kNV : 0) | ((mxcsr & 0x04) ? kDZ : 0) | ((mxcsr & 0x08) ? kOF : 0) |
                            ((mxcsr & 0x10) ? kUF : 0) | ((mxcsr & 0x20) ? kNX : 0));
}

template <Op O>
std::optional<HostFlags> bf16_with_flags(const std::uint16_t* a, std::uint16_t scalar, std::uint16_t* out,
                                         std::size_t n) noexcept {
  const Tier tier = active_tier();
  if (tier == Tier::Portable) return std::nullopt;
  const auto loop = [tier, &scalar](const std::uint16_t* x, std::uint16_t* z, std::size_t m) {
    return tier == Tier::Avx512 ? bf16_binary_avx512<O, true, true>(x, &scalar, z, m)
                                : bf16_binary_avx2<O, true, true>(x, &scalar, z, m);
  };
  const Bf16Summary s = padded_steps<32>(loop, a, out, n);
  return HostFlags{s.inexact ? kNX : Flags{0}, s.special};
}
#endif

// ---- FP32 <-> S32 on the host ----
#ifdef PTO_HAVE_AVX2_PATH

// |x| bits at or above 2^31 (or a NaN): the S32 conversion leaves the
// host's reach (indefinite value, IE) or is -2^31 itself.
constexpr std::uint32_t kS32Limit = 0x4F000000;

// Whole steps of sixteen (AVX-512) or four (SSE2, every x86-64) elements;
// simd::padded_steps gives them the span.  Returns whether some source
// reaches kS32Limit.
template <bool Truncate>
PTO_AVX512 bool fp32_to_s32_avx512(const std::uint32_t* in, std::uint32_t* out, std::size_t n) noexcept {
  constexpr __mmask16 kAll = 0xFFFF;  // masked forms: GCC 12's unmasked ones trip -Wmaybe-uninitialized
  const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
  __m512i largest = _mm512_setzero_si512();
  for (std::size_t i = 0; i < n; i += 16) {
    const __m512i x = load512(in + i);
    largest = _mm512_maskz_max_epu32(kAll, largest, _mm512_and_si512(x, magnitude));
    const __m512 f = _mm512_castsi512_ps(x);
    store512(out + i, Truncate ? _mm512_maskz_cvttps_epi32(kAll, f) : _mm512_maskz_cvtps_epi32(kAll, f));
  }
  return _mm512_cmpge_epu32_mask(largest, _mm512_set1_epi32(static_cast<int>(kS32Limit))) != 0;
}

template <bool Truncate>
bool fp32_to_s32_sse2(const std::uint32_t* in, std::uint32_t* out, std::size_t n) noexcept {
  const __m128i magnitude = _mm_set1_epi32(0x7FFFFFFF);
  __m128i special = _mm_setzero_si128();
  for (std::size_t i = 0; i < n; i += 4) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    // Magnitudes are below the sign bit, so a signed compare is exact.
    special = _mm_or_si128(special, _mm_cmpgt_epi32(_mm_and_si128(x, magnitude), _mm_set1_epi32(kS32Limit - 1)));
    const __m128 f = _mm_castsi128_ps(x);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), Truncate ? _mm_cvttps_epi32(f) : _mm_cvtps_epi32(f));
  }
  return _mm_movemask_epi8(special) != 0;
}

// Vector steps of l * r + a (FP32 or FP64 carriers), a masked one for the
// tail, up to the first step with a NaN or infinite operand: |bits| at or
// above the infinity encoding, one unsigned compare of the three
// magnitudes' maximum.
// The kLanes elements of a 512-bit vector at p, or the first lanes of k
// (a tail) with the others zero; a masked load only for a tail, as the
// store below (masked stores held TFMA on the Zen 4 host back).
template <typename T>
PTO_AVX512 __m512i load_lanes512(const T* p, std::uint16_t k) {
  constexpr std::uint16_t all = sizeof(T) == 8 ? 0xFF : 0xFFFF;
  if (k == all) return load512(p);
  if constexpr (sizeof(T) == 8) return _mm512_maskz_loadu_epi64(static_cast<__mmask8>(k), p);
  else return _mm512_maskz_loadu_epi32(k, p);
}
template <typename T>
PTO_AVX512 void store_lanes512(T* p, std::uint16_t k, __m512i v) {
  constexpr std::uint16_t all = sizeof(T) == 8 ? 0xFF : 0xFFFF;
  if (k == all) return store512(p, v);
  if constexpr (sizeof(T) == 8) _mm512_mask_storeu_epi64(p, static_cast<__mmask8>(k), v);
  else _mm512_mask_storeu_epi32(p, k, v);
}
// Unsigned maximum and x * y + z, one rounding, of FP32 or FP64 lanes
// (masked forms for GCC 12, as above).
template <typename T>
PTO_AVX512 __m512i max_unsigned512(__m512i x, __m512i y) {
  if constexpr (sizeof(T) == 8) return _mm512_maskz_max_epu64(0xFF, x, y);
  else return _mm512_maskz_max_epu32(0xFFFF, x, y);
}
template <typename T>
PTO_AVX512 __m512i fused512(__m512i x, __m512i y, __m512i z) {
  if constexpr (sizeof(T) == 8)
    return _mm512_castpd_si512(_mm512_fmadd_pd(_mm512_castsi512_pd(x), _mm512_castsi512_pd(y), _mm512_castsi512_pd(z)));
  else return _mm512_castps_si512(_mm512_fmadd_ps(_mm512_castsi512_ps(x), _mm512_castsi512_ps(y), _mm512_castsi512_ps(z)));
}

template <typename T>
PTO_AVX512 std::size_t fma_prefix_avx512(const T* l, const T* r, const T* a, T* out, std::size_t n) noexcept {
  constexpr std::size_t kLanes = 64 / sizeof(T);
  const __m512i magnitude = broadcast512<T>(static_cast<T>(~(T{1} << (sizeof(T) * 8 - 1))));
  const __m512i infinity = broadcast512<T>(static_cast<T>(sizeof(T) == 8 ? 0x7FF0000000000000ULL : 0x7F800000ULL));
  for (std::size_t i = 0; i < n; i += kLanes) {
    const std::size_t m = std::min(kLanes, n - i);
    const auto k = static_cast<std::uint16_t>((1U << m) - 1U);
    const __m512i x = load_lanes512(l + i, k), y = load_lanes512(r + i, k), z = load_lanes512(a + i, k);
    const __m512i largest = max_unsigned512<T>(
        max_unsigned512<T>(_mm512_and_si512(x, magnitude), _mm512_and_si512(y, magnitude)), _mm512_and_si512(z, magnitude));
    if (signed_compare512<T, _MM_CMPINT_NLT>(largest, infinity) != 0) return i;  // magnitudes: signed is exact
    store_lanes512(out + i, k, fused512<T>(x, y, z));
  }
  return n;
}

// FP16/BF16 TFMA through binary32.  v = l r + a exactly, W = RN24(v) (the
// FMA rounds once, gradual underflow included), h = the FP16/BF16 rounding
// of v.  Every FP16/BF16 rounding midpoint (normal: 12/9 significant bits;
// subnormal: odd multiples of 2^-25/2^-134; the overflow thresholds 65520
// and (2 - 2^-8) 2^127) is a binary32 number, and rounding to nearest
// never crosses a representable number, so v and W lie in the same closed
// interval between consecutive midpoints; unless W is a midpoint itself, v
// is in the same open interval (v = m would make W = m), and the narrowing
// of W is h.  A midpoint W the loop resolves itself where it can (below);
// it stops at the first element with an unresolved midpoint W, or with W
// in the range where a flag other than NX could arise, which holds
// every NaN and infinity W, so every element with a NaN or infinite
// operand (whose conversions' and FMA's IE the caller drops):
//  - FP16: (W & 0x1FFF) == 0x1000 (a midpoint, the overflow threshold
//    included), 0 < |W| < 2^-14 (subnormal or tiny), |W| >= 65520.  W = 0
//    only when v = 0: a nonzero v is a multiple of 2^-48 below 2^33, so
//    binary32 represents its magnitude range, and the zero's sign follows
//    the same IEEE rule.
//  - BF16 (the top half of binary32, subnormals too): (W & 0xFFFF) ==
//    0x8000, |W| < 2^-126 (zero included: a tiny v can round to it),
//    |W| >= 0x7F7F8000.
// The remaining elements are normal and finite on both sides: their only
// flag is NX, raised when W != v (the FMA's PE; then v is no FP16/BF16
// number either) or when the narrowing drops nonzero bits (VCVTPS2PH's PE,
// or BF16's low half).  A step holding an element of the lists stores the
// lanes before it and stops there; the FMA and VCVTPS2PH flags of its
// other lanes stay in MXCSR.  Their PE is always some element's NX (a
// listed W is inexact unless W = v, when the narrowing decides NX exactly;
// NaN and infinity raise no PE), but OE or UE may belong to an element the
// exact path then takes.  So the caller keeps only PE.
// GCC 12's unmasked AVX-512 intrinsics merge into an undefined vector,
// which -Wmaybe-uninitialized reports (as in simd_sfu.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// Sixteen 16-bit elements at p (the lanes of k, all sixteen or a tail) in
// the low half; a masked load only for a tail.
PTO_AVX512 __m512i load_halves16(const std::uint16_t* p, __mmask32 k) {
  if (k == 0xFFFF) return _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return _mm512_maskz_loadu_epi16(k, p);
}

// The low sixteen FP16/BF16 elements of h as binary32 (exact).
template <bool Bf16>
PTO_AVX512 __m512 widen_half16(__m512i h) {
  const __m256i low = _mm512_castsi512_si256(h);
  if constexpr (Bf16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(low), 16));
  else return _mm512_cvtph_ps(low);
}

template <bool Bf16>
PTO_AVX512 HalfFmaPrefix half_fma_prefix_avx512(const std::uint16_t* l, const std::uint16_t* r, const std::uint16_t* a,
                                                std::uint16_t* out, std::size_t n) noexcept {
  const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
  __mmask16 dropped = 0;  // BF16: lanes with a nonzero low half
  for (std::size_t i = 0; i < n; i += 16) {
    const std::size_t m = std::min<std::size_t>(16, n - i);
    const auto k = static_cast<__mmask32>(m == 16 ? 0xFFFFU : (1U << m) - 1U);
    const __m512i x = load_halves16(l + i, k), y = load_halves16(r + i, k), z = load_halves16(a + i, k);
    const __m512 wx = widen_half16<Bf16>(x), wy = widen_half16<Bf16>(y), wz = widen_half16<Bf16>(z);
    __m512 w = _mm512_fmadd_ps(wx, wy, wz);
    __m512i bits = _mm512_castps_si512(w);
    const __m512i mag = _mm512_and_si512(bits, magnitude);
    const auto k16 = static_cast<__mmask16>(k);
    const __m512i low = _mm512_set1_epi32(Bf16 ? 0xFFFF : 0x1FFF), half = _mm512_set1_epi32(Bf16 ? 0x8000 : 0x1000);
    const __mmask16 midpoint = _mm512_mask_cmpeq_epi32_mask(k16, _mm512_and_si512(bits, low), half);
    __mmask16 hazard;
    if constexpr (Bf16)
      hazard = _mm512_mask_cmplt_epu32_mask(k16, mag, _mm512_set1_epi32(0x00800000)) |
               _mm512_mask_cmpge_epu32_mask(k16, mag, _mm512_set1_epi32(0x7F7F8000));
    else
      hazard = _mm512_mask_cmplt_epu32_mask(k16, _mm512_sub_epi32(mag, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x387FFFFF)) |
               _mm512_mask_cmpge_epu32_mask(k16, mag, _mm512_set1_epi32(0x477FF000));
    if (midpoint != 0) {
      // W on a midpoint: v - W decides.  With the product p exact (FP16
      // always: 22 bits, magnitudes from 2^-48 to 2^32; BF16 when p is
      // normal and finite, else the exact path), W = RN24(p + a) and
      // Knuth's TwoSum gives v - W exactly; nudging W one binary32 ulp
      // toward it leaves the midpoint on v's side, so the narrowing rounds
      // as v's would (e = 0: v is the midpoint, ties to even).  Any flag
      // this raises is NX, and a midpoint W is always inexact.
      const __m512 p = _mm512_mul_ps(wx, wy);
      const __m512 bb = _mm512_sub_ps(w, p);
      const __m512 e = _mm512_add_ps(_mm512_sub_ps(p, _mm512_sub_ps(w, bb)), _mm512_sub_ps(wz, bb));
      __mmask16 unsure = 0;
      if constexpr (Bf16) {
        const __m512i pm = _mm512_and_si512(_mm512_castps_si512(p), magnitude);
        unsure = _mm512_mask_cmplt_epu32_mask(midpoint, pm, _mm512_set1_epi32(0x00800000)) |
                 _mm512_mask_cmpge_epu32_mask(midpoint, pm, _mm512_set1_epi32(0x7F800000));
      }
      hazard |= unsure;
      const auto nudge = static_cast<__mmask16>(
          (midpoint & ~unsure) & _mm512_cmp_ps_mask(e, _mm512_setzero_ps(), _CMP_NEQ_OQ));
      // Same sign: magnitude up one ulp; opposite: down.
      const __mmask16 up = _mm512_cmpge_epi32_mask(_mm512_xor_si512(_mm512_castps_si512(e), bits), _mm512_setzero_si512());
      bits = _mm512_mask_add_epi32(bits, nudge & up, bits, _mm512_set1_epi32(1));
      bits = _mm512_mask_sub_epi32(bits, nudge & ~up, bits, _mm512_set1_epi32(1));
      w = _mm512_castsi512_ps(bits);
    }
    // The lanes before the first hazard are stored; the caller takes that
    // one and calls again after it.
    const unsigned first = hazard != 0 ? static_cast<unsigned>(std::countr_zero(hazard)) : 16U;
    const auto keep = static_cast<__mmask16>(k16 & ((1U << first) - 1U));
    __m256i h;
    if constexpr (Bf16) {
      h = (__m256i)_mm512_cvtneps_pbh(w);  // a vector bit cast: no intrinsic converts __m256bh
      dropped = static_cast<__mmask16>(dropped | _mm512_mask_test_epi32_mask(keep, bits, _mm512_set1_epi32(0xFFFF)));
    } else {
      h = _mm512_cvtps_ph(w, _MM_FROUND_TO_NEAREST_INT);
    }
    // Masked loads and stores only where needed: on the Zen 4 host they
    // held TFMA BF16 ieee at 11 us per 64 KiB (now about 6).
    if (keep == 0xFFFF) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
    else _mm512_mask_storeu_epi16(out + i, keep, _mm512_castsi256_si512(h));
    if (hazard != 0) return {i + first, dropped != 0};
  }
  return {n, dropped != 0};
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// A plain loop: a signed int converts to float with the host's rounding
// (RNE in the caller's HostFlagScope) and NX, vectorised or not.
PTO_NUM_CLONES void s32_to_fp32_lanes(const std::uint32_t* in, std::uint32_t* out, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(in[i])));
}
#endif

template <typename T>
std::optional<HostFlags> host_scalar_with_flags(Op op, const T* a, T scalar, T* out, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  return HostFlags{0, host_scalar(op, a, scalar, out, n)};
#else
  (void)op, (void)a, (void)scalar, (void)out, (void)n;
  return std::nullopt;
#endif
}

}  // namespace

Tier active_tier() noexcept { return std::min(host_tier(), tier_cap.load(std::memory_order_relaxed)); }

void limit_tier(Tier cap) noexcept { tier_cap.store(cap, std::memory_order_relaxed); }

bool avx2_available() noexcept { return active_tier() >= Tier::Avx2; }

#ifdef PTO_HAVE_AVX2_PATH
bool avx2_fma_available() noexcept {
  static const bool present = detect_fma();
  return present && avx2_available();
}
#else
bool avx2_fma_available() noexcept { return false; }
#endif

bool fp32_row_sums16([[maybe_unused]] const float* first, [[maybe_unused]] std::size_t stride,
                     [[maybe_unused]] unsigned rows, [[maybe_unused]] std::uint32_t columns,
                     [[maybe_unused]] float* sums) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512) {
    fp32_row_sums16_avx512(first, stride, rows, columns, sums);
    return true;
  }
#endif
  return false;
}

bool min_max(bool max, std::uint16_t inf, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
             std::size_t n) noexcept {
  return min_max_span(max, inf, a, b, out, n);
}
bool min_max(bool max, std::uint32_t inf, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out,
             std::size_t n) noexcept {
  return min_max_span(max, inf, a, b, out, n);
}
bool min_max(bool max, std::uint64_t inf, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out,
             std::size_t n) noexcept {
  return min_max_span(max, inf, a, b, out, n);
}

bool row_extremes(bool max, std::uint16_t inf, const std::uint16_t* first, std::size_t stride, std::uint32_t rows,
                  std::uint32_t columns, std::uint16_t* out, std::size_t out_stride) noexcept {
  return row_extremes_of(max, inf, first, stride, rows, columns, out, out_stride);
}
bool row_extremes(bool max, std::uint32_t inf, const std::uint32_t* first, std::size_t stride, std::uint32_t rows,
                  std::uint32_t columns, std::uint32_t* out, std::size_t out_stride) noexcept {
  return row_extremes_of(max, inf, first, stride, rows, columns, out, out_stride);
}
bool row_extremes(bool max, std::uint64_t inf, const std::uint64_t* first, std::size_t stride, std::uint32_t rows,
                  std::uint32_t columns, std::uint64_t* out, std::size_t out_stride) noexcept {
  return row_extremes_of(max, inf, first, stride, rows, columns, out, out_stride);
}
bool column_extremes(bool max, std::uint16_t inf, const std::uint16_t* first, std::size_t stride, std::uint32_t rows,
                     std::uint32_t columns, std::uint16_t* out) noexcept {
  return column_extremes_of(max, inf, first, stride, rows, columns, out);
}
bool column_extremes(bool max, std::uint32_t inf, const std::uint32_t* first, std::size_t stride, std::uint32_t rows,
                     std::uint32_t columns, std::uint32_t* out) noexcept {
  return column_extremes_of(max, inf, first, stride, rows, columns, out);
}
bool column_extremes(bool max, std::uint64_t inf, const std::uint64_t* first, std::size_t stride, std::uint32_t rows,
                     std::uint32_t columns, std::uint64_t* out) noexcept {
  return column_extremes_of(max, inf, first, stride, rows, columns, out);
}

bool bf16_binary_via_fp32(Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                          std::size_t n) noexcept {
  switch (op) {
    case Op::ADD: return bf16_binary<Op::ADD>(a, b, out, n);
    case Op::SUB: return bf16_binary<Op::SUB>(a, b, out, n);
    case Op::MUL: return bf16_binary<Op::MUL>(a, b, out, n);
    default: return bf16_binary<Op::DIV>(a, b, out, n);
  }
}

NarrowBlocks bf16_narrow_blocks(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512) return bf16_narrow_blocks_avx512(in, out, n);
  if (avx2_available()) return bf16_narrow_blocks_avx2(in, out, n);
#endif
  return narrow_blocks<bf16_narrow_lanes>(in, out, n);
}

#ifdef PTO_HAVE_AVX2_PATH
bool host_flags_available() noexcept { return true; }

// Out of line and not inlined: calls the compiler cannot move the
// surrounding memory-fed arithmetic across (it does not model MXCSR).
__attribute__((noinline)) HostFlagScope::HostFlagScope() noexcept : saved_(read_mxcsr()) { write_mxcsr(kMxcsrDefault); }
__attribute__((noinline)) HostFlagScope::~HostFlagScope() { write_mxcsr(saved_); }
__attribute__((noinline)) Flags HostFlagScope::take() noexcept {
  const std::uint32_t m = read_mxcsr();
  write_mxcsr(m & ~kMxcsrFlags);
  return ieee_flags(m);
}

std::optional<HostFlags> bf16_scalar_with_flags(Op op, const std::uint16_t* a, std::uint16_t scalar,
                                                std::uint16_t* out, std::size_t n) noexcept {
  switch (op) {
    case Op::ADD: return bf16_with_flags<Op::ADD>(a, scalar, out, n);
    case Op::SUB: return bf16_with_flags<Op::SUB>(a, scalar, out, n);
    case Op::MUL: return bf16_with_flags<Op::MUL>(a, scalar, out, n);
    default: return bf16_with_flags<Op::DIV>(a, scalar, out, n);
  }
}
#else
bool host_flags_available() noexcept { return false; }
__attribute__((noinline)) HostFlagScope::HostFlagScope() noexcept {
  std::feholdexcept(&saved_);  // saves the environment, clears the flags, masks traps
  std::fesetround(FE_TONEAREST);
}
__attribute__((noinline)) HostFlagScope::~HostFlagScope() { std::fesetenv(&saved_); }
__attribute__((noinline)) Flags HostFlagScope::take() noexcept {
  const int raised = std::fetestexcept(FE_ALL_EXCEPT);
  std::feclearexcept(FE_ALL_EXCEPT);
  return static_cast<Flags>(((raised & FE_INVALID) ? kNV : 0) | ((raised & FE_DIVBYZERO) ? kDZ : 0) |
                            ((raised & FE_OVERFLOW) ? kOF : 0) | ((raised & FE_UNDERFLOW) ? kUF : 0) |
                            ((raised & FE_INEXACT) ? kNX : 0));
}
std::optional<HostFlags> bf16_scalar_with_flags(Op, const std::uint16_t*, std::uint16_t, std::uint16_t*,
                                                std::size_t) noexcept {
  return std::nullopt;
}
#endif

std::optional<HostFlags> scalar_with_flags(Op op, const std::uint32_t* a, std::uint32_t scalar, std::uint32_t* out,
                                           std::size_t n) noexcept {
  return host_scalar_with_flags(op, a, scalar, out, n);
}
std::optional<HostFlags> scalar_with_flags(Op op, const std::uint64_t* a, std::uint64_t scalar, std::uint64_t* out,
                                           std::size_t n) noexcept {
  return host_scalar_with_flags(op, a, scalar, out, n);
}

std::optional<HostFlags> fp32_to_s32_with_flags([[maybe_unused]] const std::uint32_t* in,
                                                [[maybe_unused]] std::uint32_t* out, [[maybe_unused]] std::size_t n,
                                                [[maybe_unused]] bool truncate) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512) {
    const auto loop = [truncate](const std::uint32_t* x, std::uint32_t* z, std::size_t m) {
      return truncate ? fp32_to_s32_avx512<true>(x, z, m) : fp32_to_s32_avx512<false>(x, z, m);
    };
    return HostFlags{0, padded_steps<16>(loop, in, out, n)};
  }
  const auto loop = [truncate](const std::uint32_t* x, std::uint32_t* z, std::size_t m) {
    return truncate ? fp32_to_s32_sse2<true>(x, z, m) : fp32_to_s32_sse2<false>(x, z, m);
  };
  return HostFlags{0, padded_steps<4>(loop, in, out, n)};
#else
  return std::nullopt;
#endif
}

namespace {
template <typename T>
std::optional<std::size_t> fma_prefix([[maybe_unused]] const T* l, [[maybe_unused]] const T* r,
                                      [[maybe_unused]] const T* a, [[maybe_unused]] T* out,
                                      [[maybe_unused]] std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512) return fma_prefix_avx512(l, r, a, out, n);
#endif
  return std::nullopt;
}
}  // namespace

std::optional<std::size_t> fma_ordinary_prefix(const std::uint32_t* l, const std::uint32_t* r, const std::uint32_t* a,
                                               std::uint32_t* out, std::size_t n) noexcept {
  return fma_prefix(l, r, a, out, n);
}
std::optional<std::size_t> fma_ordinary_prefix(const std::uint64_t* l, const std::uint64_t* r, const std::uint64_t* a,
                                               std::uint64_t* out, std::size_t n) noexcept {
  return fma_prefix(l, r, a, out, n);
}

std::optional<HalfFmaPrefix> half_fma_ordinary_prefix([[maybe_unused]] bool bf16, [[maybe_unused]] const std::uint16_t* l,
                                                      [[maybe_unused]] const std::uint16_t* r,
                                                      [[maybe_unused]] const std::uint16_t* a,
                                                      [[maybe_unused]] std::uint16_t* out,
                                                      [[maybe_unused]] std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512)
    return bf16 ? half_fma_prefix_avx512<true>(l, r, a, out, n) : half_fma_prefix_avx512<false>(l, r, a, out, n);
#endif
  return std::nullopt;
}

std::optional<HostFlags> s32_to_fp32_with_flags([[maybe_unused]] const std::uint32_t* in,
                                                [[maybe_unused]] std::uint32_t* out,
                                                [[maybe_unused]] std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  s32_to_fp32_lanes(in, out, n);
  return HostFlags{};
#else
  return std::nullopt;
#endif
}

bool exp_fp32(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (active_tier() == Tier::Avx512) {
    std::fill_n(slow, (n + 63) / 64, std::uint64_t{0});
    return exp16::exp_fp32_vector(in, out, slow, n);
  }
  if (avx2_fma_available()) {
    std::fill_n(slow, (n + 63) / 64, std::uint64_t{0});
    return exp8::exp_fp32_vector(in, out, slow, n);
  }
#endif
  return exp_fp32_portable(in, out, slow, n);
}

bool exp_fp32_portable(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept {
  std::fill_n(slow, (n + 63) / 64, std::uint64_t{0});
  return exp_fp32_lanes(in, out, slow, 0, n);
}

}  // namespace pto::num::simd
