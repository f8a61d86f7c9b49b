// The spec's decode-positive test points (tests/asl/**, kind decode-positive),
// extracted with their AVS ids by tools/extract_decode_vectors.py into
// tests/data/spec_decode_positive.json: each (bits, length) decodes to the
// stated form with the stated field values and handler, and the point's
// InstructionContract facts (handler, operation, AGU attributes) hold for the
// forms it decodes in the model's form table and generated AGU table; the
// BSTART tile-start facts hold for the tile operation the word starts.
#include <gtest/gtest.h>

#include <string>

#include "asm/assembler.hpp"
#include "isa/catalog.hpp"
#include "isa/decoder.hpp"
#include "isa/tile_start.hpp"
#include "scalar/tables.hpp"
#include "scalar_fact_names.hpp"
#include "test_util.hpp"
#include "tile/ops_matrix.hpp"

using namespace pto;

namespace {

// InstructionContractAGU*_<MN>() against the generated AGU table entry of
// the decoded mnemonic; the number of facts checked.
std::size_t expect_agu_contract(const std::string& avs, isa::Mnemonic m, const nlohmann::json& agu) {
  const scalar::AguForm* entry = test::agu_form_entry(m);
  if (entry == nullptr) {
    ADD_FAILURE() << avs << ": no AGU table entry";
    return 0;
  }
  const scalar::AguForm& a = *entry;
  for (const auto& [key, value] : agu.items()) {
    if (key == "action") EXPECT_EQ(test::agu_action_name(a.action), value.get<std::string>()) << avs;
    else if (key == "address_kind")
      EXPECT_EQ(test::agu_address_kind_name(a.address_kind), value.get<std::string>()) << avs;
    else if (key == "update_mode") EXPECT_EQ(test::address_update_name(a.update), value.get<std::string>()) << avs;
    else if (key == "size_bytes") EXPECT_EQ(unsigned{a.size_bytes}, value.get<unsigned>()) << avs;
    else if (key == "offset_scale") EXPECT_EQ(unsigned{a.offset_scale}, value.get<unsigned>()) << avs;
    else if (key == "signed_load") EXPECT_EQ(a.signed_load, value.get<bool>()) << avs;
    else if (key == "prefetch_returns_address") EXPECT_EQ(a.prefetch_returns_address, value.get<bool>()) << avs;
    else ADD_FAILURE() << avs << ": unknown AGU fact " << key;
  }
  return agu.size();
}

// InstructionContract{TileOperation,CubeFunction,SharedOperandsAllowed}_<MN>()
// against the tile operation the decoded BSTART word starts (the model's
// tile-start decode and operation table) and the Matrix path's Shared-operand
// gate for its CUBE function; the number of facts checked.
std::size_t expect_tile_start_contract(const std::string& avs, std::uint64_t bits, const nlohmann::json& contract) {
  std::size_t facts = 0;
  const auto op = isa::tile_op_of_start(bits);
  for (const char* key : {"tile_operation", "cube_function", "shared_operands_allowed"}) {
    if (!contract.contains(key)) continue;
    ++facts;
    if (!op) {
      ADD_FAILURE() << avs << ": the word starts no tile operation (" << key << ")";
      continue;
    }
    const isa::TileOpDesc& d = isa::tile_op(*op);
    if (std::string_view(key) == "tile_operation") {
      EXPECT_EQ(std::string(d.name), contract[key].get<std::string>()) << avs;
      continue;
    }
    EXPECT_EQ(d.family, isa::TileFamily::CUBE) << avs << " " << key;
    if (std::string_view(key) == "cube_function") EXPECT_EQ(unsigned{d.function}, contract[key].get<unsigned>()) << avs;
    else EXPECT_EQ(tile::matrix_function(d.function).shared_operands_allowed(), contract[key].get<bool>()) << avs;
  }
  return facts;
}

// InstructionContractAliasEngine_<MN>(): the assembly alias MN (BSTART.SFU,
// BSTART.VEC) accepts exactly the TEPL-carried operations of that engine;
// probed by assembling "MN <op>, FP32" for every tile operation.
void expect_alias_engine(const std::string& avs, const std::string& alias, const std::string& engine) {
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < isa::tile_ops().size(); ++i) {
    const isa::TileOpDesc& d = isa::tile_ops()[i];
    const bool expected = d.family == isa::TileFamily::TEPL && isa::engine_name(d.engine) == engine;
    const bool ok = as::assemble(alias + " " + d.name + ", FP32\n", "alias.s").ok();
    EXPECT_EQ(ok, expected) << avs << ": " << alias << " " << d.name;
    accepted += ok;
  }
  EXPECT_GT(accepted, 0u) << avs << ": " << alias << " accepts no operation";
}

}  // namespace

TEST(SpecDecodePositive, EveryTestPointDecodesAsStated) {
  const auto points = test::load_json(test::data_path("spec_decode_positive.json"));
  ASSERT_GE(points.size(), 528u);
  std::size_t assertions = 0, handlers = 0, contract_facts = 0;
  for (const auto& tp : points) {
    const std::string avs = tp["avs_id"];
    const nlohmann::json contract = tp.value("contract", nlohmann::json::object());
    for (const auto& a : tp["assertions"]) {
      const std::uint64_t bits = test::parse_hex(a["bits"]);
      const unsigned length = a["length_bits"];
      const isa::Decoded d = isa::decode(bits, length);
      // ESAVE/ERCOV/XB decode to their (reserved-in-PTO) forms, which the model
      // then rejects; every other decode-positive point is an accepted form.
      const bool decodes = d.ok() || d.status == isa::DecodeStatus::ReservedInPto;
      ASSERT_TRUE(decodes) << avs << ": " << a.dump() << " -> " << isa::decode_status_name(d.status);
      EXPECT_EQ(std::string(d.desc().mnemonic), a["expected_mnemonic"].get<std::string>()) << avs;
      if (a.contains("expected_form_id") && !a["expected_form_id"].is_null()) {
        EXPECT_EQ(std::string(d.desc().form_id), a["expected_form_id"].get<std::string>()) << avs;
      }
      if (a.contains("fields")) {
        for (const auto& [name, value] : a["fields"].items()) {
          EXPECT_EQ(isa::field_value(d.desc(), name, bits), value.get<std::int64_t>()) << avs << " field " << name;
        }
      }
      if (a.contains("expected_handler")) {  // Scalar/CommandHandlerOfForm
        EXPECT_EQ(std::string(d.desc().semantic_handler), a["expected_handler"].get<std::string>()) << avs;
        ++handlers;
      }
      // The contract is the decoded instruction's: its handler, its operation
      // (the mnemonic's ASL identifier) and its AGU attributes.
      if (contract.contains("handler")) {
        EXPECT_EQ(std::string(d.desc().semantic_handler), contract["handler"].get<std::string>()) << avs << " contract";
        ++contract_facts;
      }
      if (contract.contains("operation")) {
        EXPECT_EQ(test::asl_id(d.desc().mnemonic), contract["operation"].get<std::string>()) << avs << " contract";
        ++contract_facts;
      }
      if (contract.contains("agu")) contract_facts += expect_agu_contract(avs, d.desc().mnem, contract["agu"]);
      contract_facts += expect_tile_start_contract(avs, bits, contract);
      if (contract.contains("alias_engine")) {
        expect_alias_engine(avs, contract["mnemonic"], contract["alias_engine"]);
        ++contract_facts;
      }
      ++assertions;
    }
  }
  EXPECT_GE(assertions, 553u);
  EXPECT_GE(handlers, 540u);
  EXPECT_GE(contract_facts, 2327u);
}
