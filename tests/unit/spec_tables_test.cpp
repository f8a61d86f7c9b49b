// The tables tools/gen_spec_tables.py generates: the committed files equal a
// fresh run (skipped, visibly, when ../shared or ../spec is absent), and a few
// rows checked against values read by hand in the catalogs and the ASL.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "arch/state.hpp"
#include "isa/catalog.hpp"
#include "test_paths.hpp"

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

// ---- BSTART forms (src/block/generated/bundle_start_forms.inc)
using arch::BundleKind;
using arch::BundleOperationClass;
using arch::BundleTransfer;

struct StartFormFacts {
  isa::FormIndex form;
  BundleKind kind;
  BundleOperationClass operation_class;
  BundleTransfer transfer;
};
constexpr StartFormFacts kStartFormFacts[] = {
#include "block/generated/bundle_start_forms.inc"
};

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

}  // namespace
}  // namespace pto
