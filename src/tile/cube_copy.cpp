#include "tile/cube_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "numerics/simd_span.hpp"
#include "tile/cube_layout.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

#include "tile/cube_copy_isa.hpp"
#include "tile/cube_copy_unpack.hpp"
#define PTO_CUBE_COPY_SSE2 1
#endif

namespace pto::tile {
namespace {

std::atomic<bool> g_enabled{true};

using num::simd::Tier;

// num::simd's tier, read once per band (tests cap it to run the narrower
// blocks on a wide host): Avx2 for the AVX2 blocks, Avx512 (F and BW, which
// it implies; never off x86-64) for the AVX-512 N8 blocks.
Tier tier() noexcept { return num::simd::active_tier(); }

// The one primitive: out[c * out_stride + r * U] = in[r * in_stride + c * U]
// for r < rows, c < columns (units of U bytes).  Image to payload, each
// CELL row (M layouts) or CELL column (N8) is one such transpose; payload
// to image is its inverse, the same transpose with the roles swapped.
struct Transpose {
  std::byte* out;
  std::size_t out_stride;
  const std::byte* in;
  std::size_t in_stride;
};

template <std::size_t U>
void transpose_units(const Transpose& t, std::uint32_t r0, std::uint32_t rows, std::uint32_t c0,
                     std::uint32_t columns) noexcept {
  for (std::uint32_t r = r0; r < rows; ++r)
    for (std::uint32_t c = c0; c < columns; ++c) std::memcpy(t.out + c * t.out_stride + r * U, t.in + r * t.in_stride + c * U, U);
}

#ifdef PTO_CUBE_COPY_SSE2
struct Sse2Lanes {
  using Reg = __m128i;
  static Reg load(const std::byte* p, std::size_t) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void store(std::byte* p, std::size_t, Reg v) noexcept { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static Reg lo8(Reg a, Reg b) noexcept { return _mm_unpacklo_epi8(a, b); }
  static Reg hi8(Reg a, Reg b) noexcept { return _mm_unpackhi_epi8(a, b); }
  static Reg lo16(Reg a, Reg b) noexcept { return _mm_unpacklo_epi16(a, b); }
  static Reg hi16(Reg a, Reg b) noexcept { return _mm_unpackhi_epi16(a, b); }
  static Reg lo32(Reg a, Reg b) noexcept { return _mm_unpacklo_epi32(a, b); }
  static Reg hi32(Reg a, Reg b) noexcept { return _mm_unpackhi_epi32(a, b); }
  static Reg lo64(Reg a, Reg b) noexcept { return _mm_unpacklo_epi64(a, b); }
  static Reg hi64(Reg a, Reg b) noexcept { return _mm_unpackhi_epi64(a, b); }
};

// B x B units: B = 8 for bytes, 16 / U otherwise.
template <std::size_t U>
constexpr std::uint32_t kBlock = U == 1 ? 8 : kUnpackBlock<U>;

// An 8 x 8 block of bytes: 8-byte rows, 8-byte columns.
void byte_block(std::byte* out, std::size_t os, const std::byte* in, std::size_t is) noexcept {
  __m128i t[4], v[4];
  const auto row = [&](std::size_t i) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i * is)); };
  const auto put = [&](std::size_t column, __m128i x) { _mm_storel_epi64(reinterpret_cast<__m128i*>(out + column * os), x); };
  for (std::size_t i = 0; i < 4; ++i) t[i] = _mm_unpacklo_epi8(row(2 * i), row(2 * i + 1));
  for (std::size_t i = 0; i < 2; ++i) {  // v[2i]: columns 0..3 of rows 4i .. 4i + 3, v[2i + 1]: columns 4..7
    v[2 * i] = _mm_unpacklo_epi16(t[2 * i], t[2 * i + 1]);
    v[2 * i + 1] = _mm_unpackhi_epi16(t[2 * i], t[2 * i + 1]);
  }
  for (std::size_t h = 0; h < 2; ++h) {
    const __m128i lo = _mm_unpacklo_epi32(v[h], v[h + 2]), hi = _mm_unpackhi_epi32(v[h], v[h + 2]);
    put(4 * h, lo);
    put(4 * h + 1, _mm_unpackhi_epi64(lo, lo));
    put(4 * h + 2, hi);
    put(4 * h + 3, _mm_unpackhi_epi64(hi, hi));
  }
}

#endif

