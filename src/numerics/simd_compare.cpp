#include "numerics/simd_compare.hpp"

#include <algorithm>
#include <type_traits>

#include "numerics/convert_span.hpp"
#include "numerics/simd_span.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PTO_HAVE_AVX512_COMPARE 1
#endif

namespace pto::num::simd {

namespace {

constexpr std::size_t kWordBits = 64;

template <typename T>
constexpr T sign_bit() noexcept {
  return static_cast<T>(T{1} << (sizeof(T) * 8 - 1));
}

template <typename T>
constexpr T magnitude_bits() noexcept {
  return static_cast<T>(~sign_bit<T>());
}

// A signed key whose signed order is `O`'s order of the carriers: the
// carrier itself (Signed), the carrier with its sign bit flipped
// (Unsigned), or TileFloatingOrderKey shifted into the signed range after
// -0 is replaced by +0 (Floating: negative encodings flip their magnitude
// bits, so the key of -m is -1 - m and of +m is m).
template <Order O, typename T>
constexpr std::make_signed_t<T> order_key(T v) noexcept {
  using S = std::make_signed_t<T>;
  if constexpr (O == Order::Signed) {
    return static_cast<S>(v);
  } else if constexpr (O == Order::Unsigned) {
    return static_cast<S>(static_cast<T>(v ^ sign_bit<T>()));
  } else {
    const T x = (v & magnitude_bits<T>()) == 0 ? T{0} : v;
    const T flip = (x & sign_bit<T>()) != 0 ? magnitude_bits<T>() : T{0};
    return static_cast<S>(static_cast<T>(x ^ flip));
  }
}

template <typename T>
constexpr bool is_nan(T v, T nan_above) noexcept {
  return static_cast<T>(v & magnitude_bits<T>()) > nan_above;
}

// The predicate word of 64 outcomes (less and equal exclusive), its bits
// from `count` on cleared.
std::uint64_t outcome_word(Outcomes holds, std::uint64_t less, std::uint64_t equal, std::size_t count) noexcept {
  const auto all = [](bool b) { return b ? ~std::uint64_t{0} : 0; };
  const std::uint64_t word = (less & all(holds.less)) | (equal & all(holds.equal)) | (~(less | equal) & all(holds.greater));
  return count >= kWordBits ? word : word & ((std::uint64_t{1} << count) - 1);
}

template <Order O, typename T>
PTO_NUM_CLONES bool compare_lanes(Outcomes holds, T nan_above, const T* a, const T* b, T scalar, std::size_t n,
                                  std::uint64_t* out) noexcept {
  bool nan = false;
  for (std::size_t w = 0; w * kWordBits < n; ++w) {
    const std::size_t first = w * kWordBits, m = std::min(kWordBits, n - first);
    std::uint64_t l = 0, e = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const T x = a[first + j], y = b != nullptr ? b[first + j] : scalar;
      const auto kx = order_key<O>(x), ky = order_key<O>(y);
      l |= std::uint64_t{kx < ky} << j;
      e |= std::uint64_t{kx == ky} << j;
      if constexpr (O == Order::Floating) nan |= is_nan(x, nan_above) || is_nan(y, nan_above);
    }
    out[w] = outcome_word(holds, l, e, m);
  }
  return nan;
}

template <typename T>
PTO_NUM_CLONES void select_lanes(const std::uint64_t* take, const T* on_true, const T* on_false, T scalar, T* out,
                                 std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    const T f = on_false != nullptr ? on_false[i] : scalar;
    out[i] = ((take[i / kWordBits] >> (i % kWordBits)) & 1U) != 0 ? on_true[i] : f;
  }
}

#ifdef PTO_HAVE_AVX512_COMPARE
// GCC 12's unmasked AVX-512 intrinsics merge into an undefined vector,
// which -Wmaybe-uninitialized (and -Wuninitialized) report at every use.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#define PTO_AVX512_BW __attribute__((target("avx512f,avx512bw")))

