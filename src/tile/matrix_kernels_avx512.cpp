// AVX-512F kernels (this unit is compiled with -mavx512f -mfma): sixteen
// binary32 lanes per register, 8 columns x 2 registers of sums for 32 rows.
#include "tile/matrix_kernels_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "tile/matrix_kernel_loops.hpp"

namespace pto::tile::kernels {
namespace {

struct Avx512 {
  using Reg = __m512;
  static constexpr int kWidth = 16;
  static Reg load(const float* p) noexcept { return _mm512_loadu_ps(p); }
  static void store(float* p, Reg v) noexcept { _mm512_storeu_ps(p, v); }
  static Reg broadcast(const float* p) noexcept { return _mm512_set1_ps(*p); }
  static Reg zero() noexcept { return _mm512_setzero_ps(); }
  static Reg canonical_nan(Reg v) noexcept {
    return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                              _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(kCanonicalNaN))));
  }
  static Reg fma(Reg a, Reg b, Reg c) noexcept { return _mm512_fmadd_ps(a, b, c); }
};

// Word sums: VPMULUDQ / VPMULDQ multiply the low 32 bits of each 64-bit
// lane (zero- or sign-extended operands) into the exact 64-bit product.
// The zero-masking forms (all lanes): GCC 12 warns on the plain ones'
// undefined passthrough.
struct Avx512Words {
  using Reg = __m512i;
  static constexpr int kWidth = 8;
  static Reg widen(const std::uint32_t* p) noexcept { return _mm512_maskz_cvtepu32_epi64(0xFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
  static Reg widen(const std::int32_t* p) noexcept { return _mm512_maskz_cvtepi32_epi64(0xFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
  static Reg splat(std::uint32_t v) noexcept { return _mm512_set1_epi64(static_cast<long long>(v)); }
  static Reg splat(std::int32_t v) noexcept { return _mm512_set1_epi64(v); }
  static Reg multiply(Reg a, Reg b, std::uint32_t) noexcept { return _mm512_maskz_mul_epu32(0xFF, a, b); }
  static Reg multiply(Reg a, Reg b, std::int32_t) noexcept { return _mm512_maskz_mul_epi32(0xFF, a, b); }
  static Reg add(Reg a, Reg b) noexcept { return _mm512_add_epi64(a, b); }
  static Reg load(const std::uint64_t* p) noexcept { return _mm512_loadu_si512(p); }
  static void store(std::uint64_t* p, Reg v) noexcept { _mm512_storeu_si512(p, v); }
  static Reg zero() noexcept { return _mm512_setzero_si512(); }
};

}  // namespace

void fused_product_avx512(const Panels<float, float>& p) noexcept { fused_rows<Avx512, 8, 8>(p); }
void fused_gemv_avx512(const GemvPanels& p) noexcept { gemv_columns<Avx512, 8>(p); }
void word_product_avx512(const Panels<std::int32_t, std::uint64_t>& p) noexcept { word_columns<Avx512Words, 8, 4>(p); }
void word_product_avx512(const Panels<std::uint32_t, std::uint64_t>& p) noexcept { word_columns<Avx512Words, 8, 4>(p); }

void widen_fp16_avx512(const std::uint16_t* in, float* out, std::size_t n) noexcept {
  widen_fp16_vectors<16>(in, out, n, [](const std::uint16_t* h, float* o) { 
    // The zero-masking form: GCC 12 warns on the plain one's undefined passthrough.
    _mm512_storeu_ps(o, _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h))));
   });
}

}  // namespace pto::tile::kernels

#endif
