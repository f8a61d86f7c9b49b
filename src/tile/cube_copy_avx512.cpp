// AVX-512 (F + BW) unpacks of the CUBE block copies (this unit is compiled
// with -mavx512f -mavx512bw): eight byte N8 CELLs per call as four 16 x 16
// byte transposes, four 16-bit N8 CELLs as four 8 x 8 transposes, or two
// 32-bit N8 CELLs as four 4 x 4 transposes, one per 128-bit lane (cube_copy_unpack.hpp's networks over 64-byte
// registers).  The image side's 64-byte rows hold the four lanes side by
// side; on the CELL side each lane is CELLs of its own, so four adjacent
// 16-byte CELL columns of the four lanes move as 64-byte accesses after a
// 4 x 4 exchange of 128-bit lanes.  The placement is cube_copy.hpp's
// (PTO-CUBE-CELL-STATE-001: 128-byte N8 CELLs of 8 columns, column-major,
// asl/tile/model/shape/cube-cell.asl).
#include "tile/cube_copy_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "tile/cube_copy_unpack.hpp"

// GCC 12's unmasked AVX-512 intrinsics merge into an undefined vector,
// which -W(maybe-)uninitialized reports at every use.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace pto::tile {
namespace {

// The four lanes of a load or store are one 64-byte access (the image side).
struct Avx512Lanes {
  using Reg = __m512i;
  static Reg load(const std::byte* p, std::size_t) noexcept { return _mm512_loadu_si512(p); }
  static void store(std::byte* p, std::size_t, Reg v) noexcept { _mm512_storeu_si512(p, v); }
  static Reg lo8(Reg a, Reg b) noexcept { return _mm512_unpacklo_epi8(a, b); }
  static Reg hi8(Reg a, Reg b) noexcept { return _mm512_unpackhi_epi8(a, b); }
  static Reg lo16(Reg a, Reg b) noexcept { return _mm512_unpacklo_epi16(a, b); }
  static Reg hi16(Reg a, Reg b) noexcept { return _mm512_unpackhi_epi16(a, b); }
  static Reg lo32(Reg a, Reg b) noexcept { return _mm512_unpacklo_epi32(a, b); }
  static Reg hi32(Reg a, Reg b) noexcept { return _mm512_unpackhi_epi32(a, b); }
  static Reg lo64(Reg a, Reg b) noexcept { return _mm512_unpacklo_epi64(a, b); }
  static Reg hi64(Reg a, Reg b) noexcept { return _mm512_unpackhi_epi64(a, b); }
};

// Lane l of q[j] to lane j of q[l] (a 4 x 4 transpose of 128-bit lanes; its
// own inverse).
void exchange_lanes(__m512i (&q)[4]) noexcept {
  const __m512i t0 = _mm512_shuffle_i64x2(q[0], q[1], 0x44), t1 = _mm512_shuffle_i64x2(q[0], q[1], 0xEE);
  const __m512i t2 = _mm512_shuffle_i64x2(q[2], q[3], 0x44), t3 = _mm512_shuffle_i64x2(q[2], q[3], 0xEE);
  q[0] = _mm512_shuffle_i64x2(t0, t2, 0x88);
  q[1] = _mm512_shuffle_i64x2(t0, t2, 0xDD);
  q[2] = _mm512_shuffle_i64x2(t1, t3, 0x88);
  q[3] = _mm512_shuffle_i64x2(t1, t3, 0xDD);
}

}  // namespace

