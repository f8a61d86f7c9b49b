// Observability for tiles (trace / dump-state / print-tile): a descriptor,
// definedness summary and typed payload as JSON, and the valid region as a
// text table.  Undefined elements render as null / "?" (never their carrier).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tile/tile_state.hpp"

namespace pto::tile {

// "T#1".."N#16" for a Local register.
std::string tile_name(TileIndex index);
// Parse "T#1".."N#16" (hand letter case-insensitive) or "0".."63".
std::optional<TileIndex> parse_tile_name(std::string_view text);

// {"name","allocated","mask",descriptor fields,"definedness":{...},"payload":[[...]]}
// payload lists the valid region row by row (raw carriers as hex strings).
nlohmann::json tile_to_json(const TileFile& file, TileIndex index);
// Valid region as an aligned text table with a one-line header.
std::string tile_to_table(const TileFile& file, TileIndex index);
// Every allocated Local tile and every valid Shared tile.
nlohmann::json tiles_to_json(const TileFile& file);

}  // namespace pto::tile
