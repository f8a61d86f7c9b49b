// Block copies between a CUBE tile's CELL payload (CUBE_M16, CUBE_M32,
// CUBE_N8) and a row-major image of its valid region: the payload effects
// of TLOAD / TSTORE under a B.DATR CUBE conversion (ND2M32 / ND2M16 / ND2N8,
// M322ND / M162ND / N82ND), CELL by CELL instead of one memory access and
// one TileCubePayloadIndex per element.
//
// Source: asl/tile/model/memory/load-store.asl (TLOAD / TSTORE place element
// (r, c) of memory row r at its CUBE payload index),
// asl/tile/model/shape/cube-cell.asl (PTO-CUBE-CELL-STATE-001: 128-byte
// CELLs; M layouts row-major CELLs of 16 or 32 rows along the columns, N8
// column-major CELLs of 8 columns stacked K-major).  Only valid elements
// move: padding and its definedness are the caller's (ADR 0014).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tile/tile_state.hpp"

namespace pto::tile {

// Whether the block copies handle this descriptor: a CUBE layout of 8-,
// 16- or 32-bit elements (packed four-bit elements keep the element path),
// and block copies enabled.
bool cube_block_copy_applies(const TileDescriptor& d) noexcept;

// Rows [first, first + rows) of the valid region: a band.
struct Band {
  std::uint32_t first = 0, rows = 0;
};

// The rows of a band that covers whole CELLs (N8) or whole unpack blocks
// (M layouts), about 4 KiB of image: bands of this many rows from row 0
// (the last one clipped to the valid rows) keep the image in L1.
std::uint32_t cube_band_rows(const TileDescriptor& d) noexcept;

// Valid element (band.first + i, c) from image[i * image_row_bytes + c *
// element bytes] into the payload, and back.
void cube_image_to_payload(Tile& t, const std::byte* image, std::uint64_t image_row_bytes, const Band& band) noexcept;
void cube_payload_to_image(const Tile& t, std::byte* image, std::uint64_t image_row_bytes, const Band& band) noexcept;

// On by default; tests and benchmarks switch them off to reach the element
// path they are checked against.
void set_cube_block_copies_enabled(bool enabled) noexcept;

}  // namespace pto::tile
