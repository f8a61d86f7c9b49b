// Tile-start (BSTART.TEPL / TLSU / CUBE) operation and data-type decoding.
#pragma once

#include <cstdint>
#include <optional>

#include "isa/catalog.hpp"

namespace pto::isa {

// Tile family selector bits [19:15] of a tile BSTART (kind [8:7] = 11).
enum class TileStartFamily : std::uint8_t { TLSU = 2, TEPL = 3, CUBE = 6 };

struct TileStart {
  TileOp op;
  std::uint8_t data_type;  // 5-bit DataType code
};

// True when the accepted form is a tile-operation start (TEPL, TLSU or CUBE).
bool is_tile_start(const FormDesc& f);

// The tile operation a tile-start word selects, or nullopt for a reserved
// selector (TEPL holes, TLSU functions 15..31, unnamed CUBE functions).
// TEPL: 7-bit selector = Mode[26:25]:Function[24:20]; TLSU/CUBE: Function.
std::optional<TileOp> tile_op_of_start(std::uint64_t bits);
inline std::uint8_t tile_start_data_type(std::uint64_t bits) { return static_cast<std::uint8_t>((bits >> 27) & 0x1F); }
inline std::uint8_t tile_start_selector(std::uint64_t bits) { return static_cast<std::uint8_t>((bits >> 20) & 0x7F); }

}  // namespace pto::isa
