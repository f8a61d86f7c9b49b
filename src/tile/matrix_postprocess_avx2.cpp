// AVX2 + F16C row kernel of B.FPATR post-processing (this unit is compiled
// with -mavx2 -mf16c; matrix_postprocess_isa.hpp).  Four elements per step,
// each computed exactly as matrix_postprocess.cpp's encoders do:
//
// - d = source x multiplier in binary64 is exact (S32 31 or FP32 24 by 11
//   significant bits).
// - FP32: the host's RNE conversion of d, stepped one encoding toward d's
//   magnitude (RTP/RTM/RTZ) when it rounded the wrong way; inexact when the
//   RNE result differs from d.
// - FP16 / BF16: d rounded to odd at binary32 precision (the RNE conversion
//   stepped toward zero when it rounded away, then its last bit ORed with
//   inexactness), which keeps more than two extra bits, so rounding it once
//   more (F16C VCVTPS2PH, or integer rounding of the top 16 bits for BF16)
//   equals rounding d once.
// - The reference encodings' overflow differs from IEEE's: |d| >= 2^(emax+1)
//   (before rounding) or a rounded result at the infinity code gives
//   sign | infinity (Sat: sign | largest finite) with OF|NX whatever the
//   mode; tininess is before rounding (|d| < 2^emin), UF|NX when inexact;
//   a zero d is +0 with no flags.
// - Integer destinations: d rounded to an integer in the mode (VROUNDPD:
//   the signed value's RNE / RTZ / RTP / RTM, which is MatrixRoundMagnitude
//   of its magnitude with the sign-swapped directed modes), inexact when it
//   differs from d; range checks, clamps and the offset on integer-valued
//   binary64 numbers below 2^62 (exact); the value's low 32 bits from
//   adding 1.5 * 2^52 (exact below 2^51 in magnitude: the sum's low
//   significand bits are the two's complement integer), then sign- or
//   zero-extended from the destination width.
// - RNA, RHB and RTO (the host has no such mode), and E4M3 in every mode:
//   the magnitude scaled by a power of two to an integer grid (the
//   destination's fraction bits at d's exponent, or at the smallest normal
//   exponent for subnormals; exact) and rounded there by the lower integer
//   plus one where the mode rounds up (MatrixRoundMagnitude, with the
//   directed modes swapped for negatives), the code being the exponent
//   field shifted over the fraction plus that integer (a carry moves into
//   the exponent).  E4M3's candidate search selects this rounding
//   (matrix_postprocess.cpp, encode_binary_fast), with 448 its largest
//   magnitude, 0x7F its non-saturating overflow for either sign and code 0
//   for a negative magnitude that rounds to zero.
// - HiF8 (in RHB, the rounding MatrixFPATREffectiveControl gives its modes):
//   the same rounding on the grid of each lane's exponent, which one gather
//   fetches from a table of the exponents -22..15 (HiF8GridTable, built from
//   matrix_postprocess.cpp's hif8_grid, the scalar kernel's grid): the scale
//   to an integer grid of 3, 2, 1 or 0 fraction bits, the code of the
//   integer's exponent and the code of a carry to the next power of two.
//   ReferenceFP8Encoding's candidate search selects this rounding
//   (encode_hif8_fast); magnitudes above 32768 overflow before rounding, one
//   that rounds to zero is the single zero, UF|NX below 2^-15 when inexact.
// - Shift modes: VPSRAVD by each column's count, clamped to S16.
#include "tile/matrix_postprocess_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <type_traits>

