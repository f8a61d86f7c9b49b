#include "numerics/f16c_span.hpp"

#include <bit>

#include "numerics/convert_span.hpp"
#include "numerics/simd_span.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define PTO_HAVE_F16C_PATH 1
#endif

namespace pto::num::f16c {

namespace {

// The portable tails (and whole spans on hosts without the F16C path).
PTO_NUM_CLONES bool widen_lanes(const std::uint16_t* in, std::uint32_t* out, std::size_t n) noexcept {
  bool snan = false;
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = lane::fp16_bits_to_fp32(in[i]);
    snan |= (in[i] & 0x7E00U) == 0x7C00U && (in[i] & 0x1FFU) != 0;
  }
  return snan;
}

PTO_NUM_CLONES Flags narrow_lanes(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t r = lane::fp32_bits_to_fp16_rne(in[i]);
    out[i] = static_cast<std::uint16_t>(r);
    flags |= r >> 16;
  }
  return static_cast<Flags>(flags);
}

float apply(Op op, float x, float y) noexcept {
  switch (op) {
    case Op::ADD: return x + y;
    case Op::SUB: return x - y;
    case Op::MUL: return x * y;
    default: return x / y;
  }
}

PTO_NUM_CLONES bool binary_lanes(Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                                 std::size_t n) noexcept {
  bool nan = false;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = std::bit_cast<float>(lane::fp16_bits_to_fp32(a[i]));
    const float y = std::bit_cast<float>(lane::fp16_bits_to_fp32(b[i]));
    const float z = apply(op, x, y);
    out[i] = static_cast<std::uint16_t>(lane::fp32_bits_to_fp16_rne(std::bit_cast<std::uint32_t>(z)));
    nan |= z != z;
  }
  return nan;
}

#ifdef PTO_HAVE_F16C_PATH

#define PTO_F16C __attribute__((target("avx2,f16c")))
// Round to nearest even, exceptions reported (fp16_binary_with_flags reads them).
constexpr int kRne = _MM_FROUND_TO_NEAREST_INT;

PTO_F16C __m256 load_half8(const std::uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

PTO_F16C bool widen_f16c(const std::uint16_t* in, std::uint32_t* out, std::size_t n) noexcept {
  const __m256 canonical = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
  __m128i snan = _mm_setzero_si128();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m256 f = _mm256_cvtph_ps(h);
    // A NaN widens with its payload; the lane converter returns the canonical NaN.
    const __m256 r = _mm256_blendv_ps(f, canonical, _mm256_cmp_ps(f, f, _CMP_UNORD_Q));
    _mm256_storeu_ps(reinterpret_cast<float*>(out + i), r);
    // sNaN: exponent all ones, quiet bit clear, payload nonzero.
    const __m128i top = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7E00)), _mm_set1_epi16(0x7C00));
    const __m128i payload = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x1FF)), _mm_setzero_si128());
    snan = _mm_or_si128(snan, _mm_andnot_si128(payload, top));
  }
  const bool tail = widen_lanes(in + i, out + i, n - i);
  return tail || !_mm_testz_si128(snan, snan);
}

PTO_F16C bool any(__m256i mask) { return !_mm256_testz_si256(mask, mask); }

