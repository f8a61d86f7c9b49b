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

}  // namespace

void fused_product_avx512(const Panels<float, float>& p) noexcept { fused_rows<Avx512, 8, 8>(p); }
void fused_gemv_avx512(const GemvPanels& p) noexcept { gemv_columns<Avx512, 8>(p); }
void word_product_avx512(const Panels<std::int32_t, std::uint64_t>& p) noexcept { word_columns(p); }
void word_product_avx512(const Panels<std::uint32_t, std::uint64_t>& p) noexcept { word_columns(p); }

void widen_fp16_avx512(const std::uint16_t* in, float* out, std::size_t n) noexcept {
  widen_fp16_vectors<16>(in, out, n, [](const std::uint16_t* h, float* o) { 
    // The zero-masking form: GCC 12 warns on the plain one's undefined passthrough.
    _mm512_storeu_ps(o, _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h))));
   });
}

}  // namespace pto::tile::kernels

#endif
