#include "tile/cube_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "tile/cube_layout.hpp"

namespace pto::tile {
namespace {

std::atomic<bool> g_enabled{true};

// One direction of the copy between payload elements E and image bytes.
template <typename E, bool ToPayload>
struct Move {
  std::conditional_t<ToPayload, E*, const E*> payload;
  std::conditional_t<ToPayload, const std::byte*, std::byte*> image;
  std::uint64_t row_bytes;

  void run(std::size_t payload_index, std::uint32_t r, std::uint32_t c, std::uint32_t count) const noexcept {
    const std::size_t at = r * row_bytes + std::size_t{c} * sizeof(E);
    if constexpr (ToPayload) std::memcpy(payload + payload_index, image + at, count * sizeof(E));
    else std::memcpy(image + at, payload + payload_index, count * sizeof(E));
  }
  void element(std::size_t payload_index, std::uint32_t r, std::uint32_t c) const noexcept { run(payload_index, r, c, 1); }
};

// M layouts: CELL q holds columns q * CC .. q * CC + CC - 1 of all R rows,
// row-major, so each row contributes one run of CC contiguous elements.
template <std::uint32_t CC, class M>
void m_cells(const M& move, const TileDescriptor& d, std::uint32_t cell_rows) noexcept {
  const std::uint32_t full = d.valid_columns / CC;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    for (std::uint32_t q = 0; q < full; ++q) move.run(std::size_t{q} * cell_rows * CC + r * CC, r, q * CC, CC);
    if (const std::uint32_t rest = d.valid_columns - full * CC)
      move.run(std::size_t{full} * cell_rows * CC + r * CC, r, full * CC, rest);
  }
}

// N8: CELL (nb, kb) at nb * k_repeat + kb holds rows kb * CR .. + CR - 1 of
// columns nb * 8 .. + 7, column-major: a CR x 8 transpose per CELL.
template <std::uint32_t CR, class M>
void n8_cells(const M& move, const TileDescriptor& d, std::uint32_t k_repeat) noexcept {
  for (std::uint32_t nb = 0; nb * 8 < d.valid_columns; ++nb) {
    const std::uint32_t columns = std::min(8U, d.valid_columns - nb * 8);
    for (std::uint32_t kb = 0; kb * CR < d.valid_rows; ++kb) {
      const std::size_t cell = (std::size_t{nb} * k_repeat + kb) * CR * 8;
      const std::uint32_t rows = std::min(CR, d.valid_rows - kb * CR);
      if (rows == CR && columns == 8) {
        for (std::uint32_t rr = 0; rr < CR; ++rr)
          for (std::uint32_t j = 0; j < 8; ++j) move.element(cell + j * CR + rr, kb * CR + rr, nb * 8 + j);
        continue;
      }
      for (std::uint32_t rr = 0; rr < rows; ++rr)
        for (std::uint32_t j = 0; j < columns; ++j) move.element(cell + j * CR + rr, kb * CR + rr, nb * 8 + j);
    }
  }
}

// A 128-byte CELL of E: M32 has 128 / (32 * sizeof(E)) columns, M16 twice
// as many, N8 128 / (8 * sizeof(E)) rows.
template <typename E, class M>
void move_cells(const M& move, const TileDescriptor& d) noexcept {
  const CubeGeometry g = cube_geometry(d.layout, d.valid_rows, d.valid_columns, d.data_type);
  constexpr std::uint32_t kCellElements = kTileCellBytes / sizeof(E);
  if (d.layout == TileLayout::CubeN8) return n8_cells<kCellElements / 8>(move, d, g.k_repeat);
  if (d.layout == TileLayout::CubeM32) return m_cells<kCellElements / 32>(move, d, 32);
  m_cells<kCellElements / 16>(move, d, 16);
}

template <typename E, bool ToPayload, typename Payload, typename Image>
void move_typed(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d) noexcept {
  using Element = std::conditional_t<ToPayload, E, const E>;
  move_cells<E>(Move<E, ToPayload>{reinterpret_cast<Element*>(payload), image, row_bytes}, d);
}

template <bool ToPayload, typename Payload, typename Image>
void move_payload(Payload* payload, Image* image, std::uint64_t row_bytes, const TileDescriptor& d) noexcept {
  switch (memory_element_bytes(d.data_type)) {
    case 1: return move_typed<std::uint8_t, ToPayload>(payload, image, row_bytes, d);
    case 2: return move_typed<std::uint16_t, ToPayload>(payload, image, row_bytes, d);
    default: return move_typed<std::uint32_t, ToPayload>(payload, image, row_bytes, d);
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