namespace pto::tile::postprocess {
namespace {

struct Format {
  double overflow_at;       // |d| at or above it overflows
  int emin;                 // below 2^emin d is tiny
  int fraction_bits;
  std::uint32_t infinity;   // the infinity code (the overflow result)
  std::uint32_t largest;    // the largest finite code
  std::uint32_t overflow_code;  // a rounded code magnitude at or above it overflows
  std::uint32_t sign;       // the sign bit
  bool unsigned_overflow;   // a non-saturating overflow is `infinity` whatever the sign
  bool unsigned_zero;       // a magnitude rounded to zero is +0
};

constexpr Format format_of(SimdDestination d) noexcept {
  switch (d) {
    case SimdDestination::FP32: return {0x1p128, -126, 23, 0x7f800000U, 0x7f7fffffU, 0x7f800000U, 0x80000000U, false, false};
    case SimdDestination::FP16: return {0x1p16, -14, 10, 0x7c00U, 0x7bffU, 0x7c00U, 0x8000U, false, false};
    case SimdDestination::BF16: return {0x1p128, -126, 7, 0x7f80U, 0x7f7fU, 0x7f80U, 0x8000U, false, false};
    case SimdDestination::E4M3: return {448.0 + 0x1p-44, -6, 3, 0x7fU, 0x7eU, 0x7fU, 0x80U, true, true};  // 448's successor
    // 32768's successor; a carry stops at 2^15 (code 0x6E), so no code
    // overflows; the grid is per exponent (encode_hif8).
    case SimdDestination::HiF8: return {32768.0 + 0x1p-37, -15, 0, 0x6fU, 0x6eU, 0x80U, 0x80U, false, true};
  }
  return {};
}

bool host_mode(num::RoundingMode mode) noexcept {
  return mode == num::RoundingMode::RNE || mode == num::RoundingMode::RTZ || mode == num::RoundingMode::RTP ||
         mode == num::RoundingMode::RTM;
}

// Lanes (32-bit masks) whose magnitude rounds away from zero / toward zero.
struct Directions {
  __m128i up, down;
};

Directions directions(num::RoundingMode mode, __m128i negative) noexcept {
  const __m128i all = _mm_set1_epi32(-1), none = _mm_setzero_si128();
  switch (mode) {
    case num::RoundingMode::RTZ: return {none, all};
    case num::RoundingMode::RTP: return {_mm_andnot_si128(negative, all), negative};
    case num::RoundingMode::RTM: return {negative, _mm_andnot_si128(negative, all)};
    default: return {none, none};  // RNE
  }
}

// The low 32 bits of four 64-bit lanes.
__m128i low_halves(__m256i v) noexcept {
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

// A 4 x 64-bit double comparison mask narrowed to 4 x 32 bits.
__m128i narrow(__m256d mask) noexcept { return low_halves(_mm256_castpd_si256(mask)); }

__m256d absolute(__m256d v) noexcept { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }

// RNE conversion of d, its inexactness and the magnitude comparison of the
// converted value with d (back > d, back < d in magnitude).
struct Converted {
  __m128 value;
  __m128i inexact, above, below;
};

Converted convert(__m256d d) noexcept {
  const __m128 f = _mm256_cvtpd_ps(d);
  const __m256d back = _mm256_cvtps_pd(f), magnitude = absolute(d), back_magnitude = absolute(back);
  return {f, narrow(_mm256_cmp_pd(back, d, _CMP_NEQ_UQ)), narrow(_mm256_cmp_pd(back_magnitude, magnitude, _CMP_GT_OQ)),
          narrow(_mm256_cmp_pd(back_magnitude, magnitude, _CMP_LT_OQ))};
}

// Adds -1 / +1 to the lanes of `bits` selected by the masks (all-ones = -1).
__m128i step(__m128i bits, __m128i toward_zero, __m128i away) noexcept {
  return _mm_sub_epi32(_mm_add_epi32(bits, toward_zero), away);
}

// f(std::integral_constant<int, M>{}) with M the host rounding immediate of
// `mode` (one of the four the plan admits), so each intrinsic below is
// written once and still gets its rounding as a compile-time constant.
template <class F>
auto with_rounding_immediate(num::RoundingMode mode, F f) noexcept {
  switch (mode) {
    case num::RoundingMode::RTZ: return f(std::integral_constant<int, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC>{});
    case num::RoundingMode::RTP: return f(std::integral_constant<int, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC>{});
    case num::RoundingMode::RTM: return f(std::integral_constant<int, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC>{});
    default: return f(std::integral_constant<int, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC>{});
  }
}

__m128i fp16_rounded(__m128 odd, num::RoundingMode mode) noexcept {
  return with_rounding_immediate(mode, [odd](auto m) { return _mm_cvtepu16_epi32(_mm_cvtps_ph(odd, m())); });
}

struct Encoded {
  __m128i bits, inexact;
};

// The encoding of four nonzero-or-zero reals d (zeros and overflow fixed by
// the caller).
Encoded encode(__m256d d, const SimdRowPlan& plan, __m128i negative) noexcept {
  const Converted c = convert(d);
  const Directions dir = directions(plan.rounding, negative);
  const __m128i rne = _mm_castps_si128(c.value);
  if (plan.destination == SimdDestination::FP32) {
    // Sign-magnitude codes: +1 / -1 on the integer moves the magnitude.
    const __m128i fixed = step(rne, _mm_and_si128(dir.down, c.above), _mm_and_si128(dir.up, c.below));
    return {fixed, c.inexact};
  }
  // Round to odd: toward zero when the RNE result is above d, then the sticky bit.
  const __m128i odd_bits = _mm_or_si128(_mm_add_epi32(rne, c.above), _mm_and_si128(c.inexact, _mm_set1_epi32(1)));
  if (plan.destination == SimdDestination::FP16) {
    const __m128 odd = _mm_castsi128_ps(odd_bits);
    const __m128i h = fp16_rounded(odd, plan.rounding);
    const __m256d back = _mm256_cvtps_pd(_mm_cvtph_ps(_mm_packus_epi32(h, h)));
    return {h, narrow(_mm256_cmp_pd(back, d, _CMP_NEQ_UQ))};
  }
  // BF16: the top 16 bits of the odd binary32 code, rounded on its low 16.
  const __m128i low = _mm_and_si128(odd_bits, _mm_set1_epi32(0xffff));
  const __m128i inexact = _mm_xor_si128(_mm_cmpeq_epi32(low, _mm_setzero_si128()), _mm_set1_epi32(-1));
  __m128i add = _mm_and_si128(dir.up, _mm_set1_epi32(0xffff));
  if (plan.rounding == num::RoundingMode::RNE)
    add = _mm_add_epi32(_mm_set1_epi32(0x7fff), _mm_and_si128(_mm_srli_epi32(odd_bits, 16), _mm_set1_epi32(1)));
  return {_mm_srli_epi32(_mm_add_epi32(odd_bits, add), 16), inexact};
}

// MatrixRoundMagnitude of non-negative m in RNE, RNA, RHB or RTO (the
// directed modes take the host's own rounding, host_mode; `negative`: the
// lanes whose value is negative, for RHB): the lower integer plus one where
// the mode rounds up; inexact where m had a fraction.
// The lower integer's last bit is read from lower + 2^52 (exact below 2^52;
// above, m has no fraction and no mode reads the bit).
struct MagnitudeRounded {
  __m256d value, inexact;
};

MagnitudeRounded round_magnitude(__m256d m, num::RoundingMode mode, __m256d negative) noexcept {
  const __m256d lower = _mm256_round_pd(m, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m256d fraction = _mm256_sub_pd(m, lower), half = _mm256_set1_pd(0.5);
  const __m256d inexact = _mm256_cmp_pd(fraction, _mm256_setzero_pd(), _CMP_NEQ_OQ);
  const __m256d above = _mm256_cmp_pd(fraction, half, _CMP_GT_OQ), tie = _mm256_cmp_pd(fraction, half, _CMP_EQ_OQ);
  const __m256i last = _mm256_and_si256(_mm256_castpd_si256(_mm256_add_pd(lower, _mm256_set1_pd(0x1p52))), _mm256_set1_epi64x(1));
  const __m256d odd = _mm256_castsi256_pd(_mm256_cmpeq_epi64(last, _mm256_set1_epi64x(1)));
  __m256d up = _mm256_setzero_pd();
  switch (mode) {
    case num::RoundingMode::RNE: up = _mm256_or_pd(above, _mm256_and_pd(tie, odd)); break;
    case num::RoundingMode::RNA: up = _mm256_or_pd(above, tie); break;
    case num::RoundingMode::RHB: up = _mm256_or_pd(above, _mm256_andnot_pd(negative, tie)); break;
    case num::RoundingMode::RTO: up = _mm256_andnot_pd(odd, inexact); break;
    default: break;  // RTZ, RTP, RTM: not passed
  }
  return {_mm256_add_pd(lower, _mm256_and_pd(up, _mm256_set1_pd(1.0))), inexact};
}

__m256d negative_lanes(__m256d d) noexcept { return _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_LT_OQ); }

// The integers (0 <= v < 2^52) of four integer-valued lanes.
__m256i integers(__m256d v) noexcept {
  return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, _mm256_set1_pd(0x1p52))),
                          _mm256_castpd_si256(_mm256_set1_pd(0x1p52)));
}

