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

template <Order O, typename T>
PTO_NUM_CLONES bool compare_lanes(T nan_above, const T* a, const T* b, T scalar, std::size_t n, std::uint64_t* less,
                                  std::uint64_t* equal) noexcept {
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
    less[w] = l;
    equal[w] = e;
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
#define PTO_AVX512_BW __attribute__((target("avx512f,avx512bw")))

// The AVX-512 operations of one carrier width (64 / sizeof(T) lanes).
template <typename T>
struct Lanes;

template <>
struct Lanes<std::uint8_t> {
  using Mask = __mmask64;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint8_t* p) { return _mm512_maskz_loadu_epi8(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint8_t* p, __m512i v) { _mm512_mask_storeu_epi8(p, k, v); }
  PTO_AVX512_BW static __m512i set1(std::uint8_t v) { return _mm512_set1_epi8(static_cast<char>(v)); }
  PTO_AVX512_BW static Mask lt(__m512i x, __m512i y) { return _mm512_cmplt_epi8_mask(x, y); }
  PTO_AVX512_BW static Mask ltu(__m512i x, __m512i y) { return _mm512_cmplt_epu8_mask(x, y); }
  PTO_AVX512_BW static Mask eq(__m512i x, __m512i y) { return _mm512_cmpeq_epi8_mask(x, y); }
  PTO_AVX512_BW static Mask test(__m512i x, __m512i y) { return _mm512_test_epi8_mask(x, y); }
  PTO_AVX512_BW static __m512i maskz_mov(Mask k, __m512i x) { return _mm512_maskz_mov_epi8(k, x); }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi8(k, x, y); }
};

template <>
struct Lanes<std::uint16_t> {
  using Mask = __mmask32;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint16_t* p) { return _mm512_maskz_loadu_epi16(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint16_t* p, __m512i v) { _mm512_mask_storeu_epi16(p, k, v); }
  PTO_AVX512_BW static __m512i set1(std::uint16_t v) { return _mm512_set1_epi16(static_cast<short>(v)); }
  PTO_AVX512_BW static Mask lt(__m512i x, __m512i y) { return _mm512_cmplt_epi16_mask(x, y); }
  PTO_AVX512_BW static Mask ltu(__m512i x, __m512i y) { return _mm512_cmplt_epu16_mask(x, y); }
  PTO_AVX512_BW static Mask eq(__m512i x, __m512i y) { return _mm512_cmpeq_epi16_mask(x, y); }
  PTO_AVX512_BW static Mask test(__m512i x, __m512i y) { return _mm512_test_epi16_mask(x, y); }
  PTO_AVX512_BW static __m512i maskz_mov(Mask k, __m512i x) { return _mm512_maskz_mov_epi16(k, x); }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi16(k, x, y); }
};

template <>
struct Lanes<std::uint32_t> {
  using Mask = __mmask16;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint32_t* p) { return _mm512_maskz_loadu_epi32(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint32_t* p, __m512i v) { _mm512_mask_storeu_epi32(p, k, v); }
  PTO_AVX512_BW static __m512i set1(std::uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }
  PTO_AVX512_BW static Mask lt(__m512i x, __m512i y) { return _mm512_cmplt_epi32_mask(x, y); }
  PTO_AVX512_BW static Mask ltu(__m512i x, __m512i y) { return _mm512_cmplt_epu32_mask(x, y); }
  PTO_AVX512_BW static Mask eq(__m512i x, __m512i y) { return _mm512_cmpeq_epi32_mask(x, y); }
  PTO_AVX512_BW static Mask test(__m512i x, __m512i y) { return _mm512_test_epi32_mask(x, y); }
  PTO_AVX512_BW static __m512i maskz_mov(Mask k, __m512i x) { return _mm512_maskz_mov_epi32(k, x); }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi32(k, x, y); }
};