PTO_F16C Flags narrow_f16c(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
  __m256i nv = _mm256_setzero_si256(), of = nv, uf = nv, nx = nv;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(x), kRne);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
    const __m256i a = _mm256_and_si256(x, magnitude);  // signed compares are exact below the sign bit
    const __m256i nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F800000));
    const __m256i finite = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x7F800000), a);
    if (!_mm256_testz_si256(nan, nan))  // rare: the canonical FP16 NaN, as the lane converter
      for (unsigned k = 0; k < 8; ++k)
        if ((in[i + k] & 0x7FFFFFFFU) > 0x7F800000U) out[i + k] = 0x7E00;
    // Inexact: the narrowed value widens back to something else (exact for
    // every FP16 value, subnormals included).
    const __m256i back = _mm256_castps_si256(_mm256_cvtph_ps(h));
    const __m256i inexact = _mm256_andnot_si256(_mm256_cmpeq_epi32(back, x), finite);
    nx = _mm256_or_si256(nx, inexact);
    // Overflow: |x| >= 65520 (the midpoint above 65504 rounds to even, 2^16).
    of = _mm256_or_si256(of, _mm256_and_si256(finite, _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x477FEFFF))));
    // Underflow: tiny after rounding (|x| < (1 - 2^-12) 2^-14) and inexact.
    uf = _mm256_or_si256(uf, _mm256_and_si256(inexact, _mm256_cmpgt_epi32(_mm256_set1_epi32(0x387FF000), a)));
    // Invalid: a signalling NaN (quiet bit clear).
    const __m256i quiet = _mm256_and_si256(x, _mm256_set1_epi32(0x00400000));
    nv = _mm256_or_si256(nv, _mm256_andnot_si256(_mm256_cmpeq_epi32(quiet, _mm256_set1_epi32(0x00400000)), nan));
  }
  const Flags vector_flags = static_cast<Flags>((any(nv) ? kNV : 0) | (any(of) ? kOF : 0) | (any(uf) ? kUF : 0) |
                                                (any(nx) ? kNX : 0));
  return static_cast<Flags>(vector_flags | narrow_lanes(in + i, out + i, n - i));
}

template <Op O>
PTO_F16C __m256 apply8(__m256 x, __m256 y) {
  if constexpr (O == Op::ADD) return _mm256_add_ps(x, y);
  else if constexpr (O == Op::SUB) return _mm256_sub_ps(x, y);
  else if constexpr (O == Op::MUL) return _mm256_mul_ps(x, y);
  else return _mm256_div_ps(x, y);
}

// The right operands of elements [i, i + 8): b's, or with Scalar the one
// element b[0] for every lane (loop-invariant, so widened once).
template <bool Scalar>
PTO_F16C __m256 right8(const std::uint16_t* b, std::size_t i) {
  if constexpr (Scalar) return _mm256_cvtph_ps(_mm_set1_epi16(static_cast<short>(b[0])));
  else return load_half8(b + i);
}

// Sixteen elements a step: one unordered compare covers both halves.
template <Op O, bool Scalar>
PTO_F16C bool binary_f16c(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept {
  __m256 nan = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 z0 = apply8<O>(load_half8(a + i), right8<Scalar>(b, i));
    const __m256 z1 = apply8<O>(load_half8(a + i + 8), right8<Scalar>(b, i + 8));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(z0, kRne));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 8), _mm256_cvtps_ph(z1, kRne));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(z0, z1, _CMP_UNORD_Q));
  }
  if constexpr (Scalar) return !_mm256_testz_ps(nan, nan);  // whole steps only (simd::padded_steps)
  const bool tail = binary_lanes(O, a + i, b + i, out + i, n - i);
  return tail || !_mm256_testz_ps(nan, nan);
}

// Thirty-two elements a step on 512-bit vectors (AVX512F has the
// conversions): the same instructions' semantics as binary_f16c.  (All-lanes
// masked conversions: GCC 12's unmasked ones merge into an undefined
// vector, which -Wmaybe-uninitialized reports.)
#define PTO_AVX512F __attribute__((target("avx512f")))
constexpr __mmask16 kAll16 = 0xFFFF;

PTO_AVX512F __m512 widen16(__m256i h) { return _mm512_maskz_cvtph_ps(kAll16, h); }

// Thirty-two elements a step, with no NaN work per lane: the loop keeps
// the largest magnitude (h & 0x7FFF) it converts, and a span holding a NaN
// (one above 0x7C00) is converted again by the lane loop, which gives the
// canonical NaN and the sNaN report.  (The AVX2 loop's per-lane blend and
// sNaN test held TCVT FP16 -> FP32 ieee at about 0.38 of memcpy.)
__attribute__((target("avx512f,avx512bw"))) bool widen_avx512(const std::uint16_t* in, std::uint32_t* out,
                                                                std::size_t n) noexcept {
  const __m512i magnitude = _mm512_set1_epi16(0x7FFF);
  __m512i largest = _mm512_setzero_si512();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    largest = _mm512_max_epu16(largest, _mm512_and_si512(_mm512_loadu_si512(in + i), magnitude));
    _mm512_storeu_ps(out + i, widen16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
    _mm512_storeu_ps(out + i + 16, widen16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 16))));
  }
  if (_mm512_cmpgt_epu16_mask(largest, _mm512_set1_epi16(0x7C00)) != 0) return widen_lanes(in, out, n);
  return widen_lanes(in + i, out + i, n - i);
}

