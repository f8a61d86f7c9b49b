// The tile operation table facts the ASL states per catalog index
// (DecodeTileOperation, Tile{Operation,Handler,Class,Engine}OfIndex), checked
// against the model's tile start decode and tile operation table
// (src/isa/generated/catalog_data.cpp); shared by the tile contract points
// (isa_tile_contract_spec_test.cpp) and the block vector runner
// (PTO-AVS-ARCH-DECODER-COVERAGE-001).
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "isa/catalog.hpp"
#include "isa/tile_start.hpp"

namespace pto::test::tile_contract {

using json = nlohmann::json;

// A BSTART tile start word (asl/block/model/encoding: kind [8:7] = 11 over
// the 0x01 carrier, family selector [19:15]) with `code` in the selector
// field [26:20]: TEPL reads Mode:Function there, TLSU and CUBE the Function.
inline std::uint64_t tile_start_word(const std::string& family, unsigned code) {
  const unsigned fam = family == "TEPL" ? 3 : family == "TLSU" ? 2 : 6;
  return 0x01u | (3u << 7) | (fam << 15) | (std::uint64_t{code} << 20);
}

// TileClass_ElementwiseTileTile -> the catalog's "elementwise-tile-tile".
inline std::string kebab(const std::string& camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c)) && !out.empty()) out += '-';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

inline const isa::TileOpDesc& op_at(const json& c) { return isa::tile_ops()[c["index"].get<std::size_t>()]; }

// DecodeTileOperation(TileDecode_<family>, code) == PTO_TILE_OPERATION_COUNT:
// no operation of that family in the model's tile operation table has the
// code (TEPL: the Mode:Function selector, TLSU/CUBE: the Function).  The
// table, not the start decode: that also maps the TLSU carriers' encoding
// variants (TMOV functions 9-12, TSTORE 14), which name no code here.
inline std::string unnamed_code_check(const std::string& family, unsigned code) {
  for (const isa::TileOpDesc& d : isa::tile_ops()) {
    const bool tepl = d.family == isa::TileFamily::TEPL;
    const std::string_view fam = tepl ? "TEPL" : d.family == isa::TileFamily::TLSU ? "TLSU" : "CUBE";
    if (fam == family && (tepl ? d.selector : d.function) == code) return std::string("code names ") + d.name;
  }
  return "";
}

// A fact of the tile operation at catalog index i: "" when it holds,
// otherwise what the model has; nullopt for a check of another kind.
//   decode:    DecodeTileOperation(TileDecode_<family>, code) == i (i =
//              PTO_TILE_OPERATION_COUNT: unnamed_code_check)
//   operation, handler, class, engine: Tile{Operation,Handler,Class,Engine}OfIndex(i)
//   operand_present: TileOperandPresent(i, TileOperand_<field>), the
//              operation's operand list in the table
//   tepl_carrier: TileOperationUsesTEPLCarrier(i), its start carrier is BSTART.TEPL
inline std::optional<std::string> index_fact_check(const json& c) {
  const std::string kind = c["check"];
  if (kind == "decode") {
    const unsigned code = c["code"];
    if (c["index"].get<std::size_t>() == isa::tile_ops().size()) return unnamed_code_check(c["family"], code);
    if (code >= (c["family"] == "TEPL" ? 128u : 32u)) return "code does not fit the start word's selector";
    const auto op = isa::tile_op_of_start(tile_start_word(c["family"], code));
    if (!op) return "no tile operation";
    return static_cast<std::size_t>(*op) == c["index"].get<std::size_t>() ? ""
                                                                           : "index " + std::to_string(static_cast<int>(*op));
  }
  if (kind != "operation" && kind != "handler" && kind != "class" && kind != "engine" && kind != "operand_present" &&
      kind != "tepl_carrier")
    return std::nullopt;
  if (c["index"].get<std::size_t>() >= isa::tile_ops().size()) return "index out of range";
  if (kind == "operand_present" || kind == "tepl_carrier") {
    const auto operands = isa::operands_of(op_at(c));
    const bool got = kind == "tepl_carrier"
                         ? std::string(op_at(c).command_mnemonic) == "BSTART.TEPL"
                         : std::any_of(operands.begin(), operands.end(),
                                       [&](const isa::TileOperandRole& r) { return c["field"] == r.field; });
    return got == c["value"].get<bool>() ? "" : kind + (got ? " true" : " false");
  }
  if (kind == "operation") return op_at(c).name == c["value"].get<std::string>() ? "" : op_at(c).name;
  if (kind == "handler") return op_at(c).semantic_handler == c["value"].get<std::string>() ? "" : op_at(c).semantic_handler;
  if (kind == "class") {
    return op_at(c).classification == kebab(c["value"]) ? "" : op_at(c).classification;
  }
  const std::string engine(isa::engine_name(op_at(c).engine));  // kind == "engine"
  return engine == c["value"].get<std::string>() ? "" : engine;
}

}  // namespace pto::test::tile_contract