// Whole blocks with the unpacks where the host has them, the edges (and
// everything elsewhere) unit by unit.
template <std::size_t U>
void transpose_blocks(const Transpose& t, std::uint32_t rows, std::uint32_t columns) noexcept {
#ifdef PTO_CUBE_COPY_SSE2
  constexpr std::uint32_t B = kBlock<U>;
  const std::uint32_t block_rows = rows / B * B, block_columns = columns / B * B;
  const std::size_t os = t.out_stride, is = t.in_stride;
  for (std::uint32_t r = 0; r < block_rows; r += B)
    for (std::uint32_t c = 0; c < block_columns; c += B) {
      std::byte* out = t.out + c * os + r * U;
      const std::byte* in = t.in + r * is + c * U;
      if constexpr (U == 1) byte_block(out, os, in, is);
      else unpack_block<Sse2Lanes, U>(out, os, 0, in, is, 0);
    }
  transpose_units<U>(t, 0, block_rows, block_columns, columns);
  transpose_units<U>(t, block_rows, rows, 0, columns);
#else
  transpose_units<U>(t, 0, rows, 0, columns);
#endif
}

// The part of a transpose from unit (r0, c0) on.
template <std::size_t U>
Transpose from(const Transpose& t, std::uint32_t r0, std::uint32_t c0) noexcept {
  return {t.out + c0 * t.out_stride + r0 * U, t.out_stride, t.in + r0 * t.in_stride + c0 * U, t.in_stride};
}

// 4- and 8-byte units on AVX2: W x W blocks of whole 32-byte rows and
// columns (W = 32 / U), the edges as above.
template <std::size_t U>
void transpose(const Transpose& t, std::uint32_t rows, std::uint32_t columns) noexcept {
#ifdef PTO_CUBE_COPY_SSE2
  if constexpr (U == 4 || U == 8) {
    if (tier() >= Tier::Avx2) {
      constexpr std::uint32_t W = 32 / U;
      const std::uint32_t wide_rows = rows / W * W, wide_columns = columns / W * W;
      for (std::uint32_t r = 0; r < wide_rows; r += W)
        for (std::uint32_t c = 0; c < wide_columns; c += W) {
          const Transpose b = from<U>(t, r, c);
          transpose_wide_avx2(U, b.out, b.out_stride, b.in, b.in_stride);
        }
      transpose_blocks<U>(from<U>(t, 0, wide_columns), wide_rows, columns - wide_columns);
      transpose_blocks<U>(from<U>(t, wide_rows, 0), rows - wide_rows, columns);
      return;
    }
  }
#endif
  transpose_blocks<U>(t, rows, columns);
}

// Image block (rows x columns units of U at `image`, rows `row_bytes`
// apart) and payload block (unit (r, c) at c * column_bytes + r * U).
template <bool ToPayload, typename Payload, typename Image>
Transpose transposition(Payload* payload, std::size_t column_bytes, Image* image, std::uint64_t row_bytes) noexcept {
  if constexpr (ToPayload) return {payload, column_bytes, image, row_bytes};
  else return {image, row_bytes, payload, column_bytes};
}

// Wide: the AVX2 32-byte blocks where they fit (M layouts' CELL rows);
// else the unpack blocks (an N8 CELL's 4 x 8 or 8 x 8 units never holds a
// 32-byte block on both sides).
template <std::size_t U, bool ToPayload, bool Wide = false, typename Payload, typename Image>
void move_block(Payload* payload, std::size_t column_bytes, Image* image, std::uint64_t row_bytes, std::uint32_t rows,
                std::uint32_t columns) noexcept {
  const Transpose t = transposition<ToPayload>(payload, column_bytes, image, row_bytes);
  const std::uint32_t r = ToPayload ? rows : columns, c = ToPayload ? columns : rows;
  if constexpr (Wide) transpose<U>(t, r, c);
  else transpose_blocks<U>(t, r, c);
}

// M layouts: CELL q holds columns q * CC .. q * CC + CC - 1 of all R rows,
// row-major: each row's CELL row is one unit of 128 / R bytes, so the full
// CELLs are a rows x CELLs transpose of those units; a partial last CELL
// takes its rows' leading columns.
template <std::size_t RowBytes, bool ToPayload, typename Payload, typename Image>
void m_cells(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d, const Band& band) noexcept {
  payload += std::size_t{band.first} * RowBytes;
  const std::uint32_t full = static_cast<std::uint32_t>(d.valid_columns * memory_element_bytes(d.data_type) / RowBytes);
  move_block<RowBytes, ToPayload, true>(payload, kTileCellBytes, image, row_bytes, band.rows, full);
  const std::size_t rest = d.valid_columns * std::size_t{memory_element_bytes(d.data_type)} - full * RowBytes;
  for (std::uint32_t r = 0; rest != 0 && r < band.rows; ++r) {
    const std::size_t p = std::size_t{full} * kTileCellBytes + r * RowBytes, i = r * row_bytes + full * RowBytes;
    if constexpr (ToPayload) std::memcpy(payload + p, image + i, rest);
    else std::memcpy(image + i, payload + p, rest);
  }
}

