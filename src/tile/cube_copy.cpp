#include "tile/cube_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "tile/cube_layout.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#define PTO_CUBE_COPY_SSE2 1
#endif

namespace pto::tile {
namespace {

std::atomic<bool> g_enabled{true};

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
// B x B units with SSE2 unpacks (baseline x86-64): B = 8 for 1- and 2-byte
// units, 16 / U for 4- and 8-byte ones.
template <std::size_t U>
constexpr std::uint32_t kBlock = U <= 2 ? 8 : 16 / U;

inline __m128i load(const std::byte* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store(std::byte* p, __m128i v) noexcept { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }

template <std::size_t U>
void transpose_block(const Transpose& t, std::uint32_t r0, std::uint32_t c0) noexcept {
  const std::byte* in = t.in + r0 * t.in_stride + c0 * U;
  std::byte* out = t.out + c0 * t.out_stride + r0 * U;
  const auto row = [&](std::size_t i) { return in + i * t.in_stride; };
  const auto column = [&](std::size_t i) { return out + i * t.out_stride; };
  if constexpr (U == 8) {
    const __m128i a0 = load(row(0)), a1 = load(row(1));
    store(column(0), _mm_unpacklo_epi64(a0, a1));
    store(column(1), _mm_unpackhi_epi64(a0, a1));
  } else if constexpr (U == 4) {
    const __m128i t0 = _mm_unpacklo_epi32(load(row(0)), load(row(1))), t1 = _mm_unpackhi_epi32(load(row(0)), load(row(1)));
    const __m128i t2 = _mm_unpacklo_epi32(load(row(2)), load(row(3))), t3 = _mm_unpackhi_epi32(load(row(2)), load(row(3)));
    store(column(0), _mm_unpacklo_epi64(t0, t2));
    store(column(1), _mm_unpackhi_epi64(t0, t2));
    store(column(2), _mm_unpacklo_epi64(t1, t3));
    store(column(3), _mm_unpackhi_epi64(t1, t3));
  } else if constexpr (U == 2) {
    __m128i t[8], u[8];
    for (std::size_t i = 0; i < 4; ++i) {
      t[2 * i] = _mm_unpacklo_epi16(load(row(2 * i)), load(row(2 * i + 1)));
      t[2 * i + 1] = _mm_unpackhi_epi16(load(row(2 * i)), load(row(2 * i + 1)));
    }
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t h = 0; h < 2; ++h) {
        u[4 * i + 2 * h] = _mm_unpacklo_epi32(t[4 * i + h], t[4 * i + h + 2]);
        u[4 * i + 2 * h + 1] = _mm_unpackhi_epi32(t[4 * i + h], t[4 * i + h + 2]);
      }
    for (std::size_t i = 0; i < 4; ++i) {  // u[i]: columns 2i, 2i + 1 of rows 0..3; u[i + 4] of rows 4..7
      store(column(2 * i), _mm_unpacklo_epi64(u[i], u[i + 4]));
      store(column(2 * i + 1), _mm_unpackhi_epi64(u[i], u[i + 4]));
    }
  } else {
    __m128i t[4], v[4];
    for (std::size_t i = 0; i < 4; ++i)
      t[i] = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row(2 * i))),
                               _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row(2 * i + 1))));
    for (std::size_t i = 0; i < 2; ++i) {  // v[2i]: columns 0..3 of four rows, v[2i + 1]: columns 4..7
      v[2 * i] = _mm_unpacklo_epi16(t[2 * i], t[2 * i + 1]);
      v[2 * i + 1] = _mm_unpackhi_epi16(t[2 * i], t[2 * i + 1]);
    }
    for (std::size_t h = 0; h < 2; ++h) {
      const __m128i lo = _mm_unpacklo_epi32(v[h], v[h + 2]), hi = _mm_unpackhi_epi32(v[h], v[h + 2]);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(column(4 * h)), lo);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(column(4 * h + 1)), _mm_unpackhi_epi64(lo, lo));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(column(4 * h + 2)), hi);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(column(4 * h + 3)), _mm_unpackhi_epi64(hi, hi));
    }
  }
}
#endif

// Whole blocks with the unpacks where the host has them, the edges (and
// everything elsewhere) unit by unit.
template <std::size_t U>
void transpose(const Transpose& t, std::uint32_t rows, std::uint32_t columns) noexcept {
#ifdef PTO_CUBE_COPY_SSE2
  constexpr std::uint32_t B = kBlock<U>;
  const std::uint32_t block_rows = rows / B * B, block_columns = columns / B * B;
  for (std::uint32_t r = 0; r < block_rows; r += B)
    for (std::uint32_t c = 0; c < block_columns; c += B) transpose_block<U>(t, r, c);
  transpose_units<U>(t, 0, block_rows, block_columns, columns);
  transpose_units<U>(t, block_rows, rows, 0, columns);
#else
  transpose_units<U>(t, 0, rows, 0, columns);
#endif
}

