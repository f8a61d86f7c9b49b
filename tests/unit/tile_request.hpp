// A U32 tile configuration on every PE, shared by the tile-state tests.
#pragma once

#include <cstdint>

#include "tile/tile_state.hpp"

namespace pto::tile::test {

inline ConfigureRequest u32_request(std::uint32_t capacity, std::uint32_t columns, std::uint32_t vr, std::uint32_t vc) {
  ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = columns;
  r.valid_rows = vr;
  r.valid_columns = vc;
  r.data_type = DataType::U32;
  r.mask = 0b1111;
  return r;
}

}  // namespace pto::tile::test
