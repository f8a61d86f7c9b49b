// AVX2+FMA kernels (this unit is compiled with -mavx2 -mfma): eight binary32
// lanes per register, 8 sums (2 columns x 4 registers) for 32 rows.
#include "tile/matrix_kernels_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "tile/matrix_kernel_loops.hpp"

namespace pto::tile::kernels {
namespace {

struct Avx2 {
  using Reg = __m256;
  static constexpr int kWidth = 8;
  static Reg load(const float* p) noexcept { return _mm256_loadu_ps(p); }
  static void store(float* p, Reg v) noexcept { _mm256_storeu_ps(p, v); }
  static Reg broadcast(const float* p) noexcept { return _mm256_broadcast_ss(p); }
  static Reg zero() noexcept { return _mm256_setzero_ps(); }
  static Reg canonical_nan(Reg v) noexcept {
    return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(kCanonicalNaN))),
                            _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  static Reg fma(Reg a, Reg b, Reg c) noexcept { return _mm256_fmadd_ps(a, b, c); }
};

// Narrow Word sums: VPMADDWD multiplies eight pairs of 16-bit values and
// adds each pair's products in 32 bits.
struct Avx2Pairs {
  using Reg = __m256i;
  static constexpr int kWidth = 8;
  static Reg load(const std::int16_t* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static Reg broadcast(const std::int16_t* p) noexcept {
    std::int32_t pair = 0;
    __builtin_memcpy(&pair, p, sizeof pair);
    return _mm256_set1_epi32(pair);
  }
  static Reg madd(Reg a, Reg b) noexcept { return _mm256_madd_epi16(a, b); }
  static Reg add(Reg a, Reg b) noexcept { return _mm256_add_epi32(a, b); }
  static Reg zero() noexcept { return _mm256_setzero_si256(); }
  static void store(std::int32_t* p, Reg v) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
};

// Word sums: VPMULUDQ / VPMULDQ multiply the low 32 bits of each 64-bit
// lane (zero- or sign-extended operands) into the exact 64-bit product.
struct Avx2Words {
  using Reg = __m256i;
  static constexpr int kWidth = 4;
  static Reg widen(const std::uint32_t* p) noexcept { return _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  static Reg widen(const std::int32_t* p) noexcept { return _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  static Reg splat(std::uint32_t v) noexcept { return _mm256_set1_epi64x(static_cast<long long>(v)); }
  static Reg splat(std::int32_t v) noexcept { return _mm256_set1_epi64x(v); }
  static Reg multiply(Reg a, Reg b, std::uint32_t) noexcept { return _mm256_mul_epu32(a, b); }
  static Reg multiply(Reg a, Reg b, std::int32_t) noexcept { return _mm256_mul_epi32(a, b); }
  static Reg add(Reg a, Reg b) noexcept { return _mm256_add_epi64(a, b); }
  static Reg load(const std::uint64_t* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(std::uint64_t* p, Reg v) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Reg zero() noexcept { return _mm256_setzero_si256(); }
};

}  // namespace

void pair_product_avx2(const PairPanels& p) noexcept { pair_columns<Avx2Pairs, 4, 2>(p); }
void fused_product_avx2(const Panels<float, float>& p) noexcept { fused_rows<Avx2, 4, 2>(p); }
void fused_gemv_avx2(const GemvPanels& p) noexcept { gemv_columns<Avx2, 8>(p); }
void word_product_avx2(const Panels<std::int32_t, std::uint64_t>& p) noexcept { word_columns<Avx2Words, 2, 1>(p); }
void word_product_avx2(const Panels<std::uint32_t, std::uint64_t>& p) noexcept { word_columns<Avx2Words, 2, 1>(p); }

void widen_fp16_avx2(const std::uint16_t* in, float* out, std::size_t n) noexcept {
  widen_fp16_vectors<8>(in, out, n, [](const std::uint16_t* h, float* o) { _mm256_storeu_ps(o, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)))); });
}

}  // namespace pto::tile::kernels

#endif