// The AVX-512 operations of one carrier width (64 / sizeof(T) lanes).
template <typename T>
struct Lanes;

template <>
struct Lanes<std::uint8_t> {
  using Mask = __mmask64;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint8_t* p) { return _mm512_maskz_loadu_epi8(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint8_t* p, __m512i v) { _mm512_mask_storeu_epi8(p, k, v); }
  PTO_AVX512_BW static __m512i load(const std::uint8_t* p) { return _mm512_loadu_si512(p); }
  PTO_AVX512_BW static __m512i maxu(__m512i x, __m512i y) { return _mm512_max_epu8(x, y); }
  PTO_AVX512_BW static __m512i set1(std::uint8_t v) { return _mm512_set1_epi8(static_cast<char>(v)); }
  template <int P>
  PTO_AVX512_BW static Mask cmp(__m512i x, __m512i y) {
    return _mm512_cmp_epi8_mask(x, y, P);
  }
  template <int P>
  PTO_AVX512_BW static Mask cmpu(__m512i x, __m512i y) {
    return _mm512_cmp_epu8_mask(x, y, P);
  }
  PTO_AVX512_BW static __m512i mask_sub(__m512i src, Mask k, __m512i x, __m512i y) {
    return _mm512_mask_sub_epi8(src, k, x, y);
  }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi8(k, x, y); }
};

template <>
struct Lanes<std::uint16_t> {
  using Mask = __mmask32;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint16_t* p) { return _mm512_maskz_loadu_epi16(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint16_t* p, __m512i v) { _mm512_mask_storeu_epi16(p, k, v); }
  PTO_AVX512_BW static __m512i load(const std::uint16_t* p) { return _mm512_loadu_si512(p); }
  PTO_AVX512_BW static __m512i maxu(__m512i x, __m512i y) { return _mm512_max_epu16(x, y); }
  PTO_AVX512_BW static __m512i set1(std::uint16_t v) { return _mm512_set1_epi16(static_cast<short>(v)); }
  template <int P>
  PTO_AVX512_BW static Mask cmp(__m512i x, __m512i y) {
    return _mm512_cmp_epi16_mask(x, y, P);
  }
  template <int P>
  PTO_AVX512_BW static Mask cmpu(__m512i x, __m512i y) {
    return _mm512_cmp_epu16_mask(x, y, P);
  }
  PTO_AVX512_BW static __m512i mask_sub(__m512i src, Mask k, __m512i x, __m512i y) {
    return _mm512_mask_sub_epi16(src, k, x, y);
  }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi16(k, x, y); }
};

template <>
struct Lanes<std::uint32_t> {
  using Mask = __mmask16;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint32_t* p) { return _mm512_maskz_loadu_epi32(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint32_t* p, __m512i v) { _mm512_mask_storeu_epi32(p, k, v); }
  PTO_AVX512_BW static __m512i load(const std::uint32_t* p) { return _mm512_loadu_si512(p); }
  PTO_AVX512_BW static __m512i maxu(__m512i x, __m512i y) { return _mm512_max_epu32(x, y); }
  PTO_AVX512_BW static __m512i set1(std::uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }
  template <int P>
  PTO_AVX512_BW static Mask cmp(__m512i x, __m512i y) {
    return _mm512_cmp_epi32_mask(x, y, P);
  }
  template <int P>
  PTO_AVX512_BW static Mask cmpu(__m512i x, __m512i y) {
    return _mm512_cmp_epu32_mask(x, y, P);
  }
  PTO_AVX512_BW static __m512i mask_sub(__m512i src, Mask k, __m512i x, __m512i y) {
    return _mm512_mask_sub_epi32(src, k, x, y);
  }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi32(k, x, y); }
};

