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
#include <optional>
#include <string>

#include "isa/catalog.hpp"
#include "isa/tile_start.hpp"
#include "test_util.hpp"
#include "tile_contract_checks.hpp"
#include "tile/ops_matrix.hpp"

namespace {

using namespace pto;
using json = nlohmann::json;

const json& points() {
  static const json v = test::load_json(test::data_path("spec_tile_contracts.json"));
  return v;
}

// "" when the check holds, otherwise what the model has.
std::string check(const json& c) {
  if (const std::optional<std::string> index_fact = test::tile_contract::index_fact_check(c)) return *index_fact;
  const std::string kind = c["check"];
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
