#include "numerics/simd_span.hpp"

#include <algorithm>
#include <bit>

#include "numerics/convert_span.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PTO_HAVE_AVX2_PATH 1
#endif

namespace pto::num::simd {

namespace {

using f16c::Op;

// ---- BF16 arithmetic through binary32 ----

template <Op O>
float apply(float x, float y) noexcept {
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

// ---- FP32 exp in binary64 ----
//
// exp(x) = 2^k exp(r), k = round(x / ln2), r = x - k ln2 with a two-part
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
// Half-width of the window around each binary32 rounding boundary, in
// binary64 ulps: 2^10 ulps >= 2^-43 relative, above the evaluation error.
constexpr std::uint64_t kExpTolerance = std::uint64_t{1} << 10;
// Binary32 values and midpoints are the binary64 values whose low 28 bits
// are zero (29 bits dropped; midpoints set the 29th).
constexpr std::uint64_t kBoundaryPeriod = (std::uint64_t{1} << 28) - 1;

constexpr bool exp_fast_range(std::uint32_t v) noexcept { return (v & 0x7FFFFFFFU) - 1U < kExpFastLimit; }

// Within kExpTolerance ulps of a binary32 value or midpoint.
constexpr bool near_fp32_boundary(std::uint64_t bits) noexcept {
  return ((bits + kExpTolerance) & kBoundaryPeriod) < 2 * kExpTolerance;
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
    const bool s = !fast || near_fp32_boundary(std::bit_cast<std::uint64_t>(y));
    slow[i / 64] |= std::uint64_t{s} << (i % 64);
    any |= static_cast<std::uint32_t>(s);
    out[i] = std::bit_cast<std::uint32_t>(static_cast<float>(y));
  }
  return any != 0;
}

#ifdef PTO_HAVE_AVX2_PATH

#define PTO_AVX2 __attribute__((target("avx2")))
#define PTO_AVX2_FMA __attribute__((target("avx2,fma")))

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
template <Op O>
PTO_AVX2 bool bf16_binary_avx2(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                               std::size_t n) noexcept {
  const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000U));
  const __m256i half = _mm256_set1_epi32(0x7FFF), one = _mm256_set1_epi32(1);
  __m256i worst = _mm256_setzero_si256();
  std::size_t i = 0;
  // Two steps per iteration (GCC and clang): the loop overhead is a tenth of a step.
#pragma GCC unroll 2
  for (; i + 16 <= n; i += 16) {
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
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
      const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(zi, 16), one);
      w[odd] = _mm256_add_epi32(_mm256_add_epi32(zi, half), lsb);  // carry_add_rne before its shift
    }
    const __m256i r = _mm256_blend_epi16(_mm256_srli_epi32(w[0], 16), w[1], 0xAA);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
    worst = worst_exponent16(worst, r);
  }
  const bool tail = bf16_binary_lanes<O>(a + i, b + i, out + i, n - i);
  return tail || exponent_out_of_span(worst);
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
  const NarrowSummary tail = bf16_narrow_lanes(in + i, out + i, n - i);
  const bool inexact = !_mm256_testz_si256(bits, _mm256_set1_epi32(0xFFFF));
  return {tail.common && !exponent_out_of_span(worst), tail.inexact || inexact};
}

PTO_AVX2 __m256d c(int i) { return _mm256_set1_pd(kExpCoefficients[i]); }

PTO_AVX2_FMA __m256d exp4(__m256d x) {
  const __m256d shifted = _mm256_fmadd_pd(x, _mm256_set1_pd(kInvLn2), _mm256_set1_pd(kRound));
  const __m256d k = _mm256_sub_pd(shifted, _mm256_set1_pd(kRound));
  const __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(kLn2Lo), _mm256_fnmadd_pd(k, _mm256_set1_pd(kLn2Hi), x));
  // Estrin's scheme: a short dependency chain, so consecutive steps overlap.
  const __m256d r2 = _mm256_mul_pd(r, r), r4 = _mm256_mul_pd(r2, r2);
  const __m256d p01 = _mm256_fmadd_pd(c(1), r, c(0)), p23 = _mm256_fmadd_pd(c(3), r, c(2));
  const __m256d p45 = _mm256_fmadd_pd(c(5), r, c(4)), p67 = _mm256_fmadd_pd(c(7), r, c(6));
  const __m256d p89 = _mm256_fmadd_pd(c(9), r, c(8));
  const __m256d p03 = _mm256_fmadd_pd(p23, r2, p01), p47 = _mm256_fmadd_pd(p67, r2, p45);
  const __m256d p = _mm256_fmadd_pd(_mm256_fmadd_pd(p89, r4, p47), r4, p03);
  const __m256i scale = _mm256_slli_epi64(_mm256_castpd_si256(shifted), 52);
  return _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(p), scale));
}