template <>
struct Lanes<std::uint64_t> {
  using Mask = __mmask8;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint64_t* p) { return _mm512_maskz_loadu_epi64(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint64_t* p, __m512i v) { _mm512_mask_storeu_epi64(p, k, v); }
  PTO_AVX512_BW static __m512i load(const std::uint64_t* p) { return _mm512_loadu_si512(p); }
  PTO_AVX512_BW static __m512i maxu(__m512i x, __m512i y) { return _mm512_max_epu64(x, y); }
  PTO_AVX512_BW static __m512i set1(std::uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
  template <int P>
  PTO_AVX512_BW static Mask cmp(__m512i x, __m512i y) {
    return _mm512_cmp_epi64_mask(x, y, P);
  }
  template <int P>
  PTO_AVX512_BW static Mask cmpu(__m512i x, __m512i y) {
    return _mm512_cmp_epu64_mask(x, y, P);
  }
  PTO_AVX512_BW static __m512i mask_sub(__m512i src, Mask k, __m512i x, __m512i y) {
    return _mm512_mask_sub_epi64(src, k, x, y);
  }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi64(k, x, y); }
};

template <typename T>
constexpr std::size_t kLanes = 64 / sizeof(T);

// The signed value key of a floating carrier: the encoding itself when
// non-negative, minus its magnitude when negative (sign bit - x in the
// negative lanes: -m -> -m, so -0 and +0 both key 0).  Equal keys are
// equal values, so the key order is the value order with -0 == +0 and one
// signed compare gives each relation.  Two operations: a sign test into a
// mask and a masked subtraction.
template <typename T>
PTO_AVX512_BW __m512i value_key(__m512i x, __m512i sign) {
  using L = Lanes<T>;
  return L::mask_sub(x, L::template cmp<_MM_CMPINT_LT>(x, _mm512_setzero_si512()), sign, x);
}

// The load mask of the lanes from `first` below n.
template <typename T>
PTO_AVX512_BW typename Lanes<T>::Mask lanes_below(std::size_t first, std::size_t n) {
  const std::size_t count = std::min(kLanes<T>, n - first);
  return static_cast<typename Lanes<T>::Mask>(count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1);
}

// The loops of compare_avx512: integer orders, Floating through integer
// keys, and Floating binary32/binary64 carriers through the host's quiet
// compares (exact when MXCSR.DAZ is clear: then the compares see every
// subnormal, order -0 == +0 and report NaN pairs unordered).
enum class Kind : std::uint8_t { Signed, Unsigned, FloatingKeys, FloatingHost };

// The one relation a lane computes: every outcome set TileCompareBoolean
// gives is one of these, its complement (GT: not LE, NE: not EQ, GE: not
// LT) or a constant, applied to whole words (WordForm).
enum class Relation : std::uint8_t { Less, Equal, LessOrEqual };

// A predicate word is (relation bits & keep) ^ flip.
struct WordForm {
  Relation relation;
  std::uint64_t keep, flip;
};

WordForm word_form(Outcomes h) noexcept {
  constexpr std::uint64_t kAll = ~std::uint64_t{0};
  const int count = int{h.less} + int{h.equal} + int{h.greater};
  if (count == 0 || count == 3) return {Relation::Less, 0, count == 3 ? kAll : 0};
  const bool complement = count == 2;
  // The single outcome that holds, or the one that does not.
  const bool less = h.less != complement, equal = h.equal != complement;
  const Relation r = less ? Relation::Less : equal ? Relation::Equal : Relation::LessOrEqual;
  // GREATER alone is not LE; not GREATER is LE.
  const bool flip = (r == Relation::LessOrEqual) != complement;
  return {r, kAll, flip ? kAll : 0};
}

// The integer compare predicate of a relation; the quiet host one for
// floating carriers (a NaN pair's bit is the caller's).
template <Relation R>
constexpr int kIntegerPredicate = R == Relation::Less ? _MM_CMPINT_LT : R == Relation::Equal ? _MM_CMPINT_EQ : _MM_CMPINT_LE;
template <Relation R>
constexpr int kHostPredicate = R == Relation::Less ? _CMP_LT_OQ : R == Relation::Equal ? _CMP_EQ_OQ : _CMP_LE_OQ;