// Four reals encoded by rounding their magnitude on the destination's grid
// (every mode; E4M3); zeros and overflow are fixed by the caller.
Encoded encode_by_magnitude(__m256d d, const Format& f, num::RoundingMode mode) noexcept {
  const __m256d magnitude = absolute(d);
  // The exponent field of max(|d|, 2^emin): d's for a normal result, emin's for a subnormal one.
  const __m256i field = _mm256_srli_epi64(
      _mm256_castpd_si256(_mm256_max_pd(magnitude, _mm256_set1_pd(__builtin_ldexp(1.0, f.emin)))), 52);
  // 2^(F - e): the biased exponent F - (field - 1023) + 1023.
  const __m256i scale = _mm256_slli_epi64(_mm256_sub_epi64(_mm256_set1_epi64x(f.fraction_bits + 2046), field), 52);
  const MagnitudeRounded m = round_magnitude(_mm256_mul_pd(magnitude, _mm256_castsi256_pd(scale)), mode, negative_lanes(d));
  const __m128i fraction_bits = _mm_cvtsi32_si128(f.fraction_bits);
  const __m256i exponent = _mm256_sll_epi64(_mm256_sub_epi64(field, _mm256_set1_epi64x(f.emin + 1023)), fraction_bits);
  return {low_halves(_mm256_add_epi64(exponent, integers(m.value))), narrow(m.inexact)};
}

