// AVX2 unpacks of the CUBE block copies (this unit is compiled with -mavx2):
// two 128-bit lanes, two blocks per call (cube_copy_unpack.hpp).
#include "tile/cube_copy_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "tile/cube_copy_unpack.hpp"

namespace pto::tile {
namespace {

struct Avx2Lanes {
  using Reg = __m256i;
  // Lanes 16 bytes apart are one 32-byte access.
  static Reg load(const std::byte* p, std::size_t lane) noexcept {
    if (lane == 16) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + lane), reinterpret_cast<const __m128i*>(p));
  }
  static void store(std::byte* p, std::size_t lane, Reg v) noexcept {
    if (lane == 16) return _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
    _mm256_storeu2_m128i(reinterpret_cast<__m128i*>(p + lane), reinterpret_cast<__m128i*>(p), v);
  }
  static Reg lo8(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi8(a, b); }
  static Reg hi8(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi8(a, b); }
  static Reg lo16(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi16(a, b); }
  static Reg hi16(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi16(a, b); }
  static Reg lo32(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi32(a, b); }
  static Reg hi32(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi32(a, b); }
  static Reg lo64(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi64(a, b); }
  static Reg hi64(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi64(a, b); }
};

}  // namespace

void unpack_pair_avx2(std::size_t unit, std::byte* out, std::size_t os, std::size_t out_lane, const std::byte* in,
                      std::size_t is, std::size_t in_lane) noexcept {
  if (unit == 2) return unpack_block<Avx2Lanes, 2>(out, os, out_lane, in, is, in_lane);
  if (unit == 4) return unpack_block<Avx2Lanes, 4>(out, os, out_lane, in, is, in_lane);
  unpack_block<Avx2Lanes, 8>(out, os, out_lane, in, is, in_lane);
}

void unpack_bytes_pair_avx2(std::byte* out, std::size_t os, std::size_t out_half, std::size_t out_lane,
                            const std::byte* in, std::size_t is, std::size_t in_half, std::size_t in_lane) noexcept {
  unpack_bytes<Avx2Lanes>(out, os, out_half, out_lane, in, is, in_half, in_lane);
}

}  // namespace pto::tile

#endif