template <typename T>
struct Relations {
  typename Lanes<T>::Mask holds, nan;
};

// Floating keys: value_key of both operands.  NaNs: `widest` accumulates
// the largest magnitude, compared with the NaN bound once per call.
template <Kind K, Relation R, typename T>
PTO_AVX512_BW Relations<T> relate(__m512i x, __m512i y, __m512i& widest) {
  using L = Lanes<T>;
  if constexpr (K == Kind::Signed) {
    return {L::template cmp<kIntegerPredicate<R>>(x, y), 0};
  } else if constexpr (K == Kind::Unsigned) {
    return {L::template cmpu<kIntegerPredicate<R>>(x, y), 0};
  } else if constexpr (K == Kind::FloatingHost && sizeof(T) == 4) {
    const __m512 fx = _mm512_castsi512_ps(x), fy = _mm512_castsi512_ps(y);
    return {_mm512_cmp_ps_mask(fx, fy, kHostPredicate<R>), _mm512_cmp_ps_mask(fx, fy, _CMP_UNORD_Q)};
  } else if constexpr (K == Kind::FloatingHost) {
    const __m512d fx = _mm512_castsi512_pd(x), fy = _mm512_castsi512_pd(y);
    return {_mm512_cmp_pd_mask(fx, fy, kHostPredicate<R>), _mm512_cmp_pd_mask(fx, fy, _CMP_UNORD_Q)};
  } else {
    const __m512i sign = L::set1(sign_bit<T>()), magnitude = L::set1(magnitude_bits<T>());
    widest = L::maxu(widest, L::maxu(_mm512_and_si512(x, magnitude), _mm512_and_si512(y, magnitude)));
    return {L::template cmp<kIntegerPredicate<R>>(value_key<T>(x, sign), value_key<T>(y, sign)), 0};
  }
}

// One 64-lane word from `first`: sizeof(T) vectors, lanes from n on masked
// off (a full word: no lane masked).
template <Kind K, Relation R, typename T, bool Tail>
PTO_AVX512_BW void relate_word(WordForm form, const T* a, const T* b, __m512i broadcast, std::size_t first,
                               std::size_t n, std::uint64_t* out, std::uint64_t& nan, __m512i& widest) {
  using L = Lanes<T>;
  std::uint64_t word = 0;
  for (std::size_t v = 0; v < sizeof(T); ++v) {
    const std::size_t at = first + v * kLanes<T>;
    if (Tail && at >= n) break;
    const auto k = Tail ? lanes_below<T>(at, n) : static_cast<typename L::Mask>(~std::uint64_t{0});
    const __m512i x = Tail ? L::load(k, a + at) : L::load(a + at);
    const __m512i y = b == nullptr ? broadcast : Tail ? L::load(k, b + at) : L::load(b + at);
    const Relations<T> r = relate<K, R, T>(x, y, widest);
    word |= static_cast<std::uint64_t>(r.holds) << (v * kLanes<T>);
    nan |= static_cast<typename L::Mask>(r.nan & k);
  }
  const std::size_t count = Tail ? n - first : kWordBits;
  word = (word & form.keep) ^ form.flip;
  out[first / kWordBits] = count >= kWordBits ? word : word & ((std::uint64_t{1} << count) - 1);
}

template <Kind K, Relation R, typename T>
PTO_AVX512_BW bool compare_avx512(WordForm form, T nan_above, const T* a, const T* b, T scalar, std::size_t n,
                                  std::uint64_t* out) noexcept {
  using L = Lanes<T>;
  const __m512i broadcast = L::set1(scalar);
  __m512i widest = _mm512_setzero_si512();
  std::uint64_t nan = 0;
  std::size_t first = 0;
  for (; first + kWordBits <= n; first += kWordBits)
    relate_word<K, R, T, false>(form, a, b, broadcast, first, n, out, nan, widest);
  if (first < n) relate_word<K, R, T, true>(form, a, b, broadcast, first, n, out, nan, widest);
  return nan != 0 || L::template cmpu<_MM_CMPINT_LT>(L::set1(nan_above), widest) != 0;
}