// Image block (rows x columns units of U at `image`, rows `row_bytes`
// apart) and payload block (unit (r, c) at c * column_bytes + r * U).
template <std::size_t U, bool ToPayload, typename Payload, typename Image>
void move_block(Payload* payload, std::size_t column_bytes, Image* image, std::uint64_t row_bytes, std::uint32_t rows,
                std::uint32_t columns) noexcept {
  if constexpr (ToPayload) transpose<U>({payload, column_bytes, image, row_bytes}, rows, columns);
  else transpose<U>({image, row_bytes, payload, column_bytes}, columns, rows);
}

// M layouts: CELL q holds columns q * CC .. q * CC + CC - 1 of all R rows,
// row-major: each row's CELL row is one unit of 128 / R bytes, so the full
// CELLs are a rows x CELLs transpose of those units; a partial last CELL
// takes its rows' leading columns.
template <std::size_t RowBytes, bool ToPayload, typename Payload, typename Image>
void m_cells(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d) noexcept {
  const std::uint32_t full = static_cast<std::uint32_t>(d.valid_columns * memory_element_bytes(d.data_type) / RowBytes);
  move_block<RowBytes, ToPayload>(payload, kTileCellBytes, image, row_bytes, d.valid_rows, full);
  const std::size_t rest = d.valid_columns * std::size_t{memory_element_bytes(d.data_type)} - full * RowBytes;
  for (std::uint32_t r = 0; rest != 0 && r < d.valid_rows; ++r) {
    const std::size_t p = std::size_t{full} * kTileCellBytes + r * RowBytes, i = r * row_bytes + full * RowBytes;
    if constexpr (ToPayload) std::memcpy(payload + p, image + i, rest);
    else std::memcpy(image + i, payload + p, rest);
  }
}

// N8: CELL (nb, kb) at nb * k_repeat + kb holds rows kb * CR .. + CR - 1 of
// columns nb * 8 .. + 7, column-major: a CR x 8 transpose of elements.
template <std::size_t U, bool ToPayload, typename Payload, typename Image>
void n8_cells(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d,
              std::uint32_t k_repeat) noexcept {
  constexpr std::uint32_t CR = kTileCellBytes / (8 * U);
  for (std::uint32_t nb = 0; nb * 8 < d.valid_columns; ++nb)
    for (std::uint32_t kb = 0; kb * CR < d.valid_rows; ++kb) {
      const std::size_t cell = (std::size_t{nb} * k_repeat + kb) * kTileCellBytes;
      move_block<U, ToPayload>(payload + cell, CR * U, image + kb * CR * row_bytes + nb * 8 * U, row_bytes,
                               std::min(CR, d.valid_rows - kb * CR), std::min(8U, d.valid_columns - nb * 8));
    }
}

template <bool ToPayload, typename Payload, typename Image>
void move_payload(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d) noexcept {
  if (d.layout == TileLayout::CubeM32) return m_cells<kTileCellBytes / 32, ToPayload>(payload, image, row_bytes, d);
  if (d.layout == TileLayout::CubeM16) return m_cells<kTileCellBytes / 16, ToPayload>(payload, image, row_bytes, d);
  const std::uint32_t k_repeat = cube_geometry(d.layout, d.valid_rows, d.valid_columns, d.data_type).k_repeat;
  switch (memory_element_bytes(d.data_type)) {
    case 1: return n8_cells<1, ToPayload>(payload, image, row_bytes, d, k_repeat);
    case 2: return n8_cells<2, ToPayload>(payload, image, row_bytes, d, k_repeat);
    default: return n8_cells<4, ToPayload>(payload, image, row_bytes, d, k_repeat);
  }
}

}  // namespace

bool cube_block_copy_applies(const TileDescriptor& d) noexcept {
  if (!g_enabled.load(std::memory_order_relaxed) || !layout_is_cube(d.layout) || num::is_packed4(d.data_type)) return false;
  const unsigned bytes = memory_element_bytes(d.data_type);
  return bytes == 1 || bytes == 2 || bytes == 4;
}

void cube_image_to_payload(Tile& t, const std::byte* image, std::uint64_t image_row_bytes) noexcept {
  move_payload<true>(t.payload().data(), image, image_row_bytes, t.descriptor());
}

void cube_payload_to_image(const Tile& t, std::byte* image, std::uint64_t image_row_bytes) noexcept {
  move_payload<false>(t.payload().data(), image, image_row_bytes, t.descriptor());
}

void set_cube_block_copies_enabled(bool enabled) noexcept { g_enabled.store(enabled, std::memory_order_relaxed); }

}  // namespace pto::tile