// ReferenceFP8Encoding (HiF8) of four reals: each magnitude rounded on the
// grid of its exponent, clamped to -22..15 (below 2^-22 the grid is 0 and
// 2^-22; above 2^15 every value overflows), read from `grid`
// (hif8_grid_word); zeros, the sign and overflow are fixed by the caller.
// A NaN or infinite lane (declined by the caller) still indexes the table.
Encoded encode_hif8(__m256d d, const HiF8GridTable& grid, num::RoundingMode mode) noexcept {
  const __m256d magnitude = absolute(d);
  const __m256d clamped = _mm256_min_pd(_mm256_max_pd(magnitude, _mm256_set1_pd(0x1p-22)), _mm256_set1_pd(0x1p15));
  const __m256i index = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(clamped), 52),
                                         _mm256_set1_epi64x(1023 + kHiF8GridMinimumExponent));
  const __m256i word = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(grid.data()), index, 8);
  const __m256i byte = _mm256_set1_epi64x(0xFF);
  const __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_and_si256(word, _mm256_set1_epi64x(0x7FF)), 52));
  const MagnitudeRounded m = round_magnitude(_mm256_mul_pd(magnitude, scale), mode, negative_lanes(d));
  const __m256i n = integers(m.value);
  const __m256i base = _mm256_and_si256(_mm256_srli_epi64(word, 16), byte);
  const __m256i carry_code = _mm256_and_si256(_mm256_srli_epi64(word, 24), byte), carry = _mm256_srli_epi64(word, 32);
  const __m256i code = _mm256_blendv_epi8(_mm256_add_epi64(base, n), carry_code, _mm256_cmpeq_epi64(n, carry));
  return {low_halves(code), narrow(m.inexact)};
}

