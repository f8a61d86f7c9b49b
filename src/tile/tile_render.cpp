#include "tile/tile_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace pto::tile {
namespace {

std::string element_text(const Tile& t, std::uint32_t row, std::uint32_t column) {
  const std::uint32_t e = t.linear_index(row, column);
  if (!t.element_defined(e)) return "?";
  return fmt::format("0x{:0{}x}", t.read_raw(e), (element_bits(t.data_type()) + 3) / 4);
}

nlohmann::json descriptor_json(const Tile& t) {
  const TileDescriptor& d = t.descriptor();
  return {{"capacity_bytes", d.capacity_bytes},
          {"rows", d.rows},
          {"columns", d.columns},
          {"valid_rows", d.valid_rows},
          {"valid_columns", d.valid_columns},
          {"data_type", std::string(num::name(d.data_type))},
          {"layout", std::string(layout_name(d.layout))},
          {"location", std::string(location_name(d.location))},
          {"storage", d.storage_kind == TileStorageKind::Numeric ? "Numeric" : "Predicate"}};
}

nlohmann::json definedness_json(const Tile& t) {
  return {{"contents_defined", t.contents_defined()},
          {"defined_valid_elements", t.defined_valid_elements()},
          {"valid_elements", t.valid_element_count()},
          {"defined_elements", t.defined_element_count()}};
}

nlohmann::json payload_json(const Tile& t) {
  nlohmann::json rows = nlohmann::json::array();
  const TileDescriptor& d = t.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const std::string s = element_text(t, r, c);
      row.push_back(s == "?" ? nlohmann::json(nullptr) : nlohmann::json(s));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::string tile_name(TileIndex index) {
  return fmt::format("{}#{}", hand_letter(hand_of(index)), index_within_hand(index));
}

std::optional<TileIndex> parse_tile_name(std::string_view text) {
  unsigned value = 0;
  const auto parse_number = [&](std::string_view digits) {
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return ec == std::errc() && p == digits.data() + digits.size();
  };
  if (text.size() >= 3 && text[1] == '#') {
    const char h = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    const std::string_view hands = "TUMN";
    const auto hand = hands.find(h);
    if (hand == std::string_view::npos || !parse_number(text.substr(2)) || value < 1 || value > 16) return std::nullopt;
    return static_cast<TileIndex>(hand * kTilesPerHand + value - 1);
  }
  if (!parse_number(text) || value >= kTileRegisterCount) return std::nullopt;
  return static_cast<TileIndex>(value);
}

nlohmann::json tile_to_json(const TileFile& file, TileIndex index) {
  const Tile& t = file.tile(index);
  nlohmann::json j{{"name", tile_name(index)}, {"index", index}, {"allocated", t.allocated()}};
  if (!t.allocated()) return j;
  j["mask"] = fmt::format("{:04b}", file.allocation_mask(index));
  j["descriptor"] = descriptor_json(t);
  j["definedness"] = definedness_json(t);
  j["payload"] = payload_json(t);
  return j;
}

std::string tile_to_table(const TileFile& file, TileIndex index) {
  const Tile& t = file.tile(index);
  if (!t.allocated()) return fmt::format("{}: unallocated\n", tile_name(index));
  const TileDescriptor& d = t.descriptor();
  std::string out = fmt::format("{} {} {}x{} valid {}x{} {} mask={:04b} defined {}/{}\n", tile_name(index),
                                num::name(d.data_type), d.rows, d.columns, d.valid_rows, d.valid_columns,
                                layout_name(d.layout), file.allocation_mask(index), t.defined_valid_elements(),
                                t.valid_element_count());
  std::size_t width = 1;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) width = std::max(width, element_text(t, r, c).size());
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < d.valid_columns; ++c)
      out += fmt::format("{}{:>{}}", c ? " " : "", element_text(t, r, c), width);
    out += '\n';
  }
  return out;
}

nlohmann::json tiles_to_json(const TileFile& file) {
  nlohmann::json local = nlohmann::json::array();
  for (unsigned i = 0; i < kTileRegisterCount; ++i)
    if (file.tile(static_cast<TileIndex>(i)).allocated()) local.push_back(tile_to_json(file, static_cast<TileIndex>(i)));
  nlohmann::json shared = nlohmann::json::array();
  for (unsigned s = 0; s < kSharedTileCount; ++s) {
    const SharedTile& st = file.shared(s);
    if (!st.descriptor_valid) continue;
    shared.push_back({{"name", fmt::format("S{}", s)},
                      {"allocation_mask", fmt::format("{:04b}", st.allocation_mask)},
                      {"initialized_mask", fmt::format("{:04b}", st.initialized_mask)},
                      {"published", st.published},
                      {"descriptor", descriptor_json(st.tile)},
                      {"definedness", definedness_json(st.tile)}});
  }
  return {{"local", local}, {"shared", shared}, {"capacity_in_use", file.core_capacity_in_use()},
          {"capacity_limit", file.capacity_limit()}};
}

}  // namespace pto::tile
