// The spec's tile-operation catalog-alignment points
// (tests/asl/tile/**/tile-static-<op>-contract-001.asl), extracted with their
// AVS ids by tools/extract_tile_contract_vectors.py into
// tests/data/spec_tile_contracts.json: the model's tile start decode and tile
// operation table (src/isa/generated/catalog_data.cpp) against the ASL's
// DecodeTileOperation, TileOperationOfIndex, TileHandlerOfIndex,
// TileClassOfIndex, TileEngineOfIndex and InstructionContract* values;
// InstructionContractSharedOperandsAllowed_<CUBE op> against the Matrix
// path's gate for the operation's CUBE function (tile::MatrixFunction).
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "isa/catalog.hpp"
#include "isa/tile_start.hpp"
#include "test_util.hpp"
#include "tile/ops_matrix.hpp"

namespace {

using namespace pto;
using json = nlohmann::json;

const json& points() {
  static const json v = test::load_json(test::data_path("spec_tile_contracts.json"));
  return v;
}

// A BSTART tile start word (asl/block/model/encoding: kind [8:7] = 11 over
// the 0x01 carrier, family selector [19:15]) with `code` in the selector
// field [26:20]: TEPL reads Mode:Function there, TLSU and CUBE the Function.
std::uint64_t tile_start_word(const std::string& family, unsigned code) {
  const unsigned fam = family == "TEPL" ? 3 : family == "TLSU" ? 2 : 6;
  return 0x01u | (3u << 7) | (fam << 15) | (std::uint64_t{code} << 20);
}

// TileClass_ElementwiseTileTile -> the catalog's "elementwise-tile-tile".
std::string kebab(const std::string& camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c)) && !out.empty()) out += '-';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const isa::TileOpDesc& op_at(const json& c) { return isa::tile_ops()[c["index"].get<std::size_t>()]; }

// "" when the check holds, otherwise what the model has.
std::string check(const json& c) {
  const std::string kind = c["check"];
  if (kind == "decode") {
    const unsigned code = c["code"];
    if (code >= (c["family"] == "TEPL" ? 128u : 32u)) return "code does not fit the start word's selector";
    const auto op = isa::tile_op_of_start(tile_start_word(c["family"], code));
    if (!op) return "no tile operation";
    return static_cast<std::size_t>(*op) == c["index"].get<std::size_t>() ? ""
                                                                           : "index " + std::to_string(static_cast<int>(*op));
  }
  if (kind == "operation") return op_at(c).name == c["value"].get<std::string>() ? "" : op_at(c).name;
  if (kind == "handler") return op_at(c).semantic_handler == c["value"].get<std::string>() ? "" : op_at(c).semantic_handler;
  if (kind == "class") {
    return op_at(c).classification == kebab(c["value"]) ? "" : op_at(c).classification;
  }
  if (kind == "engine") {
    return isa::engine_name(op_at(c).engine) == c["value"].get<std::string>() ? ""
                                                                             : std::string(isa::engine_name(op_at(c).engine));
  }
  const auto op = isa::tile_op_from_name(c["contract"].get<std::string>());
  if (!op) return "no tile operation named " + c["contract"].get<std::string>();
  const isa::TileOpDesc& d = isa::tile_op(*op);
  if (kind == "contract_operation") return d.name == c["value"].get<std::string>() ? "" : d.name;
  if (kind == "contract_handler") return d.semantic_handler == c["value"].get<std::string>() ? "" : d.semantic_handler;
  if (kind == "cube_function") {
    if (d.family != isa::TileFamily::CUBE) return "not a CUBE operation";
    return d.function == c["value"].get<unsigned>() ? "" : "function " + std::to_string(d.function);
  }
  if (kind == "shared_operands_allowed") {
    if (d.family != isa::TileFamily::CUBE) return "not a CUBE operation";
    const bool allowed = tile::matrix_function(d.function).shared_operands_allowed();
    return allowed == c["value"].get<bool>() ? "" : allowed ? "Shared operands allowed" : "Local-only";
  }
  return "unknown check " + kind;
}

class SpecTileContract : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SpecTileContract, MatchesTheModelTables) {
  const json& p = points()[GetParam()];
  for (const json& c : p["checks"]) EXPECT_EQ(check(c), "") << p["avs_id"].get<std::string>() << ": " << c.dump();
}

std::vector<std::size_t> point_indices() {
  std::vector<std::size_t> v(points().size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

INSTANTIATE_TEST_SUITE_P(AVS, SpecTileContract, ::testing::ValuesIn(point_indices()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           std::string n = points()[info.param]["avs_id"];
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// A missing data file would instantiate nothing: the committed file has 109 points.
TEST(SpecTileContracts, FilePresent) { EXPECT_GE(points().size(), 109u); }

}  // namespace