// The encoding of four reals in the plan's destination and rounding.
Encoded encode_lanes(__m256d d, const Format& f, const SimdRowPlan& plan, __m128i negative) noexcept {
  if (plan.destination == SimdDestination::HiF8) return encode_hif8(d, *plan.hif8_grid, plan.rounding);
  if (plan.destination == SimdDestination::E4M3 || !host_mode(plan.rounding)) return encode_by_magnitude(d, f, plan.rounding);
  return encode(d, plan, negative);
}

// d rounded to an integer: the host's VROUNDPD in its four modes, else the
// magnitude rounded and the sign put back.
__m256d rounded_integer(__m256d d, num::RoundingMode mode) noexcept {
  if (!host_mode(mode)) {
    const __m256d magnitude = round_magnitude(absolute(d), mode, negative_lanes(d)).value;
    return _mm256_or_pd(magnitude, _mm256_and_pd(d, _mm256_set1_pd(-0.0)));
  }
  return with_rounding_immediate(mode, [d](auto m) { return _mm256_round_pd(d, m()); });
}

struct Range {
  __m256d minimum, maximum;
};

Range range_of(unsigned bits, bool is_signed) noexcept {
  if (is_signed) return {_mm256_set1_pd(-__builtin_ldexp(1.0, static_cast<int>(bits) - 1)),
                         _mm256_set1_pd(__builtin_ldexp(1.0, static_cast<int>(bits) - 1) - 1)};
  return {_mm256_setzero_pd(), _mm256_set1_pd(__builtin_ldexp(1.0, static_cast<int>(bits)) - 1)};
}

__m256d outside(__m256d v, const Range& r) noexcept {
  return _mm256_or_pd(_mm256_cmp_pd(v, r.minimum, _CMP_LT_OQ), _mm256_cmp_pd(v, r.maximum, _CMP_GT_OQ));
}

__m256d clamp(__m256d v, const Range& r) noexcept { return _mm256_min_pd(_mm256_max_pd(v, r.minimum), r.maximum); }

// The four sources as binary64 and the lanes (32-bit masks) the kernel
// declines: FP32 NaN / infinity (exponent all ones), -0, carriers beyond 32
// bits; S32 sources are their low 32 bits.
struct Sources {
  __m256d real;
  __m128i skip;
};

Sources sources(__m256i carriers, bool s32) noexcept {
  const __m256i halves = _mm256_permutevar8x32_epi32(carriers, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
  const __m128i source = _mm256_castsi256_si128(halves), high = _mm256_extracti128_si256(halves, 1);
  if (s32) return {_mm256_cvtepi32_pd(source), _mm_setzero_si128()};
  const __m128i exponent = _mm_and_si128(source, _mm_set1_epi32(0x7f800000));
  const __m128i skip = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi32(exponent, _mm_set1_epi32(0x7f800000)),
                                                 _mm_cmpeq_epi32(source, _mm_set1_epi32(static_cast<int>(0x80000000U)))),
                                    _mm_xor_si128(_mm_cmpeq_epi32(high, _mm_setzero_si128()), _mm_set1_epi32(-1)));
  return {_mm256_cvtps_pd(_mm_castsi128_ps(source)), skip};
}

// Integer-valued lanes below 2^51 in magnitude as the destination's
// normalised Words (NormalizeTileInteger: the low `bits` bits, sign- or
// zero-extended).
__m256i integer_words(__m256d v, unsigned bits, bool is_signed) noexcept {
  const __m256i sum = _mm256_castpd_si256(_mm256_add_pd(v, _mm256_set1_pd(0x1.8p52)));
  const __m128i low = low_halves(sum);
  const __m128i unused = _mm_cvtsi32_si128(static_cast<int>(32 - bits));
  const __m128i top = _mm_sll_epi32(low, unused);
  return is_signed ? _mm256_cvtepi32_epi64(_mm_sra_epi32(top, unused)) : _mm256_cvtepu32_epi64(_mm_srl_epi32(top, unused));
}

}  // namespace