// FP32 -> FP16 RNE sixteen elements a step, the IEEE flags from the host
// (simd::HostFlagScope: RNE, every exception masked, no DAZ/FTZ).
// VCVTPS2PH then raises IE for a signalling NaN and decides OE, UE
// (tininess after rounding, signalled only when also inexact) and PE as
// the FP16 rounding does, which are the lane converter's rules
// (fp16_scalar_with_flags leans on the same instruction).  NaNs: the loop
// keeps the largest magnitude it converts, and a span holding a NaN is
// narrowed again by the lane loop (the canonical NaN, its NV).  The AVX2
// loop's per-lane flag tests held TCVT FP32 -> FP16 ieee at about 0.08 of
// memcpy.
PTO_AVX512F Flags narrow_avx512(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
  __m512i largest = _mm512_setzero_si512();
  simd::HostFlagScope scope;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i x = _mm512_loadu_si512(in + i);
    largest = _mm512_maskz_max_epu32(kAll16, largest, _mm512_and_si512(x, magnitude));  // masked: see kAll16
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_maskz_cvtps_ph(kAll16, _mm512_castsi512_ps(x), kRne));
  }
  const Flags host = scope.take();
  if (_mm512_cmpgt_epu32_mask(largest, _mm512_set1_epi32(0x7F800000)) != 0) return narrow_lanes(in, out, n);
  return static_cast<Flags>(host | narrow_lanes(in + i, out + i, n - i));
}

// ADD and SUB as x * 1 + y and x * 1 - y: the product is exact, so the
// fused operation rounds x + y (x - y) once, as VADDPS (VSUBPS) does, with
// the same IEEE flags; but it issues on the multiply pipes, away from the
// pipes the conversions saturate (TADD FP16 ieee: 1.65 -> 1.41 ns per 32
// elements in a side-by-side loop measurement, docs/numerics.md).
template <Op O>
PTO_AVX512F __m512 apply16(__m512 x, __m512 y) {
  if constexpr (O == Op::ADD) return _mm512_fmadd_ps(x, _mm512_set1_ps(1.0f), y);
  else if constexpr (O == Op::SUB) return _mm512_fmsub_ps(x, _mm512_set1_ps(1.0f), y);
  else if constexpr (O == Op::MUL) return _mm512_mul_ps(x, y);
  else return _mm512_div_ps(x, y);
}

template <bool Scalar>
PTO_AVX512F __m512 right16(const std::uint16_t* b, std::size_t i) {
  if constexpr (Scalar) return widen16(_mm256_set1_epi16(static_cast<short>(b[0])));
  else return widen16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
}

template <Op O, bool Scalar>
PTO_AVX512F bool binary_avx512(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                               std::size_t n) noexcept {
  __mmask16 nan = 0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 x0 = widen16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    const __m512 x1 = widen16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i + 16)));
    const __m512 z0 = apply16<O>(x0, right16<Scalar>(b, i)), z1 = apply16<O>(x1, right16<Scalar>(b, i + 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_maskz_cvtps_ph(kAll16, z0, kRne));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 16), _mm512_maskz_cvtps_ph(kAll16, z1, kRne));
    nan = static_cast<__mmask16>(nan | _mm512_cmp_ps_mask(z0, z1, _CMP_UNORD_Q));
  }
  if constexpr (Scalar) return nan != 0;  // whole steps only (simd::padded_steps)
  const bool tail = binary_lanes(O, a + i, b + i, out + i, n - i);
  return tail || nan != 0;
}