// compare_avx512 for the relation of `holds`.
template <Kind K, typename T>
PTO_AVX512_BW bool compare_relation(Outcomes holds, T nan_above, const T* a, const T* b, T scalar, std::size_t n,
                                    std::uint64_t* out) noexcept {
  const WordForm form = word_form(holds);
  switch (form.relation) {
    case Relation::Less: return compare_avx512<K, Relation::Less>(form, nan_above, a, b, scalar, n, out);
    case Relation::Equal: return compare_avx512<K, Relation::Equal>(form, nan_above, a, b, scalar, n, out);
    default: return compare_avx512<K, Relation::LessOrEqual>(form, nan_above, a, b, scalar, n, out);
  }
}

template <typename T>
PTO_AVX512_BW void select_avx512(const std::uint64_t* take, const T* on_true, const T* on_false, T scalar, T* out,
                                 std::size_t n) noexcept {
  using L = Lanes<T>;
  const __m512i broadcast = L::set1(scalar);
  for (std::size_t first = 0; first < n; first += kLanes<T>) {
    const auto k = lanes_below<T>(first, n);
    const auto pick = static_cast<typename L::Mask>(take[first / kWordBits] >> (first % kWordBits));
    const __m512i f = on_false != nullptr ? L::load(k, on_false + first) : broadcast;
    L::store(k, out + first, L::blend(pick, f, L::load(k, on_true + first)));
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// ---- AVX2 (hosts without AVX-512) ----
//
// The same relations on 256-bit vectors with AVX2's signed compares (no
// mask registers): Unsigned flips the sign bits, FloatingKeys compares
// value_key's keys (negative lanes by a compare with zero and a blend),
// FloatingHost the host's quiet compares; each lane mask becomes bits by
// VPMOVMSKB / VMOVMSKPS / VMOVMSKPD (16-bit lanes packed to bytes first).
// LessOrEqual is the complement of the Greater compare.  Whole 64-lane
// words only: the last partial word takes the portable loop.
#define PTO_AVX2_COMPARE __attribute__((target("avx2")))

template <typename T>
struct Lanes2 {
  PTO_AVX2_COMPARE static __m256i set1(T v) {
    if constexpr (sizeof(T) == 1) return _mm256_set1_epi8(static_cast<char>(v));
    else if constexpr (sizeof(T) == 2) return _mm256_set1_epi16(static_cast<short>(v));
    else if constexpr (sizeof(T) == 4) return _mm256_set1_epi32(static_cast<int>(v));
    else return _mm256_set1_epi64x(static_cast<long long>(v));
  }
  PTO_AVX2_COMPARE static __m256i gt(__m256i x, __m256i y) {
    if constexpr (sizeof(T) == 1) return _mm256_cmpgt_epi8(x, y);
    else if constexpr (sizeof(T) == 2) return _mm256_cmpgt_epi16(x, y);
    else if constexpr (sizeof(T) == 4) return _mm256_cmpgt_epi32(x, y);
    else return _mm256_cmpgt_epi64(x, y);
  }
  PTO_AVX2_COMPARE static __m256i eq(__m256i x, __m256i y) {
    if constexpr (sizeof(T) == 1) return _mm256_cmpeq_epi8(x, y);
    else if constexpr (sizeof(T) == 2) return _mm256_cmpeq_epi16(x, y);
    else if constexpr (sizeof(T) == 4) return _mm256_cmpeq_epi32(x, y);
    else return _mm256_cmpeq_epi64(x, y);
  }
  PTO_AVX2_COMPARE static __m256i sub(__m256i x, __m256i y) {
    if constexpr (sizeof(T) == 1) return _mm256_sub_epi8(x, y);
    else if constexpr (sizeof(T) == 2) return _mm256_sub_epi16(x, y);
    else if constexpr (sizeof(T) == 4) return _mm256_sub_epi32(x, y);
    else return _mm256_sub_epi64(x, y);
  }
};

// Vectors per 64-lane word.
template <typename T>
constexpr std::size_t kVectors2 = 2 * sizeof(T);

// The relation's lane mask: all ones where it holds (LessOrEqual: where
// Greater holds; the caller complements the word).  FloatingKeys: `nan`
// collects the lanes with a NaN operand.
template <Kind K, Relation R, typename T>
PTO_AVX2_COMPARE __m256i relate2(__m256i x, __m256i y, __m256i nan_above, __m256i& nan) {
  using L = Lanes2<T>;
  if constexpr (K == Kind::FloatingHost && sizeof(T) == 4) {
    const __m256 fx = _mm256_castsi256_ps(x), fy = _mm256_castsi256_ps(y);
    nan = _mm256_or_si256(nan, _mm256_castps_si256(_mm256_cmp_ps(fx, fy, _CMP_UNORD_Q)));
    constexpr int predicate = R == Relation::Less ? _CMP_LT_OQ : R == Relation::Equal ? _CMP_EQ_OQ : _CMP_GT_OQ;
    return _mm256_castps_si256(_mm256_cmp_ps(fx, fy, predicate));
  } else if constexpr (K == Kind::FloatingHost) {
    const __m256d fx = _mm256_castsi256_pd(x), fy = _mm256_castsi256_pd(y);
    nan = _mm256_or_si256(nan, _mm256_castpd_si256(_mm256_cmp_pd(fx, fy, _CMP_UNORD_Q)));
    constexpr int predicate = R == Relation::Less ? _CMP_LT_OQ : R == Relation::Equal ? _CMP_EQ_OQ : _CMP_GT_OQ;
    return _mm256_castpd_si256(_mm256_cmp_pd(fx, fy, predicate));
  } else {
    const __m256i sign = L::set1(sign_bit<T>());
    if constexpr (K == Kind::Unsigned) {
      x = _mm256_xor_si256(x, sign);
      y = _mm256_xor_si256(y, sign);
    } else if constexpr (K == Kind::FloatingKeys) {
      const __m256i magnitude = L::set1(magnitude_bits<T>()), zero = _mm256_setzero_si256();
      nan = _mm256_or_si256(nan, _mm256_or_si256(L::gt(_mm256_and_si256(x, magnitude), nan_above),
                                                 L::gt(_mm256_and_si256(y, magnitude), nan_above)));
      x = _mm256_blendv_epi8(x, L::sub(sign, x), L::gt(zero, x));  // value_key
      y = _mm256_blendv_epi8(y, L::sub(sign, y), L::gt(zero, y));
    }
    if constexpr (R == Relation::Less) return L::gt(y, x);
    else if constexpr (R == Relation::Equal) return L::eq(x, y);
    else return L::gt(x, y);
  }
}

// The 64 bits of a word's lane masks, lane i at bit i.
template <typename T>
PTO_AVX2_COMPARE std::uint64_t word_bits2(const __m256i (&m)[kVectors2<T>]) {
  std::uint64_t word = 0;
  if constexpr (sizeof(T) == 2) {
    for (std::size_t p = 0; p < 2; ++p) {
      // The pack interleaves 128-bit halves; the permutation restores order.
      const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packs_epi16(m[2 * p], m[2 * p + 1]), 0xD8);
      word |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(bytes))} << (32 * p);
    }
  } else {
    for (std::size_t v = 0; v < kVectors2<T>; ++v) {
      const std::uint32_t bits = sizeof(T) == 1   ? static_cast<std::uint32_t>(_mm256_movemask_epi8(m[v]))
                                 : sizeof(T) == 4 ? static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(m[v])))
                                                  : static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(m[v])));
      word |= std::uint64_t{bits} << (v * 32 / sizeof(T));
    }
  }
  return word;
}

