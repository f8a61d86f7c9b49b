// AVX2 unpacks of the CUBE block copies (this unit is compiled with -mavx2):
// two 128-bit lanes, two N8 CELLs per call (cube_copy_unpack.hpp), whose
// adjacent 16-byte columns move as 32-byte accesses after lane exchanges;
// and whole 32-byte rows for 4- and 8-byte units.
#include "tile/cube_copy_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "tile/cube_copy_unpack.hpp"

namespace pto::tile {
namespace {

// Both lanes of a load or store are one 32-byte access (the image side);
// the N8 CELL side's lane exchanges are written out below.
struct Avx2Lanes {
  using Reg = __m256i;
  static Reg load(const std::byte* p, std::size_t) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(std::byte* p, std::size_t, Reg v) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Reg lo8(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi8(a, b); }
  static Reg hi8(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi8(a, b); }
  static Reg lo16(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi16(a, b); }
  static Reg hi16(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi16(a, b); }
  static Reg lo32(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi32(a, b); }
  static Reg hi32(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi32(a, b); }
  static Reg lo64(Reg a, Reg b) noexcept { return _mm256_unpacklo_epi64(a, b); }
  static Reg hi64(Reg a, Reg b) noexcept { return _mm256_unpackhi_epi64(a, b); }
};

__m256i load32(const std::byte* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
void store32(std::byte* p, __m256i v) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }

// Registers k, k + 1 (k even) of two CELLs `lane` bytes apart, whose k-th
// 16-byte columns are adjacent: lane 0 of each from the CELL at p, lane 1
// from the one at p + lane.
void load_column_pair(const std::byte* p, std::size_t lane, __m256i& k, __m256i& next) noexcept {
  const __m256i x = load32(p), y = load32(p + lane);
  k = _mm256_permute2x128_si256(x, y, 0x20);
  next = _mm256_permute2x128_si256(x, y, 0x31);
}

// The inverse: registers k, k + 1 to adjacent 16-byte columns of both CELLs.
void store_column_pair(std::byte* p, std::size_t lane, __m256i k, __m256i next) noexcept {
  store32(p, _mm256_permute2x128_si256(k, next, 0x20));
  store32(p + lane, _mm256_permute2x128_si256(k, next, 0x31));
}

}  // namespace

void unpack_pair_avx2(std::byte* out, std::size_t os, std::size_t out_lane, const std::byte* in, std::size_t is,
                      std::size_t in_lane) noexcept {
  __m256i a[8];
  if (in_lane == 16) {  // image to CELLs
    for (std::size_t row = 0; row < 8; ++row) a[row] = load32(in + row * is);
    unpack_block_rounds<Avx2Lanes, 2>(a);
    for (std::size_t c = 0; c < 8; c += 2) store_column_pair(out + c * os, out_lane, a[c], a[c + 1]);
    return;
  }
  for (std::size_t row = 0; row < 8; row += 2) load_column_pair(in + row * is, in_lane, a[row], a[row + 1]);
  unpack_block_rounds<Avx2Lanes, 2>(a);
  for (std::size_t c = 0; c < 8; ++c) store32(out + c * os, a[c]);
}

// A 32-bit N8 CELL (4 rows x 8 columns, column-major, 16-byte columns):
// the four 32-byte image rows are one unpack block per lane (columns c and
// c + 4 in register c), and adjacent column pairs are 32-byte CELL
// accesses after a lane exchange (lanes 64 bytes apart).
constexpr std::size_t kCell32Lane = 4 * 16;

void image_to_cell32_avx2(std::byte* cell, const std::byte* image, std::size_t row_bytes) noexcept {
  __m256i a[4];
  for (std::size_t row = 0; row < 4; ++row) a[row] = load32(image + row * row_bytes);
  unpack_block_rounds<Avx2Lanes, 4>(a);
  for (std::size_t c = 0; c < 4; c += 2) store_column_pair(cell + c * 16, kCell32Lane, a[c], a[c + 1]);
}

void cell32_to_image_avx2(std::byte* image, std::size_t row_bytes, const std::byte* cell) noexcept {
  __m256i a[4];
  for (std::size_t c = 0; c < 4; c += 2) load_column_pair(cell + c * 16, kCell32Lane, a[c], a[c + 1]);
  unpack_block_rounds<Avx2Lanes, 4>(a);
  for (std::size_t row = 0; row < 4; ++row) store32(image + row * row_bytes, a[row]);
}

void transpose_wide_avx2(std::size_t unit, std::byte* out, std::size_t os, const std::byte* in, std::size_t is) noexcept {
  const auto load = [&](std::size_t row) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + row * is)); };
  const auto put = [&](std::size_t column, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + column * os), v); };
  // Columns c and c + W / 2 of rows 0 .. W - 1 from the lanes of x (rows
  // 0 .. W / 2 - 1) and y (the others).
  const auto halves = [&](std::size_t column, __m256i x, __m256i y, std::size_t w) {
    put(column, _mm256_permute2x128_si256(x, y, 0x20));
    put(column + w / 2, _mm256_permute2x128_si256(x, y, 0x31));
  };
  if (unit == 8) {  // 4 x 4: t0 / t1 hold columns 0, 2 / 1, 3 of rows 0, 1 in their lanes
    const __m256i a0 = load(0), a1 = load(1), a2 = load(2), a3 = load(3);
    halves(0, _mm256_unpacklo_epi64(a0, a1), _mm256_unpacklo_epi64(a2, a3), 4);
    halves(1, _mm256_unpackhi_epi64(a0, a1), _mm256_unpackhi_epi64(a2, a3), 4);
    return;
  }
  __m256i t[8], u[8];  // 8 x 8 of 4-byte units
  for (std::size_t i = 0; i < 4; ++i) {  // t[2i]: columns 0, 1 | 4, 5 of rows 2i, 2i + 1; t[2i + 1]: 2, 3 | 6, 7
    const __m256i a = load(2 * i), b = load(2 * i + 1);
    t[2 * i] = _mm256_unpacklo_epi32(a, b);
    t[2 * i + 1] = _mm256_unpackhi_epi32(a, b);
  }
  for (std::size_t h = 0; h < 2; ++h)  // u[4h + j]: column j | j + 4 of rows 4h .. 4h + 3
    for (std::size_t j = 0; j < 2; ++j) {
      u[4 * h + 2 * j] = _mm256_unpacklo_epi64(t[4 * h + j], t[4 * h + j + 2]);
      u[4 * h + 2 * j + 1] = _mm256_unpackhi_epi64(t[4 * h + j], t[4 * h + j + 2]);
    }
  for (std::size_t j = 0; j < 4; ++j) halves(j, u[j], u[j + 4], 8);
}

void unpack_bytes_pair_avx2(std::byte* out, std::size_t os, std::size_t out_half, std::size_t out_lane,
                            const std::byte* in, std::size_t is, std::size_t in_half, std::size_t in_lane) noexcept {
  __m256i r[16];
  if (in_lane == 16) {  // image to CELLs: register c holds column c in lane 0 and c + 16 in lane 1
    unpack_bytes_registers<Avx2Lanes>(r, in, is, in_half, in_lane);
    for (std::size_t c = 0; c < 16; c += 2) store_column_pair(out + (c / 8) * out_half + (c % 8) * os, out_lane, r[c], r[c + 1]);
    return;
  }
  for (std::size_t row = 0; row < 16; row += 2)
    load_column_pair(in + (row / 8) * in_half + (row % 8) * is, in_lane, r[kReversed[row]], r[kReversed[row + 1]]);
  unpack_bytes_rounds<Avx2Lanes>(r);
  for (std::size_t c = 0; c < 16; ++c) store32(out + (c / 8) * out_half + (c % 8) * os, r[c]);
}

}  // namespace pto::tile

#endif