// A four-bit mask of the lanes of y near a binary32 rounding boundary.
PTO_AVX2 int near_boundary4(__m256d y) {
  const __m256i low = _mm256_and_si256(_mm256_add_epi64(_mm256_castpd_si256(y), _mm256_set1_epi64x(kExpTolerance)),
                                       _mm256_set1_epi64x(kBoundaryPeriod));
  return _mm256_movemask_pd(
      _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_set1_epi64x(2 * kExpTolerance), low)));
}

PTO_AVX2_FMA bool exp_fp32_avx2(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow,
                                std::size_t n) noexcept {
  const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
  unsigned any = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = load8(in + i);
    const __m256i m = _mm256_and_si256(v, magnitude);  // signed compares are exact below the sign bit
    const __m256i fast = _mm256_andnot_si256(_mm256_cmpeq_epi32(m, _mm256_setzero_si256()),
                                             _mm256_cmpgt_epi32(_mm256_set1_epi32(kExpFastLimit + 1), m));
    const __m256 x = _mm256_castsi256_ps(_mm256_and_si256(v, fast));  // other lanes: exp(+0)
    const __m256d y0 = exp4(_mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    const __m256d y1 = exp4(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
    const __m256 f = _mm256_set_m128(_mm256_cvtpd_ps(y1), _mm256_cvtpd_ps(y0));
    _mm256_storeu_ps(reinterpret_cast<float*>(out + i), f);
    const auto mask = static_cast<unsigned>(
        (~_mm256_movemask_ps(_mm256_castsi256_ps(fast)) | near_boundary4(y0) | (near_boundary4(y1) << 4)) & 0xFF);
    any |= mask;
    slow[i / 64] |= std::uint64_t{mask} << (i % 64);  // i % 8 == 0: the byte stays in the word
  }
  const bool tail = exp_fp32_lanes(in, out, slow, i, n);
  return tail || any != 0;
}

bool detect_avx2() noexcept { return __builtin_cpu_supports("avx2"); }
bool detect_fma() noexcept { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

#endif  // PTO_HAVE_AVX2_PATH

template <Op O>
bool bf16_binary(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (avx2_available()) return bf16_binary_avx2<O>(a, b, out, n);
#endif
  return bf16_binary_lanes<O>(a, b, out, n);
}

}  // namespace

#ifdef PTO_HAVE_AVX2_PATH
bool avx2_available() noexcept {
  static const bool present = detect_avx2();
  return present;
}
bool avx2_fma_available() noexcept {
  static const bool present = detect_fma();
  return present;
}
#else
bool avx2_available() noexcept { return false; }
bool avx2_fma_available() noexcept { return false; }
#endif

bool bf16_binary_via_fp32(Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                          std::size_t n) noexcept {
  switch (op) {
    case Op::ADD: return bf16_binary<Op::ADD>(a, b, out, n);
    case Op::SUB: return bf16_binary<Op::SUB>(a, b, out, n);
    case Op::MUL: return bf16_binary<Op::MUL>(a, b, out, n);
    default: return bf16_binary<Op::DIV>(a, b, out, n);
  }
}

NarrowSummary bf16_narrow_common(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX2_PATH
  if (avx2_available()) return bf16_narrow_avx2(in, out, n);
#endif
  return bf16_narrow_lanes(in, out, n);
}

bool exp_fp32(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept {
  std::fill_n(slow, (n + 63) / 64, std::uint64_t{0});
#ifdef PTO_HAVE_AVX2_PATH
  if (avx2_fma_available()) return exp_fp32_avx2(in, out, slow, n);
#endif
  return exp_fp32_lanes(in, out, slow, 0, n);
}

}  // namespace pto::num::simd