template <Kind K, Relation R, typename T>
PTO_AVX2_COMPARE bool compare_avx2(WordForm form, Outcomes holds, T nan_above, const T* a, const T* b, T scalar,
                                   std::size_t n, std::uint64_t* out) noexcept {
  const __m256i broadcast = Lanes2<T>::set1(scalar), bound = Lanes2<T>::set1(nan_above);
  const std::uint64_t complement = R == Relation::LessOrEqual ? ~std::uint64_t{0} : 0;
  __m256i nan = _mm256_setzero_si256();
  std::size_t first = 0;
  for (; first + kWordBits <= n; first += kWordBits) {
    __m256i m[kVectors2<T>];
    for (std::size_t v = 0; v < kVectors2<T>; ++v) {
      const std::size_t at = first + v * 32 / sizeof(T);
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + at));
      const __m256i y = b == nullptr ? broadcast : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + at));
      m[v] = relate2<K, R, T>(x, y, bound, nan);
    }
    out[first / kWordBits] = ((word_bits2<T>(m) ^ complement) & form.keep) ^ form.flip;
  }
  constexpr Order order = K == Kind::Signed ? Order::Signed : K == Kind::Unsigned ? Order::Unsigned : Order::Floating;
  const bool tail = first < n && compare_lanes<order>(holds, nan_above, a + first, b == nullptr ? nullptr : b + first,
                                                      scalar, n - first, out + first / kWordBits);
  return tail || !_mm256_testz_si256(nan, nan);
}