void unpack_quad_avx512(std::byte* out, std::size_t os, std::size_t out_lane, const std::byte* in, std::size_t is,
                        std::size_t in_lane) noexcept {
  __m512i a[8];
  if (in_lane == 16) {  // image to CELLs: register c holds column 8 l + c in lane l
    for (std::size_t row = 0; row < 8; ++row) a[row] = _mm512_loadu_si512(in + row * is);
    unpack_block_rounds<Avx512Lanes, 2>(a);
    for (std::size_t c = 0; c < 8; c += 4) {  // columns c .. c + 3: 64 bytes of each lane's CELL
      __m512i q[4] = {a[c], a[c + 1], a[c + 2], a[c + 3]};
      exchange_lanes(q);
      for (std::size_t l = 0; l < 4; ++l) _mm512_storeu_si512(out + c * os + l * out_lane, q[l]);
    }
    return;
  }
  for (std::size_t row = 0; row < 8; row += 4) {  // CELL columns row .. row + 3 of each lane
    __m512i q[4];
    for (std::size_t l = 0; l < 4; ++l) q[l] = _mm512_loadu_si512(in + row * is + l * in_lane);
    exchange_lanes(q);
    for (std::size_t j = 0; j < 4; ++j) a[row + j] = q[j];
  }
  unpack_block_rounds<Avx512Lanes, 2>(a);
  for (std::size_t c = 0; c < 8; ++c) _mm512_storeu_si512(out + c * os, a[c]);
}

// Two 32-bit N8 CELLs (4 rows x 8 columns each, column-major, 16-byte
// columns): the four 64-byte image rows are one 4 x 4 unpack block per
// lane (register c holds column 4 l + c in lane l), and after the lane
// exchange register l holds columns 4 l .. 4 l + 3, i.e. half l % 2 of
// CELL l / 2.
void image_to_cell32_pair_avx512(std::byte* cell, std::size_t lane, const std::byte* image, std::size_t row_bytes) noexcept {
  __m512i a[4];
  for (std::size_t row = 0; row < 4; ++row) a[row] = _mm512_loadu_si512(image + row * row_bytes);
  unpack_block_rounds<Avx512Lanes, 4>(a);
  exchange_lanes(a);
  for (std::size_t l = 0; l < 4; ++l) _mm512_storeu_si512(cell + (l / 2) * lane + (l % 2) * 64, a[l]);
}

void cell32_pair_to_image_avx512(std::byte* image, std::size_t row_bytes, const std::byte* cell, std::size_t lane) noexcept {
  __m512i a[4];
  for (std::size_t l = 0; l < 4; ++l) a[l] = _mm512_loadu_si512(cell + (l / 2) * lane + (l % 2) * 64);
  exchange_lanes(a);
  unpack_block_rounds<Avx512Lanes, 4>(a);
  for (std::size_t row = 0; row < 4; ++row) _mm512_storeu_si512(image + row * row_bytes, a[row]);
}

void unpack_bytes_quad_avx512(std::byte* out, std::size_t os, std::size_t out_half, std::size_t out_lane,
                              const std::byte* in, std::size_t is, std::size_t in_half, std::size_t in_lane) noexcept {
  __m512i r[16];
  if (in_lane == 16) {  // image to CELLs: register c holds column 16 l + c in lane l
    unpack_bytes_registers<Avx512Lanes>(r, in, is, in_half, in_lane);
    for (std::size_t c = 0; c < 16; c += 4) {  // columns c .. c + 3: 64 bytes of one CELL per lane
      __m512i q[4] = {r[c], r[c + 1], r[c + 2], r[c + 3]};
      exchange_lanes(q);
      for (std::size_t l = 0; l < 4; ++l) _mm512_storeu_si512(out + (c / 8) * out_half + (c % 8) * os + l * out_lane, q[l]);
    }
    return;
  }
  for (std::size_t row = 0; row < 16; row += 4) {  // CELL columns row .. row + 3 of each lane
    __m512i q[4];
    for (std::size_t l = 0; l < 4; ++l) q[l] = _mm512_loadu_si512(in + (row / 8) * in_half + (row % 8) * is + l * in_lane);
    exchange_lanes(q);
    for (std::size_t j = 0; j < 4; ++j) r[kReversed[row + j]] = q[j];
  }
  unpack_bytes_rounds<Avx512Lanes>(r);
  for (std::size_t c = 0; c < 16; ++c) _mm512_storeu_si512(out + (c / 8) * out_half + (c % 8) * os, r[c]);
}

}  // namespace pto::tile

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif
