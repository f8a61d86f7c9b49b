// ConfigureTile's arguments as a ConfigureRequest, shared by the tile tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tile/tile_state.hpp"

namespace pto::tile::test {

// ConfigureTile(capacity, columns, valid_rows, valid_columns, type, layout,
// location) for the PEs of `mask` (columns 0 for ConfigureCubeTile).
inline ConfigureRequest tile_request(std::uint32_t capacity, std::uint32_t columns, std::uint32_t valid_rows,
                                     std::uint32_t valid_columns, DataType t, PeMask mask = 0b1111,
                                     TileLayout layout = TileLayout::RowMajor,
                                     TileLocation location = TileLocation::Any) {
  ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = columns;
  r.valid_rows = valid_rows;
  r.valid_columns = valid_columns;
  r.data_type = t;
  r.layout = layout;
  r.location = location;
  r.mask = mask;
  return r;
}

// WriteTilePredicateBit (TileInfoWithPredicateBit): payload bit
// row * Col + column of a predicate tile, defined and counted.
// Tile::write_element defines and counts logical element `bit` (the U8 byte
// at that index is written back unchanged); then the bit is set.
inline void write_predicate_bit(Tile& t, std::uint32_t row, std::uint32_t column, bool value) {
  const std::uint32_t bit = row * t.descriptor().columns + column;
  t.write_element(row, column, t.read_raw(bit));
  std::byte& byte = t.payload()[bit / 8];
  const auto mask = static_cast<std::byte>(1U << (bit % 8));
  byte = value ? (byte | mask) : (byte & ~mask);
}

// A U32 tile configuration on every PE.
inline ConfigureRequest u32_request(std::uint32_t capacity, std::uint32_t columns, std::uint32_t vr, std::uint32_t vc) {
  return tile_request(capacity, columns, vr, vc, DataType::U32);
}

}  // namespace pto::tile::test
