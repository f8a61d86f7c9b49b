// AVX-512BW kernel of the narrow Word sums (this unit is compiled with
// -mavx512f -mavx512bw, called only when the CPU has both): VPMADDWD on
// sixteen 32-bit lanes, 8 columns x 2 registers of sums for 32 rows.
#include "tile/matrix_kernels_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "tile/matrix_kernel_loops.hpp"

namespace pto::tile::kernels {
namespace {

struct Avx512Pairs {
  using Reg = __m512i;
  static constexpr int kWidth = 16;
  static Reg load(const std::int16_t* p) noexcept { return _mm512_loadu_si512(p); }
  static Reg broadcast(const std::int16_t* p) noexcept {
    std::int32_t pair = 0;
    __builtin_memcpy(&pair, p, sizeof pair);
    return _mm512_set1_epi32(pair);
  }
  static Reg madd(Reg a, Reg b) noexcept { return _mm512_madd_epi16(a, b); }
  static Reg add(Reg a, Reg b) noexcept { return _mm512_add_epi32(a, b); }
  static Reg zero() noexcept { return _mm512_setzero_si512(); }
  static void store(std::int32_t* p, Reg v) noexcept { _mm512_storeu_si512(p, v); }
};

}  // namespace

void pair_product_avx512bw(const PairPanels& p) noexcept { pair_columns<Avx512Pairs, 8, 8>(p); }

}  // namespace pto::tile::kernels

#endif
