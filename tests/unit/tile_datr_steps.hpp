// The B.DATR rule of a tile operation as the model applies it, shared by the
// bundle and block vector runners: "expect_tile_datr_legal"
// (TileOperationDATRFieldsLegal / TileOperationDATRFieldApplicable, an explicit
// B.DATR with the step's fields checked by the model's
// SelectedBundleTileDataAttributesLegal) and "expect_tile_datr_pad_union"
// (TileOperationDATRPadUnion: how the operation reads PadValueOrByteId).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "arch/machine.hpp"
#include "isa/decoder.hpp"
#include "tile/tile_contracts.hpp"

namespace pto::test::datr {

using json = nlohmann::json;

// "true"/"false": whether the model accepts the step's B.DATR fields for
// its tile operation; nullopt for an unknown operation.
inline std::optional<std::string> legal_text(const json& s) {
  const auto op = isa::tile_op_from_name(s.at("tile_op").get<std::string>());
  if (!op) return std::nullopt;
  const json& f = s.at("fields");
  const auto field = [&](const char* name) { return static_cast<std::uint8_t>(f.at(name).get<unsigned>()); };
  arch::BlockState b;
  b.data_attributes_present = true;
  auto& d = b.data_attributes;
  d.comparison_mode = field("comparison_mode");
  d.pad_value = field("pad_value");
  d.saturating = f.at("saturating").get<bool>();
  d.canonicalize = f.at("canonicalize").get<bool>();
  d.data_type = field("data_type");
  d.data_type_present = true;
  d.rounding_mode = field("rounding_mode");
  d.data_layout = field("data_layout");
  return tile::datr_fields_legal(*op, b) ? "true" : "false";
}

// The operation's pad union (tile::PadUnion name); nullopt for an unknown
// operation.
inline std::optional<std::string> pad_union_text(const json& s) {
  static constexpr const char* kPadUnions[] = {"MustZero", "PadValue", "HistogramByteId"};  // tile::PadUnion order
  const auto op = isa::tile_op_from_name(s.at("tile_op").get<std::string>());
  if (!op) return std::nullopt;
  return kPadUnions[static_cast<unsigned>(tile::datr_contract(*op).pad_union)];
}

}  // namespace pto::test::datr