template <Kind K, typename T>
PTO_AVX2_COMPARE bool compare_relation2(Outcomes holds, T nan_above, const T* a, const T* b, T scalar, std::size_t n,
                                        std::uint64_t* out) noexcept {
  const WordForm form = word_form(holds);
  switch (form.relation) {
    case Relation::Less: return compare_avx2<K, Relation::Less>(form, holds, nan_above, a, b, scalar, n, out);
    case Relation::Equal: return compare_avx2<K, Relation::Equal>(form, holds, nan_above, a, b, scalar, n, out);
    default: return compare_avx2<K, Relation::LessOrEqual>(form, holds, nan_above, a, b, scalar, n, out);
  }
}

// The host compares of binary32/binary64 carriers (FloatingHost) see
// subnormals only while MXCSR.DAZ is clear.
bool host_compares_exact() noexcept {
  constexpr std::uint32_t kDenormalsAreZero = 0x0040;
  return (_mm_getcsr() & kDenormalsAreZero) == 0;
}
#endif

template <Order O, typename T>
bool compare_order(Outcomes holds, T nan_above, const T* a, const T* b, T scalar, std::size_t n,
                   std::uint64_t* out) noexcept {
#ifdef PTO_HAVE_AVX512_COMPARE
  if (active_tier() == Tier::Avx512) {
    if constexpr (O == Order::Signed) return compare_relation<Kind::Signed>(holds, nan_above, a, b, scalar, n, out);
    if constexpr (O == Order::Unsigned) return compare_relation<Kind::Unsigned>(holds, nan_above, a, b, scalar, n, out);
    // 32- and 64-bit Floating carriers are binary32 (FP32, and TF32/HF32
    // with zero low bits) and binary64 encodings.
    if constexpr (sizeof(T) >= 4)
      if (host_compares_exact()) return compare_relation<Kind::FloatingHost>(holds, nan_above, a, b, scalar, n, out);
    return compare_relation<Kind::FloatingKeys>(holds, nan_above, a, b, scalar, n, out);
  }
  if (avx2_available()) {
    if constexpr (O == Order::Signed) return compare_relation2<Kind::Signed>(holds, nan_above, a, b, scalar, n, out);
    if constexpr (O == Order::Unsigned) return compare_relation2<Kind::Unsigned>(holds, nan_above, a, b, scalar, n, out);
    if constexpr (sizeof(T) >= 4)
      if (host_compares_exact()) return compare_relation2<Kind::FloatingHost>(holds, nan_above, a, b, scalar, n, out);
    return compare_relation2<Kind::FloatingKeys>(holds, nan_above, a, b, scalar, n, out);
  }
#endif
  return compare_lanes<O>(holds, nan_above, a, b, scalar, n, out);
}

