// ConfigureTile's arguments as a ConfigureRequest, shared by the tile tests.
#pragma once

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

// A U32 tile configuration on every PE.
inline ConfigureRequest u32_request(std::uint32_t capacity, std::uint32_t columns, std::uint32_t vr, std::uint32_t vc) {
  return tile_request(capacity, columns, vr, vc, DataType::U32);
}

}  // namespace pto::tile::test
