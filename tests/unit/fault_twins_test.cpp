// Negative twins of block fault points: the spec point's faulting word
// sequence, and the same sequence made legal by the smallest change that
// removes the faulting condition of the rule it is named for.  The faulting
// sequence must raise the point's fault; its twin (<AVS id>-TWIN) must
// execute and leave what the helper its legal word replaces writes.  A rule that rejects too much fails the twin; one that rejects
// too little fails the fault half.  (Twins living next to their suites:
// MatrixBundle.UnusedIor001Twin, MatrixSharedBundle.TgemvRejectsASharedOperandThatTmatmulAccepts;
// docs/conformance.md lists the fault points without a twin.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bundle_test_host.hpp"
#include "tile_request.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;

constexpr std::uint64_t kBstartStdFall = 0x00001001;     // BSTART.STD FALL, simm17 0
constexpr std::uint64_t kEnterBody = 0x00000015;         // ADDI zero, 0, ->zero: the first body instruction
const std::uint64_t kBcatr = encode_form("b_catr_32_e90bd52fa480", {});
std::uint64_t iot_src(unsigned s, bool last, unsigned pe_mode = 7) {
  return encode_form(kBIotSrc, {{"SrcTile0", s}, {"PEMode", pe_mode}, {"L", last}});
}

// What the twin's legal tail leaves in the pending block (the helper the
// word replaces: SetBundleDimension, SetBundle{Data,Control}AttributeState,
// AddBundleTileBinding, BindBundleSharedIO, SetBundleScalarBinding,
// EnterBundleBody; BSTOP's CompleteBundleAt).
using Effect = void (*)(const arch::State&);

struct Twin {
  const char* avs_id;
  std::vector<std::uint64_t> setup;    // executes in both runs
  std::vector<std::uint64_t> faulting;  // the point's rejected tail
  std::vector<std::uint64_t> twin;      // the same tail, legal
  FaultCode fault;
  Effect effect;
};

void dimensions_0_and_1(const arch::State& s) {  // LB0 = 2 (setup), LB1 = 3
  EXPECT_TRUE(s.block.dimension_present[0] && s.block.dimension_present[1]);
  EXPECT_EQ(s.block.dimensions[0], 2U);
  EXPECT_EQ(s.block.dimensions[1], 3U);
}
void data_attributes(const arch::State& s) { EXPECT_TRUE(s.block.data_attributes_present); }
void control_attributes(const arch::State& s) { EXPECT_TRUE(s.block.control_attributes.present); }
void last_on_second_binding(const arch::State& s) {
  const auto& b = s.block.tile_bindings;
  EXPECT_TRUE(b[0].valid && b[0].source0_valid && !b[0].last);
  EXPECT_EQ(b[0].source0, 1U);
  EXPECT_TRUE(b[1].valid && b[1].source0_valid && b[1].last);
  EXPECT_EQ(b[1].source0, 2U);
}
void shared_3_and_4(const arch::State& s) {
  const auto& b = s.block.shared_bindings;
  EXPECT_TRUE(b[0].valid && b[1].valid);
  EXPECT_EQ(b[0].shared_id, 3U);
  EXPECT_EQ(b[1].shared_id, 4U);
}
void shared_masks_1111(const arch::State& s) {  // PEMode 7: PTOv0PEMaskOfPEMode = 1111
  const auto& b = s.block.shared_bindings;
  EXPECT_TRUE(b[0].valid && b[1].valid);
  EXPECT_EQ(b[0].pe_mask, 0b1111U);
  EXPECT_EQ(b[1].pe_mask, 0b1111U);
}
// The header record, then EnterBundleBody.
template <Effect Header>
void header_then_body(const arch::State& s) {
  Header(s);
  EXPECT_TRUE(s.block.bundle_active && s.block.bundle_body_active);
}
void dimension_0_is_1(const arch::State& s) {
  EXPECT_TRUE(s.block.dimension_present[0]);
  EXPECT_EQ(s.block.dimensions[0], 1U);
}
void scalar_binding(const arch::State& s) {
  EXPECT_TRUE(s.block.scalar_bindings[0].valid);
  EXPECT_EQ(s.block.scalar_bindings[0].source0, 1U);
}
void shared_1(const arch::State& s) {
  EXPECT_TRUE(s.block.shared_bindings[0].valid);
  EXPECT_EQ(s.block.shared_bindings[0].shared_id, 1U);
}
void last_binding_of_1(const arch::State& s) {
  const auto& b = s.block.tile_bindings[0];
  EXPECT_TRUE(b.valid && b.source0_valid && b.last);
  EXPECT_EQ(b.source0, 1U);
}
void block_committed(const arch::State& s) { EXPECT_FALSE(s.block.bundle_active); }