// Full N8 CELLs of `count` (1, 2, 4 or 8, n8_step) adjacent column blocks
// (`lane` bytes apart in the payload): for bytes, each two one 16 x 16 byte
// transpose (four: two of them on AVX2 lanes; eight: four on AVX-512
// lanes); for 16-bit units two CELLs as an AVX2 pair (four: on AVX-512
// lanes); for 32-bit units one CELL per AVX2 block (two: on AVX-512
// lanes); else, or below the AVX2 tier, one CELL at a time (SSE2 blocks).
template <std::size_t U, bool ToPayload, typename Payload, typename Image>
void full_cells(Payload* cell, std::size_t lane, Image* image, std::uint64_t row_bytes, std::uint32_t count,
                [[maybe_unused]] Tier tier) noexcept {
  [[maybe_unused]] const bool avx2 = tier >= Tier::Avx2;
  constexpr std::uint32_t CR = kTileCellBytes / (8 * U);
#ifdef PTO_CUBE_COPY_SSE2
  if constexpr (U == 1) {  // 16 rows x 8 bytes per CELL: a pair is one 16 x 16 byte block
    if (count == 8) {
      if constexpr (ToPayload) unpack_bytes_quad_avx512(cell, CR, lane, 2 * lane, image, row_bytes, 8 * row_bytes, 16);
      else unpack_bytes_quad_avx512(image, row_bytes, 8 * row_bytes, 16, cell, CR, lane, 2 * lane);
      return;
    }
    if (count == 4 && avx2) {
      if constexpr (ToPayload) unpack_bytes_pair_avx2(cell, CR, lane, 2 * lane, image, row_bytes, 8 * row_bytes, 16);
      else unpack_bytes_pair_avx2(image, row_bytes, 8 * row_bytes, 16, cell, CR, lane, 2 * lane);
      return;
    }
    if (count >= 2) {
      for (std::uint32_t i = 0; i < count; i += 2) {
        if constexpr (ToPayload) unpack_bytes<Sse2Lanes>(cell + i * lane, CR, lane, 0, image + i * 8, row_bytes, 8 * row_bytes, 0);
        else unpack_bytes<Sse2Lanes>(image + i * 8, row_bytes, 8 * row_bytes, 0, cell + i * lane, CR, lane, 0);
      }
      return;
    }
  }
  if constexpr (U == 4) {  // 4 rows x 8 columns per CELL: 32-byte rows and column pairs
    if (count == 2 && tier == Tier::Avx512) {
      if constexpr (ToPayload) image_to_cell32_pair_avx512(cell, lane, image, row_bytes);
      else cell32_pair_to_image_avx512(image, row_bytes, cell, lane);
      return;
    }
    if (avx2) {
      for (std::uint32_t i = 0; i < count; ++i) {
        if constexpr (ToPayload) image_to_cell32_avx2(cell + i * lane, image + i * 8 * U, row_bytes);
        else cell32_to_image_avx2(image + i * 8 * U, row_bytes, cell + i * lane);
      }
      return;
    }
  }
  if constexpr (U == 2) {  // one 8 x 8 block per CELL: a pair spans two CELLs
    if (count == 4) {
      if constexpr (ToPayload) unpack_quad_avx512(cell, CR * U, lane, image, row_bytes, 16);
      else unpack_quad_avx512(image, row_bytes, 16, cell, CR * U, lane);
      return;
    }
    if (count >= 2 && avx2) {
      for (std::uint32_t i = 0; i < count; i += 2) {
        if constexpr (ToPayload) unpack_pair_avx2(cell + i * lane, CR * U, lane, image + i * 8 * U, row_bytes, 8 * U);
        else unpack_pair_avx2(image + i * 8 * U, row_bytes, 8 * U, cell + i * lane, CR * U, lane);
      }
      return;
    }
  }
#endif
  for (std::uint32_t i = 0; i < count; ++i)
    move_block<U, ToPayload>(cell + i * lane, CR * U, image + i * 8 * U, row_bytes, CR, 8);
}

// The column blocks an N8 step takes together, `full` (>= 0) of them full
// from it on: the widest the tier has for the unit (eight bytes or four
// 16-bit on AVX-512, four bytes or two otherwise), halved while more than
// `full`; one (a partial block) at least.
std::uint32_t n8_step(std::size_t unit, Tier t, std::uint32_t full) noexcept {
  std::uint32_t count = unit == 1 ? 4 : 2;
  if (t == Tier::Avx512 && unit <= 2) count *= 2;
  while (count > 1 && count > full) count /= 2;
  return count;
}