// Scalar: b is one element, the right operand of every lane, and n a
// multiple of 32.
template <Op O, bool Scalar>
bool binary_widest(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept {
  if (simd::active_tier() == simd::Tier::Avx512) return binary_avx512<O, Scalar>(a, b, out, n);
  return binary_f16c<O, Scalar>(a, b, out, n);
}

template <bool Scalar>
bool binary_widest(Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept {
  switch (op) {
    case Op::ADD: return binary_widest<Op::ADD, Scalar>(a, b, out, n);
    case Op::SUB: return binary_widest<Op::SUB, Scalar>(a, b, out, n);
    case Op::MUL: return binary_widest<Op::MUL, Scalar>(a, b, out, n);
    default: return binary_widest<Op::DIV, Scalar>(a, b, out, n);
  }
}

bool detect() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // __builtin_cpu_supports("avx2") includes the OS's saving of the YMM state.
  return __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}

#endif  // PTO_HAVE_F16C_PATH

}  // namespace

#ifdef PTO_HAVE_F16C_PATH

bool available() noexcept {
  static const bool present = detect();
  return present && simd::avx2_available();
}

bool widen(const std::uint16_t* in, std::uint32_t* out, std::size_t n) noexcept {
  if (simd::active_tier() == simd::Tier::Avx512) return widen_avx512(in, out, n);
  return available() ? widen_f16c(in, out, n) : widen_lanes(in, out, n);
}

Flags narrow_rne(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  if (simd::active_tier() == simd::Tier::Avx512) return narrow_avx512(in, out, n);
  return available() ? narrow_f16c(in, out, n) : narrow_lanes(in, out, n);
}

bool binary_via_fp32(Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept {
  return available() ? binary_widest<false>(op, a, b, out, n) : binary_lanes(op, a, b, out, n);
}

}  // namespace pto::num::f16c

namespace pto::num::simd {

// Why the three instructions' flags are the FP16 operation's (v the exact
// result, w = RN24(v) the binary32 one, h = RN11(w) = RN11(v) the FP16
// one, docs/numerics.md): VCVTPH2PS is exact and raises IE only for a
// signalling NaN (NV); the binary32 operation raises IE and ZE as the FP16
// one does, never overflows (|v| < 2^41) and never underflows (v = 0 or
// |v| >= 2^-48); VCVTPS2PH decides OE, UE and PE on w.  NX: w != v implies
// h != v (h is a binary32 value), and w == v leaves h != w as the test.
// OF and tininess: RN11 of w and of v agree with an unbounded exponent
// (24 >= 2 * 11 + 2), so the overflow and tininess decisions do too.  UF
// (tiny and inexact): w != v with h == w never happens where h is tiny:
// then |v - h| < 2^-24 |h|, but for v = x / s (sums and products there
// are exact in binary32) x - h s is zero or at least 2^-22 |h s| (h s has
// at most 21 significant bits, x 11).  So only NaN results are `special`
// (PTO's canonical NaN).
std::optional<HostFlags> fp16_scalar_with_flags(f16c::Op op, const std::uint16_t* a, std::uint16_t scalar,
                                                std::uint16_t* out, std::size_t n) noexcept {
  if (!f16c::available()) return std::nullopt;
  const auto loop = [op, scalar](const std::uint16_t* x, std::uint16_t* z, std::size_t m) {
    return f16c::binary_widest<true>(op, x, &scalar, z, m);
  };
  return HostFlags{0, padded_steps<32>(loop, a, out, n)};
}

#else

bool available() noexcept { return false; }
bool widen(const std::uint16_t* in, std::uint32_t* out, std::size_t n) noexcept { return widen_lanes(in, out, n); }
Flags narrow_rne(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept {
  return narrow_lanes(in, out, n);
}
bool binary_via_fp32(Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept {
  return binary_lanes(op, a, b, out, n);
}

}  // namespace pto::num::f16c

namespace pto::num::simd {

std::optional<HostFlags> fp16_scalar_with_flags(f16c::Op, const std::uint16_t*, std::uint16_t, std::uint16_t*,
                                                std::size_t) noexcept {
  return std::nullopt;
}

#endif

}  // namespace pto::num::simd