std::vector<Twin> twins() {
  const std::uint64_t datr = encode_form(kBDatr, {});
  return {
      // SetBundleDimension: a second write of the same LB; the twin writes another LB.
      {"PTO-AVS-BLOCK-B-DIM-DUPLICATE-001", {tload_start(kU32), bdim(0, 2)}, {bdim(0, 3)}, {bdim(1, 3)},
       FaultCode::Fault_BundleControl, dimensions_0_and_1},
      // At most one B.DATR / B.CATR: the twin has only the first.
      {"PTO-AVS-BLOCK-B-DATR-DUPLICATE-001", {tload_start(kU32)}, {datr, datr}, {datr}, FaultCode::Fault_BundleControl,
       data_attributes},
      {"PTO-AVS-BLOCK-B-CATR-DUPLICATE-001", {tload_start(kU32)}, {kBcatr, kBcatr}, {kBcatr},
       FaultCode::Fault_BundleControl, control_attributes},
      // L closes the B.IOT stream: the twin marks the later binding last instead.
      {"PTO-AVS-BLOCK-B-IOT-LAST-ORDER-001", {tepl_start(0, kU32)}, {iot_src(1, true), iot_src(2, false)},
       {iot_src(1, false), iot_src(2, true)}, FaultCode::Fault_BundleControl, last_on_second_binding},
      // Shared ids are unique: the twin names another id.
      {"PTO-AVS-BLOCK-B-IOS-STREAM-LIMIT-001", {tload_start(kU32)}, {ios(3, 0), ios(3, 0)}, {ios(3, 0), ios(4, 0)},
       FaultCode::Fault_BundleControl, shared_3_and_4},
      // One PE mask for every binding: the twin repeats the first mask.
      {"PTO-AVS-BLOCK-B-IOS-MASK-CONSISTENCY-001", {tload_start(kU32)}, {ios(1, 0, 7), ios(2, 0, 1)},
       {ios(1, 0, 7), ios(2, 0, 7)}, FaultCode::Fault_TileLegality, shared_masks_1111},
      // Header commands only in an active block's header: the faulting runs
      // are in the body; the twins precede the body's first instruction.
      {"PTO-AVS-BLOCK-B-DIM-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, bdim(0, 1)}, {bdim(0, 1), kEnterBody},
       FaultCode::Fault_BundleControl, header_then_body<dimension_0_is_1>},
      {"PTO-AVS-BLOCK-B-DATR-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, datr}, {datr, kEnterBody},
       FaultCode::Fault_BundleControl, header_then_body<data_attributes>},
      {"PTO-AVS-BLOCK-B-CATR-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, kBcatr}, {kBcatr, kEnterBody},
       FaultCode::Fault_BundleControl, header_then_body<control_attributes>},
      {"PTO-AVS-BLOCK-B-IOR-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, bior(1, 0)}, {bior(1, 0), kEnterBody},
       FaultCode::Fault_BundleControl, header_then_body<scalar_binding>},
      {"PTO-AVS-BLOCK-B-IOS-PLACEMENT-001", {tload_start(kU32)}, {kEnterBody, ios(1, 0)}, {ios(1, 0), kEnterBody},
       FaultCode::Fault_BundleControl, header_then_body<shared_1>},
      {"PTO-AVS-BLOCK-B-IOT-PLACEMENT-001", {tepl_start(0, kU32)}, {kEnterBody, iot_src(1, true)},
       {iot_src(1, true), kEnterBody}, FaultCode::Fault_BundleControl, header_then_body<last_binding_of_1>},
      // BSTOP needs an active block: the twin opens one first.
      {"PTO-AVS-BLOCK-BSTOP-INACTIVE-001", {}, {kBstop}, {kBstartStdFall, kBstop}, FaultCode::Fault_BundleControl,
       block_committed},
  };
}

class FaultTwin : public ::testing::TestWithParam<std::size_t> {};