// N8: CELL (nb, kb) at nb * k_repeat + kb holds rows kb * CR .. + CR - 1 of
// columns nb * 8 .. + 7, column-major: a CR x 8 transpose of elements.
template <std::size_t U, bool ToPayload, typename Payload, typename Image>
void n8_cells(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d, std::uint32_t k_repeat,
              const Band& band) noexcept {
  constexpr std::uint32_t CR = kTileCellBytes / (8 * U);
  const std::size_t lane = std::size_t{k_repeat} * kTileCellBytes;  // CELL (nb + 1, kb) - CELL (nb, kb)
  const Tier t = tier();
  for (std::uint32_t nb = 0; nb * 8 < d.valid_columns;) {
    const std::uint32_t count = n8_step(U, t, (d.valid_columns - nb * 8) / 8);
    for (std::uint32_t kb = band.first / CR; kb * CR < band.first + band.rows; ++kb) {
      const std::size_t cell = (std::size_t{nb} * k_repeat + kb) * kTileCellBytes;
      const std::uint32_t rows = std::min(CR, d.valid_rows - kb * CR), columns = std::min(8U, d.valid_columns - nb * 8);
      auto* at = image + (kb * CR - band.first) * row_bytes + nb * 8 * U;
      if (rows == CR && columns == 8) full_cells<U, ToPayload>(payload + cell, lane, at, row_bytes, count, t);
      else
        for (std::uint32_t i = 0; i < count; ++i)
          move_block<U, ToPayload>(payload + cell + i * lane, CR * U, at + i * 8 * U, row_bytes, rows, count > 1 ? 8U : columns);
    }
    nb += count;
  }
}

template <bool ToPayload, typename Payload, typename Image>
void move_payload(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d, const Band& band) noexcept {
  if (d.layout == TileLayout::CubeM32) return m_cells<kTileCellBytes / 32, ToPayload>(payload, image, row_bytes, d, band);
  if (d.layout == TileLayout::CubeM16) return m_cells<kTileCellBytes / 16, ToPayload>(payload, image, row_bytes, d, band);
  const std::uint32_t k_repeat = cube_geometry(d.layout, d.valid_rows, d.valid_columns, d.data_type).k_repeat;
  switch (memory_element_bytes(d.data_type)) {
    case 1: return n8_cells<1, ToPayload>(payload, image, row_bytes, d, k_repeat, band);
    case 2: return n8_cells<2, ToPayload>(payload, image, row_bytes, d, k_repeat, band);
    default: return n8_cells<4, ToPayload>(payload, image, row_bytes, d, k_repeat, band);
  }
}

}  // namespace

bool cube_block_copy_applies(const TileDescriptor& d) noexcept {
  if (!g_enabled.load(std::memory_order_relaxed) || !layout_is_cube(d.layout) || num::is_packed4(d.data_type)) return false;
  const unsigned bytes = memory_element_bytes(d.data_type);
  return bytes == 1 || bytes == 2 || bytes == 4;
}

std::uint32_t cube_band_rows(const TileDescriptor& d) noexcept {
  const std::uint32_t unit = memory_element_bytes(d.data_type);
  // N8: whole CELL rows; M: whole AVX2 blocks of CELL-row units (W = 32 /
  // the unit of 128 / R bytes: 8 rows of CUBE_M32, 4 of CUBE_M16).
  const std::uint32_t rows = d.layout == TileLayout::CubeN8 ? kTileCellBytes / (8 * unit)
                             : d.layout == TileLayout::CubeM32 ? 8 : 4;
  const std::uint64_t band_bytes = std::uint64_t{rows} * d.valid_columns * unit;
  return rows * static_cast<std::uint32_t>(std::max<std::uint64_t>(1, 4096 / band_bytes));
}

void cube_image_to_payload(Tile& t, const std::byte* image, std::uint64_t image_row_bytes, const Band& band) noexcept {
  move_payload<true>(t.payload().data(), image, image_row_bytes, t.descriptor(), band);
}

void cube_payload_to_image(const Tile& t, std::byte* image, std::uint64_t image_row_bytes, const Band& band) noexcept {
  move_payload<false>(t.payload().data(), image, image_row_bytes, t.descriptor(), band);
}

void set_cube_block_copies_enabled(bool enabled) noexcept { g_enabled.store(enabled, std::memory_order_relaxed); }

}  // namespace pto::tile
