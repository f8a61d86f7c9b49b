#include "numerics/simd_sfu.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "numerics/simd_span.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PTO_HAVE_AVX512_ROOT 1
#endif

namespace pto::num::simd {

namespace {

// The operands whose result the loops vouch for, by exponent field (the
// sign bit is the field's bit 8): SQRT of +x, 2^-100 <= x < infinity
// (fields 27..254), RECIP of 2^-125 <= |x| < 2^125 (fields 2..252, either
// sign).  Their results are normal and finite: sqrt(x) >= 2^-50, 1/|x| in
// (2^-125, 2^125].  The residual of a correctly rounded square root or
// quotient is a binary32 number when nothing underflows (x - r^2 is a
// multiple of 2^-149 or more for x >= 2^-102, and 1 - r x of 2^-47), so the
// FMA computes it exactly and it is zero exactly when r is exact.
// RSQRT of +x, 0 < x < infinity (fields 0..254, x != +0): 1/sqrt(x) is
// normal for every such x (from 2^-64 to 2^74.5); LOG of the same x:
// log(x) is 0 for x = 1 (a binary32 number, so the rounding test hands it
// to the exact path) and otherwise irrational with |log(x)| from about
// 2^-24 (x = 1 - 2^-24) to 103.3 (x = 2^-149): normal.
struct FastFields {
  std::uint32_t mask, low, span;
};
constexpr FastFields fast_fields(RootOp op) noexcept {
  return op == RootOp::SQRT ? FastFields{0x1FF, 27, 254 - 27}
         : op == RootOp::RECIP ? FastFields{0xFF, 2, 252 - 2}
                               : FastFields{0x1FF, 0, 254};  // RSQRT, LOG
}

// RSQRT in binary64: RN(1 / RN(sqrt(x))) is within 2^-52 (relative) of
// 1/sqrt(x).  Rounded to binary32 it is the correctly rounded result unless
// a binary32 midpoint lies that close, and it is exact only when
// 1/sqrt(x) is a binary32 number; both cases are excluded by keeping only
// values whose low 29 bits (those binary32 drops) are more than 2^10 from
// a multiple of 2^28 (2^10 binary64 ulps >= 2^-43 relative).  A kept
// value's rounding is inexact, as the exact path's sticky bit says.
constexpr std::uint64_t kRsqrtTolerance = std::uint64_t{1} << 10;
constexpr std::uint64_t kRsqrtGrid = (std::uint64_t{1} << 28) - 1;

constexpr bool rsqrt_decided(std::uint64_t bits) noexcept {
  return ((bits + kRsqrtTolerance) & kRsqrtGrid) >= 2 * kRsqrtTolerance;
}

// Evaluated in binary64 (RSQRT and LOG): the rounding test above decides.
constexpr bool in_binary64(RootOp op) noexcept { return op == RootOp::RSQRT || op == RootOp::LOG; }

constexpr bool fast_operand(RootOp op, std::uint32_t v) noexcept {
  const FastFields f = fast_fields(op);
  return ((v >> 23) & f.mask) - f.low <= f.span && (!in_binary64(op) || v != 0);
}

// LOG in binary64 for a positive finite binary32 x (docs/numerics.md,
// TLOG FP32): x = 2^e m with m in [sqrt(1/2), sqrt(2)) (the bits of x
// minus those of sqrt(1/2), shifted, give e; subtracting e from the
// exponent field gives m), f = m - 1 (exact), s = f / (2 + f) (|s| <=
// 0.1716), log(m) = 2 atanh(s) = 2s + s R with R = sum of 2 z^k / (2k + 1),
// k = 1..10, z = s^2 (truncation below 2^-60 relative), and log(x) =
// e ln2_hi + (e ln2_lo + log(m)) with ln2_hi of 32 significant bits, so
// e ln2_hi is exact for |e| <= 150.  Error below 2^-50 relative (each
// operation rounded separately or fused), far inside rsqrt_decided's
// 2^-43 window.
constexpr double kLogSqrtHalf = 0x1.6a09e667f3bcdp-1;
constexpr double kLogLn2Hi = 0x1.62e42feep-1;
constexpr double kLogLn2Lo = 0x1.a39ef35793c76p-33;
constexpr std::array<double, 10> kLogSeries = {2.0 / 3,  2.0 / 5,  2.0 / 7,  2.0 / 9,  2.0 / 11,
                                               2.0 / 13, 2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21};
// 1.5 * 2^52: an integer |i| < 2^51 added to its bits reads as 1.5 * 2^52 + i.
constexpr std::uint64_t kIntegerShifter = 0x4338000000000000;

double log_binary64(float x) noexcept {
  const auto u = std::bit_cast<std::uint64_t>(static_cast<double>(x));
  const std::int64_t e = static_cast<std::int64_t>(u - std::bit_cast<std::uint64_t>(kLogSqrtHalf)) >> 52;
  const double m = std::bit_cast<double>(u - (static_cast<std::uint64_t>(e) << 52));
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double r = kLogSeries[9];
  for (int k = 8; k >= 0; --k) r = r * z + kLogSeries[static_cast<std::size_t>(k)];
  const double log_m = 2.0 * s + s * (z * r);
  const double ed = static_cast<double>(e);
  return ed * kLogLn2Hi + (ed * kLogLn2Lo + log_m);
}

template <RootOp O>
float host_root(float x) noexcept {
  if constexpr (O == RootOp::SQRT) return std::sqrt(x);
  else return 1.0f / x;
}

// r exact: x - r r == 0 (SQRT), 1 - r x == 0 (RECIP).
template <RootOp O>
bool host_exact(float x, float r) noexcept {
  if constexpr (O == RootOp::SQRT) return std::fma(r, r, -x) == 0.0f;
  else return std::fma(r, x, -1.0f) == 0.0f;
}

template <RootOp O>
RootSummary root_lanes(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept {
  RootSummary s;
  std::fill_n(slow, (n + 63) / 64, std::uint64_t{0});
  for (std::size_t i = 0; i < n; ++i) {
    if (!fast_operand(O, in[i])) {
      slow[i / 64] |= std::uint64_t{1} << (i % 64);
      s.slow = true;
      continue;
    }
    const float x = std::bit_cast<float>(in[i]);
    if constexpr (in_binary64(O)) {
      const double y = O == RootOp::LOG ? log_binary64(x) : 1.0 / std::sqrt(static_cast<double>(x));
      if (!rsqrt_decided(std::bit_cast<std::uint64_t>(y))) {
        slow[i / 64] |= std::uint64_t{1} << (i % 64);
        s.slow = true;
        continue;
      }
      out[i] = std::bit_cast<std::uint32_t>(static_cast<float>(y));
      s.inexact = true;
    } else {
      const float r = host_root<O>(x);
      out[i] = std::bit_cast<std::uint32_t>(r);
      s.inexact = s.inexact || !host_exact<O>(x, r);
    }
  }
  return s;
}

#ifdef PTO_HAVE_AVX512_ROOT
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define PTO_AVX512_ROOT __attribute__((target("avx512f")))

// log_binary64 of eight lanes (the same operations, products and sums
// fused where an FMA computes them).
PTO_AVX512_ROOT __m512d log8(__m512d d) {
  const __m512i u = _mm512_castpd_si512(d);
  constexpr __mmask8 all = 0xFF;  // the zero-masking shifts: GCC 12's plain ones read an undefined vector
  const __m512i e = _mm512_maskz_srai_epi64(
      all, _mm512_sub_epi64(u, _mm512_set1_epi64(static_cast<long long>(std::bit_cast<std::uint64_t>(kLogSqrtHalf)))),
      52);
  const __m512d m = _mm512_castsi512_pd(_mm512_sub_epi64(u, _mm512_maskz_slli_epi64(all, e, 52)));
  const __m512d f = _mm512_sub_pd(m, _mm512_set1_pd(1.0));
  const __m512d s = _mm512_div_pd(f, _mm512_add_pd(f, _mm512_set1_pd(2.0)));
  const __m512d z = _mm512_mul_pd(s, s);
  __m512d r = _mm512_set1_pd(kLogSeries[9]);
  for (int k = 8; k >= 0; --k) r = _mm512_fmadd_pd(r, z, _mm512_set1_pd(kLogSeries[static_cast<std::size_t>(k)]));
  const __m512d log_m = _mm512_fmadd_pd(s, _mm512_mul_pd(z, r), _mm512_add_pd(s, s));
  const __m512d ed = _mm512_sub_pd(
      _mm512_castsi512_pd(_mm512_add_epi64(e, _mm512_set1_epi64(static_cast<long long>(kIntegerShifter)))),
      _mm512_castsi512_pd(_mm512_set1_epi64(static_cast<long long>(kIntegerShifter))));
  return _mm512_fmadd_pd(ed, _mm512_set1_pd(kLogLn2Hi), _mm512_fmadd_pd(ed, _mm512_set1_pd(kLogLn2Lo), log_m));
}

// RSQRT or LOG of eight lanes in binary64: the values rounded to binary32
// and the lanes rsqrt_decided keeps.
struct Rsqrt8 {
  __m256 value;
  __mmask8 decided;
};
template <RootOp O>
PTO_AVX512_ROOT Rsqrt8 rsqrt8(__m256 x) {
  const __m512d d = _mm512_cvtps_pd(x);
  const __m512d y = O == RootOp::LOG ? log8(d) : _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_sqrt_pd(d));
  const __m512i low = _mm512_and_si512(
      _mm512_add_epi64(_mm512_castpd_si512(y), _mm512_set1_epi64(static_cast<long long>(kRsqrtTolerance))),
      _mm512_set1_epi64(static_cast<long long>(kRsqrtGrid)));
  return {_mm512_cvtpd_ps(y), _mm512_cmpge_epu64_mask(low, _mm512_set1_epi64(static_cast<long long>(2 * kRsqrtTolerance)))};
}

// RSQRT of sixteen lanes as two binary64 halves.
struct Rsqrt16 {
  __m512 value;
  __mmask16 decided;
};
template <RootOp O>
PTO_AVX512_ROOT Rsqrt16 rsqrt16(__m512 x) {
  const Rsqrt8 low = rsqrt8<O>(_mm512_castps512_ps256(x));
  const Rsqrt8 high = rsqrt8<O>(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
  const __m512 value = _mm512_castpd_ps(
      _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(low.value)), _mm256_castps_pd(high.value), 1));
  return {value, static_cast<__mmask16>(low.decided | (unsigned{high.decided} << 8))};
}

// Sixteen lanes a step (masked loads and stores for the tail): the fast
// lanes by an unsigned compare of the shifted exponent field, VSQRTPS or
// VDIVPS, and the residual FMA compared with zero under the fast mask.
template <RootOp O>
PTO_AVX512_ROOT RootSummary root_avx512(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow,
                                        std::size_t n) noexcept {
  constexpr FastFields f = fast_fields(O);
  const __m512i mask = _mm512_set1_epi32(static_cast<int>(f.mask)), low = _mm512_set1_epi32(static_cast<int>(f.low));
  const __m512i span = _mm512_set1_epi32(static_cast<int>(f.span));
  const __m512 one = _mm512_set1_ps(1.0f);
  __mmask16 inexact = 0;
  bool any_slow = false;
  for (std::size_t i = 0; i < n; i += 64) {
    const std::size_t end = std::min(i + 64, n);
    std::uint64_t fast_word = 0;
    for (std::size_t j = i; j < end; j += 16) {
      const auto k = static_cast<__mmask16>(end - j >= 16 ? 0xFFFFU : (1U << (end - j)) - 1U);
      const __m512i v = _mm512_maskz_loadu_epi32(k, in + j);
      const __m512i field = _mm512_and_si512(_mm512_srli_epi32(v, 23), mask);
      const __mmask16 fast = _mm512_mask_cmple_epu32_mask(k, _mm512_sub_epi32(field, low), span);
      const __m512 x = _mm512_castsi512_ps(v);
      __m512 r;
      __mmask16 decided = fast;
      if constexpr (in_binary64(O)) {
        const Rsqrt16 y = rsqrt16<O>(x);
        r = y.value;
        decided = static_cast<__mmask16>(fast & y.decided & _mm512_test_epi32_mask(v, v));  // fast_operand: x != +0
        inexact = static_cast<__mmask16>(inexact | decided);
      } else {
        r = O == RootOp::SQRT ? _mm512_sqrt_ps(x) : _mm512_div_ps(one, x);
        const __m512 residual = O == RootOp::SQRT ? _mm512_fmsub_ps(r, r, x) : _mm512_fmsub_ps(r, x, one);
        inexact = static_cast<__mmask16>(inexact | _mm512_mask_cmp_ps_mask(fast, residual, _mm512_setzero_ps(), _CMP_NEQ_UQ));
      }
      _mm512_mask_storeu_epi32(out + j, k, _mm512_castps_si512(r));
      fast_word |= std::uint64_t{decided} << (j - i);
    }
    const std::uint64_t valid = end - i == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (end - i)) - 1;
    slow[i / 64] = ~fast_word & valid;
    any_slow = any_slow || slow[i / 64] != 0;
  }
  return {any_slow, inexact != 0};
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

template <RootOp O>
RootSummary root_of(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX512_ROOT
  if (active_tier() == Tier::Avx512) return root_avx512<O>(in, out, slow, n);
#endif
  return root_lanes<O>(in, out, slow, n);
}

}  // namespace

RootSummary root_fp32(RootOp op, const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow,
                      std::size_t n) noexcept {
  switch (op) {
    case RootOp::SQRT: return root_of<RootOp::SQRT>(in, out, slow, n);
    case RootOp::RECIP: return root_of<RootOp::RECIP>(in, out, slow, n);
    case RootOp::RSQRT: return root_of<RootOp::RSQRT>(in, out, slow, n);
    default: return root_of<RootOp::LOG>(in, out, slow, n);
  }
}

}  // namespace pto::num::simd