template <typename T>
bool compare_of(Order order, Outcomes holds, T nan_above, const T* a, const T* b, T scalar, std::size_t n,
                std::uint64_t* out) noexcept {
  switch (order) {
    case Order::Signed: return compare_order<Order::Signed>(holds, nan_above, a, b, scalar, n, out);
    case Order::Unsigned: return compare_order<Order::Unsigned>(holds, nan_above, a, b, scalar, n, out);
    default: return compare_order<Order::Floating>(holds, nan_above, a, b, scalar, n, out);
  }
}

template <typename T>
void select_of(const std::uint64_t* take, const T* on_true, const T* on_false, T scalar, T* out,
               std::size_t n) noexcept {
#ifdef PTO_HAVE_AVX512_COMPARE
  if (active_tier() == Tier::Avx512) {
    select_avx512(take, on_true, on_false, scalar, out, n);
    return;
  }
#endif
  select_lanes(take, on_true, on_false, scalar, out, n);
}

}  // namespace

bool compare_bits(Order order, Outcomes holds, std::uint8_t nan_above, const std::uint8_t* a, const std::uint8_t* b,
                  std::uint8_t scalar, std::size_t n, std::uint64_t* out) noexcept {
  return compare_of(order, holds, nan_above, a, b, scalar, n, out);
}
bool compare_bits(Order order, Outcomes holds, std::uint16_t nan_above, const std::uint16_t* a, const std::uint16_t* b,
                  std::uint16_t scalar, std::size_t n, std::uint64_t* out) noexcept {
  return compare_of(order, holds, nan_above, a, b, scalar, n, out);
}
bool compare_bits(Order order, Outcomes holds, std::uint32_t nan_above, const std::uint32_t* a, const std::uint32_t* b,
                  std::uint32_t scalar, std::size_t n, std::uint64_t* out) noexcept {
  return compare_of(order, holds, nan_above, a, b, scalar, n, out);
}
bool compare_bits(Order order, Outcomes holds, std::uint64_t nan_above, const std::uint64_t* a, const std::uint64_t* b,
                  std::uint64_t scalar, std::size_t n, std::uint64_t* out) noexcept {
  return compare_of(order, holds, nan_above, a, b, scalar, n, out);
}

void select_bits(const std::uint64_t* take, const std::uint8_t* on_true, const std::uint8_t* on_false,
                 std::uint8_t scalar, std::uint8_t* out, std::size_t n) noexcept {
  select_of(take, on_true, on_false, scalar, out, n);
}
void select_bits(const std::uint64_t* take, const std::uint16_t* on_true, const std::uint16_t* on_false,
                 std::uint16_t scalar, std::uint16_t* out, std::size_t n) noexcept {
  select_of(take, on_true, on_false, scalar, out, n);
}
void select_bits(const std::uint64_t* take, const std::uint32_t* on_true, const std::uint32_t* on_false,
                 std::uint32_t scalar, std::uint32_t* out, std::size_t n) noexcept {
  select_of(take, on_true, on_false, scalar, out, n);
}
void select_bits(const std::uint64_t* take, const std::uint64_t* on_true, const std::uint64_t* on_false,
                 std::uint64_t scalar, std::uint64_t* out, std::size_t n) noexcept {
  select_of(take, on_true, on_false, scalar, out, n);
}

}  // namespace pto::num::simd