num::Flags fp32_row_avx2(std::uint64_t* row, std::size_t columns, const SimdRowPlan& plan, std::uint8_t* declined) noexcept {
  const Format f = format_of(plan.destination);
  const __m128i overflow_code = _mm_set1_epi32(static_cast<int>(f.overflow_code));
  const __m128i overflow_magnitude = _mm_set1_epi32(static_cast<int>(plan.saturating ? f.largest : f.infinity));
  const __m128i sign_bit = _mm_set1_epi32(static_cast<int>(f.sign));
  const __m128i overflow_sign_bit = f.unsigned_overflow && !plan.saturating ? _mm_setzero_si128() : sign_bit;
  const __m256d overflow_at = _mm256_set1_pd(f.overflow_at), tiny_below = _mm256_set1_pd(__builtin_ldexp(1.0, f.emin));
  __m128i any_inexact = _mm_setzero_si128(), any_tiny = _mm_setzero_si128(), any_overflow = _mm_setzero_si128();
  for (std::size_t c = 0; c < columns; c += 4) {
    const __m256i carriers = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + c));
    const Sources sourced = sources(carriers, plan.s32_source);
    const __m128i skip = sourced.skip;
    const __m256d real = sourced.real;
    const __m256d multiplier = _mm256_blendv_pd(_mm256_loadu_pd(plan.positive + c), _mm256_loadu_pd(plan.negative + c), real);
    const __m256d d = _mm256_mul_pd(real, multiplier);
    const __m256d magnitude = absolute(d);
    const __m128i negative = _mm_srai_epi32(_mm_castps_si128(_mm256_cvtpd_ps(d)), 31);
    const __m128i zero = narrow(_mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_EQ_OQ));
    const Encoded e = encode_lanes(d, f, plan, negative);
    const __m128i code_magnitude = _mm_andnot_si128(sign_bit, e.bits);
    const __m128i overflow = _mm_or_si128(narrow(_mm256_cmp_pd(magnitude, overflow_at, _CMP_GE_OQ)),
                                          _mm_cmpgt_epi32(code_magnitude, _mm_sub_epi32(overflow_code, _mm_set1_epi32(1))));
    __m128i sign = _mm_and_si128(negative, sign_bit);
    const __m128i overflow_bits = _mm_or_si128(_mm_and_si128(negative, overflow_sign_bit), overflow_magnitude);
    if (f.unsigned_zero) sign = _mm_andnot_si128(_mm_cmpeq_epi32(code_magnitude, _mm_setzero_si128()), sign);
    __m128i bits = _mm_blendv_epi8(_mm_or_si128(sign, code_magnitude), overflow_bits, overflow);
    bits = _mm_andnot_si128(zero, bits);
    const __m128i counted = _mm_andnot_si128(_mm_or_si128(skip, zero), _mm_set1_epi32(-1));
    const __m128i tiny = _mm_and_si128(narrow(_mm256_cmp_pd(magnitude, tiny_below, _CMP_LT_OQ)), _mm_andnot_si128(overflow, e.inexact));
    any_inexact = _mm_or_si128(any_inexact, _mm_and_si128(counted, _mm_or_si128(e.inexact, overflow)));
    any_tiny = _mm_or_si128(any_tiny, _mm_and_si128(counted, tiny));
    any_overflow = _mm_or_si128(any_overflow, _mm_and_si128(counted, overflow));
    const __m256i kept = _mm256_cvtepi32_epi64(skip);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + c), _mm256_blendv_epi8(_mm256_cvtepu32_epi64(bits), carriers, kept));
    const int skipped = _mm_movemask_ps(_mm_castsi128_ps(skip));
    for (int i = 0; i < 4; ++i) declined[c + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>((skipped >> i) & 1);
  }
  const auto any = [](__m128i m) { return _mm_movemask_epi8(m) != 0; };
  num::Flags flags = 0;
  if (any(any_inexact)) flags |= num::kNX;
  if (any(any_tiny)) flags |= num::kUF;
  if (any(any_overflow)) flags |= num::kOF;
  return flags;
}

