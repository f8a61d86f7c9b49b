// The tables tools/gen_spec_tables.py generates: the committed files equal a
// fresh run (skipped, visibly, when ../shared or ../spec is absent), and a few
// rows checked against values read by hand in the catalogs and the ASL.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <utility>

#include "arch/state.hpp"
#include "block/generated/bundle_start_forms.hpp"
#include "asm/syntax.hpp"
#include "isa/catalog.hpp"
#include "numerics/datatypes.hpp"
#include "numerics/profile.hpp"
#include "test_paths.hpp"
#include "tile/cube_transport.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/tile_types.hpp"

namespace fs = std::filesystem;

namespace pto {
namespace {

TEST(SpecTables, RegeneratedOutputMatchesCommitted) {
  const fs::path catalog = fs::path(PTO_SHARED_DIR) / "pto-spec-0.58.3" / "catalog";
  const fs::path spec = fs::path(PTO_SHARED_DIR) / ".." / "spec";
  if (!fs::exists(catalog / "command-forms.json") || !fs::exists(spec / "asl")) {
    GTEST_SKIP() << "SKIPPED: " << catalog << " or " << spec << " is absent; cannot regenerate the spec tables";
  }
  const std::string cmd = "python3 " + (fs::path(PTO_SOURCE_DIR) / "tools" / "gen_spec_tables.py").string() +
                          " --check --catalog " + catalog.string() + " --spec " + spec.string() + " --root " +
                          PTO_SOURCE_DIR + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// ---- BSTART forms (src/block/generated/bundle_start_forms.hpp)
using arch::BundleKind;
using arch::BundleOperationClass;
using arch::BundleTransfer;
using block::generated::kStartFormFacts;
using block::generated::StartFormFacts;

const StartFormFacts* start_facts(std::string_view asm_template) {
  for (const StartFormFacts& f : kStartFormFacts)
    if (isa::form(f.form).asm_template == asm_template) return &f;
  return nullptr;
}

TEST(SpecTables, EveryBundleStartFormHasOneRow) {
  std::size_t starts = 0;
  for (const isa::FormDesc& f : isa::catalog_forms())
    starts += std::string_view(f.semantic_handler) == "ExecuteBundleStart";
  ASSERT_EQ(std::size(kStartFormFacts), starts);
  for (const StartFormFacts& f : kStartFormFacts)
    EXPECT_EQ(std::string_view(isa::form(f.form).semantic_handler), "ExecuteBundleStart") << f.form;
}

// Expected values: scripts/generate-asl-decoders, command_bundle_kind /
// command_bundle_operation_class / command_bundle_transfer, applied by hand
// to the catalog mnemonic and asm of each form.
TEST(SpecTables, BundleStartRowsMatchTheSpecDecoderRules) {
  struct Expected {
    std::string_view asm_template;
    BundleKind kind;
    BundleOperationClass operation_class;
    BundleTransfer transfer;
  };
  const Expected expected[] = {
      // ".TMOV" is a TileElement kind but a TileMemory operation class.
      {"BSTART.TMOV DataType", BundleKind::TileElement, BundleOperationClass::TileMemory, BundleTransfer::Fallthrough},
      // ".GMOV" names no bundle kind (Standard) but a TileMemory class.
      {"BSTART.GMOV DataType", BundleKind::Standard, BundleOperationClass::TileMemory, BundleTransfer::Fallthrough},
      {"BSTART.TMATMULMX.BIAS DataType", BundleKind::TileMatrix, BundleOperationClass::TileMatrix,
       BundleTransfer::Fallthrough},
      {"BSTART.FP RET", BundleKind::Floating, BundleOperationClass::Control, BundleTransfer::Return},
      {"BSTART.STD IND", BundleKind::Standard, BundleOperationClass::Control, BundleTransfer::Indirect},
      {"BSTART.ICALL <rt_label>, ->ra", BundleKind::Standard, BundleOperationClass::Control,
       BundleTransfer::IndirectCall},
      {"BSTART.CALL <br_label>, <rt_label>, ->ra", BundleKind::Standard, BundleOperationClass::Control,
       BundleTransfer::Call},
      {"C.BSTART.SYS FALL", BundleKind::System, BundleOperationClass::Control, BundleTransfer::Fallthrough},
  };
  for (const Expected& e : expected) {
    const StartFormFacts* f = start_facts(e.asm_template);
    ASSERT_NE(f, nullptr) << e.asm_template;
    EXPECT_EQ(f->kind, e.kind) << e.asm_template;
    EXPECT_EQ(f->operation_class, e.operation_class) << e.asm_template;
    EXPECT_EQ(f->transfer, e.transfer) << e.asm_template;
  }
}

// ---- PEMode (src/tile/generated/pe_mode_masks.hpp).  Expected values:
// PTOv0PEMaskOfPEMode, asl/block/model/schema/profile-encoding.asl
// ('001' => '1000', '100' => '0001', '101' => '1100', '110' => '1110').
TEST(SpecTables, PeModeMasksMatchProfileEncoding) {
  EXPECT_EQ(tile::pe_mask_of_pe_mode(0), 0b0000);
  EXPECT_EQ(tile::pe_mask_of_pe_mode(1), 0b1000);
  EXPECT_EQ(tile::pe_mask_of_pe_mode(4), 0b0001);
  EXPECT_EQ(tile::pe_mask_of_pe_mode(5), 0b1100);
  EXPECT_EQ(tile::pe_mask_of_pe_mode(6), 0b1110);
  EXPECT_EQ(as::pe_mask_text(6), "1110");
  EXPECT_EQ(as::pe_mode_of_mask("1100"), 5u);
  EXPECT_EQ(as::pe_mode_of_mask("1010"), std::nullopt);  // no PEMode selects PE0 and PE2 only
}

// ---- Data types (src/numerics/generated/data_types.hpp).  Expected values:
// PTO-FIELD-BLOCK-DATATYPE in asl/arch/data-types/tile-data-types.asl
// (reserved 15, 21..23, 29..31; DTYPE_NONE = '11111'), the E3M2 and E8M0
// format descriptors (asl/arch/data-types/formats/e3m2.asl: carrier_bits 8,
// lane_bits 6; e8m0.asl: sign_bits 0) and TileElementBits (U4X2: 4).
TEST(SpecTables, DataTypeCodesMatchTheFieldDomain) {
  for (const unsigned reserved : {15U, 21U, 22U, 23U, 29U, 30U, 31U})
    EXPECT_FALSE(num::data_type_code_valid(static_cast<std::uint8_t>(reserved))) << reserved;
  EXPECT_TRUE(num::data_type_code_valid(0));
  EXPECT_TRUE(num::data_type_code_valid(28));
  EXPECT_EQ(num::kDataTypeNoneCode, 31);
  EXPECT_EQ(num::name(num::DataType{13}), "E8M0");
  EXPECT_EQ(num::name(num::DataType{20}), "S4X2");
  const num::DataTypeInfo& e3m2 = num::info(num::DataType::E3M2);
  EXPECT_EQ(num::code_of(e3m2.type), 9);
  EXPECT_EQ(e3m2.element_bits, 6);
  EXPECT_EQ(e3m2.carrier_bits, 8);
  EXPECT_EQ(num::info(num::DataType::E8M0).kind, num::DataTypeKind::Scale);
  EXPECT_EQ(num::info(num::DataType::U4X2).element_bits, 4);
  EXPECT_EQ(num::info(num::DataType::U4X2).lanes_per_carrier, 2);
}

// ---- PreQuantMode (src/tile/generated/pre_quant_modes.hpp).  Expected values:
// ADR 0085 decision 179 (code, name, accumulator, destination, parameter) and
// asl/block/attributes/B.FPATR.asl (BundleFPATRModeOffsetWidth 9 for code 2;
// BundleFPATRModeIsShift 12, 13), asl/arch/profile/matrix-postprocess.asl
// (MatrixFPATREffectiveControl: 25 and 28 round RHB).
TEST(SpecTables, PreQuantModesMatchAdr0085AndTheAsl) {
  using tile::fpatr::PreQuantRounding;
  const tile::fpatr::PreQuantMode& vreq8 = tile::fpatr::pre_quant_mode(2);
  EXPECT_EQ(vreq8.name, "VREQ8");
  EXPECT_TRUE(vreq8.legal);
  EXPECT_TRUE(vreq8.s32_accumulator);
  EXPECT_EQ(vreq8.output, num::DataType::S8);
  EXPECT_TRUE(vreq8.vector_parameter);
  EXPECT_FALSE(vreq8.scalar_parameter);
  EXPECT_EQ(vreq8.offset_width, 9);
  EXPECT_TRUE(tile::fpatr::pre_quant_mode(13).shift);
  EXPECT_EQ(tile::fpatr::pre_quant_mode(13).name, "SHIFTS322S16");
  EXPECT_EQ(tile::fpatr::pre_quant_mode(25).rounding, PreQuantRounding::RHB);
  EXPECT_EQ(tile::fpatr::pre_quant_mode(28).rounding, PreQuantRounding::RHB);
  EXPECT_EQ(tile::fpatr::pre_quant_mode(26).rounding, PreQuantRounding::RNE);
  EXPECT_EQ(tile::fpatr::pre_quant_mode(27).rounding, PreQuantRounding::Programmable);
  const tile::fpatr::PreQuantMode& vqs = tile::fpatr::pre_quant_mode(39);
  EXPECT_EQ(vqs.name, "VQS322BF16_PRE");
  EXPECT_TRUE(vqs.s32_accumulator);
  EXPECT_EQ(vqs.output, num::DataType::BF16);
  for (const unsigned reserved : {6U, 11U, 14U, 15U, 21U, 22U, 29U, 31U, 40U, 63U, 64U})
    EXPECT_FALSE(tile::fpatr::pre_quant_mode(reserved).legal) << reserved;
  EXPECT_EQ(tile::fpatr::kLegalPreQuantModeCount, 27u);  // catalog B.FPATR PreQuantMode one-of: 27 values
}

// ---- BrType (src/block/generated/bundle_start_forms.hpp kBranchTypes).
// Expected values: asl/block/model/dispatch/descriptor-legality.asl,
// BundleBranchTypeLegal ('001', '101', '110', '111') and
// BundleTransferOfBranchType (Fallthrough, Indirect, IndirectCall, Return).
TEST(SpecTables, BranchTypesMatchDescriptorLegality) {
  using block::generated::kBranchTypes;
  for (const unsigned reserved : {0U, 2U, 3U, 4U}) EXPECT_FALSE(kBranchTypes[reserved].legal) << reserved;
  const std::pair<unsigned, BundleTransfer> legal[] = {{1, BundleTransfer::Fallthrough},
                                                       {5, BundleTransfer::Indirect},
                                                       {6, BundleTransfer::IndirectCall},
                                                       {7, BundleTransfer::Return}};
  for (const auto& [code, transfer] : legal) {
    EXPECT_TRUE(kBranchTypes[code].legal) << code;
    EXPECT_EQ(kBranchTypes[code].transfer, transfer) << code;
  }
}

// ---- ReluMode / GroupNCode (src/tile/generated/fpatr_fields.hpp).
// Expected values: the catalog's B.FPATR legality ("ReluMode codes 0..3
// select None, ReLU, scalar LReLU/PReLU, and vector PReLU; codes 4..7 are
// reserved.  GroupNCode codes 0..9 select 0, 8, 16, 32, 48, 64, 80, 96,
// 112, and 128 columns; codes 10..15 are reserved.") and B.FPATR.asl
// (BundleFPATRReluModeUses{Scalar,Vector}Parameter: 2, 3).
TEST(SpecTables, ReluModesAndGroupNCodesMatchTheCatalog) {
  using tile::fpatr::group_n_code;
  using tile::fpatr::relu_mode;
  for (unsigned code = 0; code < 9; ++code) {
    EXPECT_EQ(relu_mode(code).legal, code <= 3) << code;
    EXPECT_EQ(relu_mode(code).scalar_parameter, code == 2) << code;
    EXPECT_EQ(relu_mode(code).vector_parameter, code == 3) << code;
  }
  constexpr unsigned kColumns[] = {0, 8, 16, 32, 48, 64, 80, 96, 112, 128};
  for (unsigned code = 0; code < 17; ++code) {
    EXPECT_EQ(group_n_code(code).legal, code <= 9) << code;
    EXPECT_EQ(tile::fpatr::group_n(code), code <= 9 ? kColumns[code] : 0U) << code;
  }
}

// ---- CUBE layout conversions (src/tile/generated/layout_conversions.hpp).
// Expected values: asl/block/model/state/control-state.asl,
// TileDataLayoutIsCubeConversion 21..26, TileDataLayoutConversionIsLoad
// 21..23, TileDataLayoutCubeLayout 21/24 CUBE_M32, 22/25 CUBE_M16, 23/26
// CUBE_N8.
TEST(SpecTables, CubeConversionsMatchTheControlStateAsl) {
  for (unsigned code = 0; code < 32; ++code) {
    const tile::generated::CubeConversion* c = tile::cube_conversion(code);
    ASSERT_EQ(c != nullptr, code >= 21 && code <= 26) << code;
    if (c == nullptr) continue;
    EXPECT_EQ(c->load, code <= 23) << code;
    constexpr tile::TileLayout kLayouts[] = {tile::TileLayout::CubeM32, tile::TileLayout::CubeM16,
                                             tile::TileLayout::CubeN8};
    EXPECT_EQ(c->layout, kLayouts[(code - 21) % 3]) << code;
  }
}

// ---- Scalar FP type codes (src/numerics/profile.cpp fp_code, read from the
// generated data-type table): the floating codes 0..14 select their format
// (FP16 and BF16: 1.0 + 1.0 = 2.0, 0x4000); a non-floating code reads as
// FP64 (1.0 + 1.0 = 2.0).
TEST(SpecTables, ScalarFpCodesAreTheFloatingDataTypes) {
  const num::NumericProfile& p = num::ieee_profile();
  using num::BinaryOp;
  using num::RoundingMode;
  EXPECT_EQ(p.scalar_binary(BinaryOp::ADD, RoundingMode::RNE, 4, 0x3c00, 0x3c00).bits, 0x4000U);
  EXPECT_EQ(p.scalar_binary(BinaryOp::ADD, RoundingMode::RNE, 5, 0x3f80, 0x3f80).bits, 0x4000U);
  constexpr std::uint64_t kOne = 0x3ff0000000000000ULL, kTwo = 0x4000000000000000ULL;
  for (const std::uint8_t code : {std::uint8_t{0}, std::uint8_t{15}, std::uint8_t{17}, std::uint8_t{24}})
    EXPECT_EQ(p.scalar_binary(BinaryOp::ADD, RoundingMode::RNE, code, kOne, kOne).bits, kTwo) << int{code};
}

}  // namespace
}  // namespace pto