TEST_P(FaultTwin, FaultsAndTwinExecutes) {
  const Twin t = twins()[GetParam()];
  BundleTestHost faulting;
  ASSERT_TRUE(faulting.run(t.setup).ok()) << t.avs_id;
  EXPECT_EQ(faulting.run(t.faulting).fault, t.fault) << t.avs_id;
  BundleTestHost twin;
  ASSERT_TRUE(twin.run(t.setup).ok()) << t.avs_id;
  const BundleOutcome o = twin.run(t.twin);
  EXPECT_TRUE(o.ok()) << t.avs_id << "-TWIN: " << arch::fault_name(o.fault) << " " << o.message;
  SCOPED_TRACE(std::string(t.avs_id) + "-TWIN effect");
  t.effect(twin.m.state);
}

std::string twin_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string n = std::string(twins()[info.param].avs_id) + "_TWIN";
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(AVS, FaultTwin, ::testing::Range<std::size_t>(0, twins().size()), twin_name);

// PTO-AVS-TILE-TSEL-MASK-001 (tests/asl/tile/elementwise-tile-tile/logical/
// TSEL/tile-fault-tsel-mask-001.asl): TileOperandsLegal_ExecuteTileSelect(3,
// 0, 1, 2) rejects the mask tile 0 configured as an ordinary U8 tile and
// accepts it after ConfigurePredicateTile(0, 128, 16, 8, 1, 2) with bits
// (0,0) clear and (0,1) set.  The point calls the legality helper only (its
// vector has no rejected exec); here both halves run as the TSEL bundle the
// operands name: BSTART TSEL U8, LB0 = 2 valid columns, LB2 = 8 columns (the
// point's 16 x 8 descriptors, 1 x 2 valid), B.IOT mask 0, source_true 1;
// B.IOT source_false 2, last, -> hand 1; every tile on all four PEs (PEMode
// 1111).  The numeric mask faults Fault_TileLegality; the twin executes and
// ExecuteTileSelect (asl/tile/model/execution/comparison.asl) gives element
// c = mask(c) ? source_true(c) : source_false(c): (0,0) source_false's 3,
// (0,1) source_true's 2.
struct TselMaskHost : BundleTestHost {
  static constexpr std::uint32_t kColumns = 8, kValidColumns = 2;
  void numeric(tile::TileIndex i, std::uint64_t v0, std::uint64_t v1) {
    tile::ConfigureRequest r;
    r.capacity_bytes = 128;
    r.columns = kColumns;
    r.valid_rows = 1;
    r.valid_columns = kValidColumns;
    r.data_type = tile::DataType::U8;
    r.mask = 0b1111;
    ASSERT_EQ(file.configure(i, r), FaultCode::Fault_None);
    file.tile(i).write_element(0, 0, v0);
    file.tile(i).write_element(0, 1, v1);
  }
  // ConfigurePredicateTile(0, 128, 16, 8, 1, 2); WriteTilePredicateBit (0,0) false, (0,1) true.
  void predicate_mask() {
    file.configure_predicate(0, 128, 16, kColumns, 1, kValidColumns, 0b1111);
    tile::test::write_predicate_bit(file.tile(0), 0, 0, false);
    tile::test::write_predicate_bit(file.tile(0), 0, 1, true);
  }
  BundleOutcome select() {
    return run({start_of(isa::TileOp::TSEL, kU8), bdim(0, kValidColumns), bdim(2, kColumns),
                encode_form(kBIotSrcSrc, {{"SrcTile0", 0}, {"SrcTile1", 1}, {"PEMode", 7}}), src_to_hand1(2), kBstop});
  }
};

TEST(FaultTwinTselMask, NumericMaskRejectsAndPredicateMaskSelects) {
  TselMaskHost faulting;
  faulting.numeric(0, 0, 1);
  faulting.numeric(1, 1, 2);
  faulting.numeric(2, 3, 4);
  EXPECT_EQ(faulting.select().fault, FaultCode::Fault_TileLegality);

  TselMaskHost twin;  // PTO_AVS_TILE_TSEL_MASK_001_TWIN
  twin.predicate_mask();
  twin.numeric(1, 1, 2);
  twin.numeric(2, 3, 4);
  const BundleOutcome o = twin.select();
  ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
  const tile::Tile& d = twin.file.tile(twin.destination());
  EXPECT_EQ(d.read_word(d.linear_index(0, 0)), 3U);
  EXPECT_EQ(d.read_word(d.linear_index(0, 1)), 2U);
}

}  // namespace
}  // namespace pto::test