num::Flags integer_row_avx2(std::uint64_t* row, std::size_t columns, const IntegerRowPlan& plan,
                            std::uint8_t* declined) noexcept {
  const Range destination = range_of(plan.bits, plan.is_signed);
  const Range intermediate = plan.width != 0 ? range_of(plan.width, true) : destination;
  const __m256d fast_limit = _mm256_set1_pd(0x1p62), word_limit = _mm256_set1_pd(0x1p51);
  __m256d any_inexact = _mm256_setzero_pd(), any_overflow = _mm256_setzero_pd();
  for (std::size_t c = 0; c < columns; c += 4) {
    const __m256i carriers = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + c));
    const Sources s = sources(carriers, plan.s32_source);
    // MatrixActivationWithFlags: the multiplier of the source's sign.
    const __m256d multiplier =
        _mm256_blendv_pd(_mm256_loadu_pd(plan.positive + c), _mm256_loadu_pd(plan.negative + c), s.real);
    const __m256d d = _mm256_mul_pd(s.real, multiplier);
    __m256d declined_lanes = _mm256_cmp_pd(absolute(d), fast_limit, _CMP_NLT_UQ);
    const __m256d r = rounded_integer(d, plan.rounding);
    const __m256d inexact = _mm256_cmp_pd(r, d, _CMP_NEQ_UQ);
    __m256d value = r, overflow = outside(r, intermediate);
    if (plan.width != 0) {  // MatrixRoundAndSaturateSigned, the offset, then the destination's range
      value = _mm256_add_pd(clamp(r, intermediate), _mm256_loadu_pd(plan.offset + c));
      overflow = _mm256_or_pd(overflow, outside(value, destination));
    }
    const __m256d wide = _mm256_cmp_pd(absolute(value), word_limit, _CMP_NLT_UQ);
    if (plan.saturating) value = clamp(value, destination);
    else declined_lanes = _mm256_or_pd(declined_lanes, wide);
    const __m256i kept = _mm256_or_si256(_mm256_cvtepi32_epi64(s.skip), _mm256_castpd_si256(declined_lanes));
    const __m256d counted = _mm256_castsi256_pd(_mm256_xor_si256(kept, _mm256_set1_epi64x(-1)));
    any_inexact = _mm256_or_pd(any_inexact, _mm256_and_pd(counted, inexact));
    any_overflow = _mm256_or_pd(any_overflow, _mm256_and_pd(counted, overflow));
    const __m256i words = integer_words(value, plan.bits, plan.is_signed);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + c), _mm256_blendv_epi8(words, carriers, kept));
    const int skipped = _mm256_movemask_pd(_mm256_castsi256_pd(kept));
    for (int i = 0; i < 4; ++i) declined[c + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>((skipped >> i) & 1);
  }
  num::Flags flags = 0;
  if (_mm256_movemask_pd(any_inexact) != 0) flags |= num::kNX;
  if (_mm256_movemask_pd(any_overflow) != 0) flags |= num::kOF | num::kNX;
  return flags;
}

num::Flags shift_row_avx2(std::uint64_t* row, std::size_t columns, const std::int32_t* shift) noexcept {
  const __m128i minimum = _mm_set1_epi32(-32768), maximum = _mm_set1_epi32(32767);
  __m128i any_clamped = _mm_setzero_si128();
  for (std::size_t c = 0; c < columns; c += 4) {
    const __m256i carriers = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + c));
    const __m128i source = low_halves(carriers);
    const __m128i shifted = _mm_srav_epi32(source, _mm_loadu_si128(reinterpret_cast<const __m128i*>(shift + c)));  // ASR
    const __m128i clamped = _mm_min_epi32(_mm_max_epi32(shifted, minimum), maximum);
    any_clamped = _mm_or_si128(any_clamped, _mm_xor_si128(_mm_cmpeq_epi32(clamped, shifted), _mm_set1_epi32(-1)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + c), _mm256_cvtepi32_epi64(clamped));
  }
  return _mm_movemask_epi8(any_clamped) != 0 ? num::kOF | num::kNX : num::Flags{0};
}

}  // namespace pto::tile::postprocess

#endif