template <>
struct Lanes<std::uint64_t> {
  using Mask = __mmask8;
  PTO_AVX512_BW static __m512i load(Mask k, const std::uint64_t* p) { return _mm512_maskz_loadu_epi64(k, p); }
  PTO_AVX512_BW static void store(Mask k, std::uint64_t* p, __m512i v) { _mm512_mask_storeu_epi64(p, k, v); }
  PTO_AVX512_BW static __m512i set1(std::uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
  PTO_AVX512_BW static Mask lt(__m512i x, __m512i y) { return _mm512_cmplt_epi64_mask(x, y); }
  PTO_AVX512_BW static Mask ltu(__m512i x, __m512i y) { return _mm512_cmplt_epu64_mask(x, y); }
  PTO_AVX512_BW static Mask eq(__m512i x, __m512i y) { return _mm512_cmpeq_epi64_mask(x, y); }
  PTO_AVX512_BW static Mask test(__m512i x, __m512i y) { return _mm512_test_epi64_mask(x, y); }
  PTO_AVX512_BW static __m512i maskz_mov(Mask k, __m512i x) { return _mm512_maskz_mov_epi64(k, x); }
  PTO_AVX512_BW static __m512i blend(Mask k, __m512i x, __m512i y) { return _mm512_mask_blend_epi64(k, x, y); }
};

template <typename T>
constexpr std::size_t kLanes = 64 / sizeof(T);

// The load mask of the lanes from `first` below n.
template <typename T>
PTO_AVX512_BW typename Lanes<T>::Mask lanes_below(std::size_t first, std::size_t n) {
  const std::size_t count = std::min(kLanes<T>, n - first);
  return static_cast<typename Lanes<T>::Mask>(count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1);
}

// The Floating order_key of a vector: the zero test, the sign test and one
// blend of the magnitude-flipped carriers.
template <typename T>
PTO_AVX512_BW __m512i floating_key512(__m512i v) {
  using L = Lanes<T>;
  const __m512i magnitude = L::set1(magnitude_bits<T>());
  const __m512i x = L::maskz_mov(L::test(v, magnitude), v);
  return L::blend(L::lt(x, _mm512_setzero_si512()), x, _mm512_xor_si512(x, magnitude));
}

template <Order O, typename T>
PTO_AVX512_BW bool compare_avx512(T nan_above, const T* a, const T* b, T scalar, std::size_t n, std::uint64_t* less,
                                  std::uint64_t* equal) noexcept {
  using L = Lanes<T>;
  const __m512i magnitude = L::set1(magnitude_bits<T>()), limit = L::set1(nan_above), broadcast = L::set1(scalar);
  std::uint64_t nan = 0;
  for (std::size_t w = 0; w * kWordBits < n; ++w) {
    std::uint64_t l = 0, e = 0;
    for (std::size_t v = 0; v < sizeof(T); ++v) {
      const std::size_t first = w * kWordBits + v * kLanes<T>;
      if (first >= n) break;
      const auto k = lanes_below<T>(first, n);
      const __m512i x = L::load(k, a + first), y = b != nullptr ? L::load(k, b + first) : broadcast;
      typename L::Mask lt = 0, eq = 0;
      if constexpr (O == Order::Floating) {
        const __m512i kx = floating_key512<T>(x), ky = floating_key512<T>(y);
        lt = L::lt(kx, ky);
        eq = L::eq(kx, ky);
        nan |= L::ltu(limit, _mm512_and_si512(x, magnitude)) | L::ltu(limit, _mm512_and_si512(y, magnitude));
      } else {
        lt = O == Order::Signed ? L::lt(x, y) : L::ltu(x, y);
        eq = L::eq(x, y);
      }
      const unsigned shift = static_cast<unsigned>(v * kLanes<T>);
      l |= static_cast<std::uint64_t>(lt & k) << shift;
      e |= static_cast<std::uint64_t>(eq & k) << shift;
    }
    less[w] = l;
    equal[w] = e;
  }
  return nan != 0;
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
#endif

template <Order O, typename T>
bool compare_order(T nan_above, const T* a, const T* b, T scalar, std::size_t n, std::uint64_t* less,
                   std::uint64_t* equal) noexcept {
#ifdef PTO_HAVE_AVX512_COMPARE
  if (active_tier() == Tier::Avx512) return compare_avx512<O>(nan_above, a, b, scalar, n, less, equal);
#endif
  return compare_lanes<O>(nan_above, a, b, scalar, n, less, equal);
}

template <typename T>
bool compare_of(Order order, T nan_above, const T* a, const T* b, T scalar, std::size_t n, std::uint64_t* less,
                std::uint64_t* equal) noexcept {
  switch (order) {
    case Order::Signed: return compare_order<Order::Signed>(nan_above, a, b, scalar, n, less, equal);
    case Order::Unsigned: return compare_order<Order::Unsigned>(nan_above, a, b, scalar, n, less, equal);
    default: return compare_order<Order::Floating>(nan_above, a, b, scalar, n, less, equal);
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

bool compare_bits(Order order, std::uint8_t nan_above, const std::uint8_t* a, const std::uint8_t* b,
                  std::uint8_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept {
  return compare_of(order, nan_above, a, b, scalar, n, less, equal);
}
bool compare_bits(Order order, std::uint16_t nan_above, const std::uint16_t* a, const std::uint16_t* b,
                  std::uint16_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept {
  return compare_of(order, nan_above, a, b, scalar, n, less, equal);
}
bool compare_bits(Order order, std::uint32_t nan_above, const std::uint32_t* a, const std::uint32_t* b,
                  std::uint32_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept {
  return compare_of(order, nan_above, a, b, scalar, n, less, equal);
}
bool compare_bits(Order order, std::uint64_t nan_above, const std::uint64_t* a, const std::uint64_t* b,
                  std::uint64_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept {
  return compare_of(order, nan_above, a, b, scalar, n, less, equal);
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
