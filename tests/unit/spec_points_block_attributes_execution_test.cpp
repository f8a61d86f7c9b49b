// Spec test points of tests/asl/block/attributes/** and
// tests/asl/block/execution/** that the automatic extractor skipped,
// translated by hand.  Where the ASL point pokes model state to open a
// block (_BundleActive, _BundleOperation) the test executes the matching
// BSTART header word instead; instruction words are the points' own bit
// constructions.  Expected values come from the points' assertions.
#include <gtest/gtest.h>

#include "bundle_test_host.hpp"
#include "block/control.hpp"
#include "asm/attributes.hpp"
#include "numerics/rounding.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/shared_tile.hpp"
#include "tile/tile_contracts.hpp"
#include "tile/tile_ops.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;

// BSTART.TMATMUL FP16 (CUBE family, Function 0): opens a TileMatrix block.
constexpr std::uint64_t kMatrixStart = 0x00031181 | (4ULL << 27);
// BSTART.TEPL Function 0 (TADD) U32: a TileElement (VEC) block.
constexpr std::uint64_t kElementStart = 0x00019181 | (25ULL << 27);
// B.FPATR with every field zero (NoQuant, no ReLU, no group/row max).
constexpr std::uint64_t kFpatrNone = 0x00002023;

std::uint64_t with_field(std::uint64_t word, unsigned lo, unsigned width, std::uint64_t value) {
  const std::uint64_t mask = ((1ULL << width) - 1) << lo;
  return (word & ~mask) | ((value << lo) & mask);
}

// One execution attempt of `word` with an explicit length (the points'
// ExecuteCommandInstruction(word, length)); the fused BSTART CALL / ICALL
// words are 32-bit forms whose low halfword alone would read as 16-bit.
scalar::ExecOutcome execute(BundleTestHost& h, std::uint64_t word, unsigned length_bits) {
  return runner::execute_instruction(h.m, word, length_bits);
}

// A fresh machine with a TileMatrix block open (the points' PrepareMatrixHeader).
void open_matrix_block(BundleTestHost& h) {
  ASSERT_TRUE(h.run({kMatrixStart}).ok());
  ASSERT_TRUE(h.state().bundle_active);
  ASSERT_TRUE(h.state().operation.valid);
  ASSERT_EQ(h.state().operation.operation_class, arch::BundleOperationClass::TileMatrix);
}

// One B.FPATR word inside a fresh Matrix header: expect `fault`, no latched
// descriptor and an unchanged TPC.
void expect_fpatr_rejected(std::uint64_t word, FaultCode fault) {
  BundleTestHost h;
  open_matrix_block(h);
  const arch::Word tpc = h.m.state.pc;
  const auto o = h.run({word});
  EXPECT_EQ(o.status, BundleStatus::Fault) << std::hex << word;
  EXPECT_EQ(o.fault, fault) << std::hex << word;
  EXPECT_FALSE(h.state().fixed_point_attributes.valid) << std::hex << word;
  EXPECT_EQ(h.m.state.pc, tpc) << std::hex << word;
}

// ---- B.FPATR reserved encodings: Fault_IllegalInstruction before effects ----
// (asl/block/attributes/B.FPATR.asl; PreQuantMode [31:26], ReluMode [25:23],
// GroupNCode [22:19], reserved bits [10:9].)

// PTO-AVS-BLOCK-B-FPATR-GROUP-RSVD-001: GroupNCode 10..15.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_GROUP_RSVD_001) {
  for (unsigned code = 10; code <= 15; ++code)
    expect_fpatr_rejected(with_field(kFpatrNone, 19, 4, code), FaultCode::Fault_IllegalInstruction);
}

void expect_prequant_reserved(unsigned first, unsigned last) {
  for (unsigned code = first; code <= last; ++code)
    expect_fpatr_rejected(with_field(kFpatrNone, 26, 6, code), FaultCode::Fault_IllegalInstruction);
}

// PTO-AVS-BLOCK-B-FPATR-RSVD-001: PreQuantMode 6..11.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_RSVD_001) { expect_prequant_reserved(6, 11); }
// PTO-AVS-BLOCK-B-FPATR-PQ14-15-001
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_PQ14_15_001) { expect_prequant_reserved(14, 15); }
// PTO-AVS-BLOCK-B-FPATR-PQ21-22-001
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_PQ21_22_001) { expect_prequant_reserved(21, 22); }
// PTO-AVS-BLOCK-B-FPATR-PQ29-31-001
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_PQ29_31_001) { expect_prequant_reserved(29, 31); }
// PTO-AVS-BLOCK-B-FPATR-PQ40-47-001
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_PQ40_47_001) { expect_prequant_reserved(40, 47); }
// PTO-AVS-BLOCK-B-FPATR-PQ48-55-001
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_PQ48_55_001) { expect_prequant_reserved(48, 55); }
// PTO-AVS-BLOCK-B-FPATR-PQ56-63-001
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_PQ56_63_001) { expect_prequant_reserved(56, 63); }

// PTO-AVS-BLOCK-B-FPATR-RELU-RSVD-001: ReluMode 4..7.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_RELU_RSVD_001) {
  for (unsigned code = 4; code <= 7; ++code)
    expect_fpatr_rejected(with_field(kFpatrNone, 23, 3, code), FaultCode::Fault_IllegalInstruction);
}

// PTO-AVS-BLOCK-B-FPATR-TRANSPOSE-RSVD-012: bits 9 and 10 are reserved.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_TRANSPOSE_RSVD_012) {
  for (unsigned bit = 9; bit <= 10; ++bit)
    expect_fpatr_rejected(kFpatrNone | (1ULL << bit), FaultCode::Fault_IllegalInstruction);
}

// ---- B.FPATR placement (BundleFixedPointAttributesCanBePlaced) ----

// PTO-AVS-BLOCK-B-FPATR-DUPLICATE-001: a second B.FPATR faults with
// Fault_BundleControl and keeps the first descriptor.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_DUPLICATE_001) {
  BundleTestHost h;
  open_matrix_block(h);
  ASSERT_TRUE(h.run({kFpatrNone}).ok());
  EXPECT_TRUE(h.state().fixed_point_attributes.valid);
  const auto o = h.run({kFpatrNone});
  EXPECT_EQ(o.status, BundleStatus::Fault);
  EXPECT_EQ(o.fault, FaultCode::Fault_BundleControl);
  EXPECT_TRUE(h.state().fixed_point_attributes.valid);
  EXPECT_EQ(h.state().fixed_point_attributes.pre_quant_mode, 0U);
}

// PTO-AVS-BLOCK-B-FPATR-NONMATRIX-001: B.FPATR in a TileElement block.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_NONMATRIX_001) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({kElementStart}).ok());
  ASSERT_EQ(h.state().operation.operation_class, arch::BundleOperationClass::TileElement);
  const auto o = h.run({kFpatrNone});
  EXPECT_EQ(o.status, BundleStatus::Fault);
  EXPECT_EQ(o.fault, FaultCode::Fault_BundleControl);
  EXPECT_FALSE(h.state().fixed_point_attributes.valid);
}

// PTO-AVS-BLOCK-B-FPATR-ZMASK-001: zero-mask B.IOT / B.IOS are no-ops that
// install no binding, so a following B.FPATR still latches.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_ZMASK_001) {
  BundleTestHost h;
  open_matrix_block(h);
  ASSERT_TRUE(h.run({0x00005013}).ok());  // B.IOT PEMode 000
  ASSERT_TRUE(h.run({0x00001013}).ok());  // B.IOS PEMode 000
  EXPECT_EQ(tile::tile_binding_count(h.state()), 0U);
  EXPECT_EQ(tile::shared_binding_count(h.state()), 0U);
  const auto o = h.run({kFpatrNone});
  EXPECT_TRUE(o.ok());
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  EXPECT_TRUE(h.state().fixed_point_attributes.valid);
}

// B.FPATR rejected with Fault_BundleControl at the current TPC, no descriptor.
void expect_fpatr_misplaced(BundleTestHost& h) {
  const arch::Word tpc = h.m.state.pc;
  const auto o = h.run({kFpatrNone});
  EXPECT_EQ(o.status, BundleStatus::Fault);
  EXPECT_EQ(o.fault, FaultCode::Fault_BundleControl);
  EXPECT_FALSE(h.state().fixed_point_attributes.valid);
  EXPECT_EQ(h.m.state.pc, tpc);
}

// PTO-AVS-BLOCK-B-FPATR-PLACE-001: outside a block, in the block body, and
// after a scalar, Local or Shared binding.  The body case uses the model's
// EnterBundleBody counterpart (block::enter_bundle_body).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_PLACE_001) {
  {
    BundleTestHost h;  // no block
    expect_fpatr_misplaced(h);
  }
  {
    BundleTestHost h;
    open_matrix_block(h);
    block::enter_bundle_body(h.m);
    ASSERT_TRUE(h.state().bundle_body_active);
    expect_fpatr_misplaced(h);
  }
  {
    BundleTestHost h;
    open_matrix_block(h);
    ASSERT_TRUE(h.run({0x00000013}).ok());  // B.IOR x0, x0, x0
    ASSERT_TRUE(h.state().scalar_bindings[0].valid);
    expect_fpatr_misplaced(h);
    EXPECT_TRUE(h.state().scalar_bindings[0].valid);
  }
  {
    BundleTestHost h;
    open_matrix_block(h);
    ASSERT_TRUE(h.run({0x00005013 | (7ULL << 9) | (1ULL << 19)}).ok());  // B.IOT T#0, L
    ASSERT_TRUE(h.state().tile_bindings[0].valid);
    expect_fpatr_misplaced(h);
    EXPECT_TRUE(h.state().tile_bindings[0].valid);
  }
  {
    BundleTestHost h;
    open_matrix_block(h);
    ASSERT_TRUE(h.run({0x00001013 | (7ULL << 20) | (7ULL << 9)}).ok());  // B.IOS S7
    ASSERT_TRUE(h.state().shared_bindings[0].valid);
    expect_fpatr_misplaced(h);
    EXPECT_TRUE(h.state().shared_bindings[0].valid);
  }
}

// PTO-AVS-BLOCK-B-FPATR-RESET-CLEAR-001: ResetBundleControlState
// (block::reset_bundle_control) removes presence and every latched field.
// Like the point, the descriptor fields are written directly (no single
// legal B.FPATR word sets all of them together).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_RESET_CLEAR_001) {
  BundleTestHost h;
  block::reset_bundle_control(h.m.state);
  open_matrix_block(h);
  arch::BundleFixedPointAttributes& a = h.state().fixed_point_attributes;
  a.valid = true;
  a.pre_quant_mode = 3;
  a.relu_mode = 2;
  a.group_n_code = 1;
  a.row_max_en = a.group_max_en = a.row_max_init = a.max_abs_en = a.trans_a = a.trans_b = true;
  block::reset_bundle_control(h.m.state);
  const arch::BundleFixedPointAttributes& r = h.state().fixed_point_attributes;
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.pre_quant_mode, 0U);
  EXPECT_EQ(r.relu_mode, 0U);
  EXPECT_EQ(r.group_n_code, 0U);
  EXPECT_FALSE(r.row_max_en);
  EXPECT_FALSE(r.group_max_en);
  EXPECT_FALSE(r.row_max_init);
  EXPECT_FALSE(r.max_abs_en);
  EXPECT_FALSE(r.trans_a);
  EXPECT_FALSE(r.trans_b);
  EXPECT_FALSE(h.state().bundle_active);
}

// ---- B.DATR Layout / RMode ----

// B.DATR {Layout, DataType} (Layout [11:7], DataType [24:20]); DataType 31 is DTYPE_NONE.
constexpr std::uint64_t datr(unsigned layout, unsigned data_type = 31) {
  return 0x00001023 | (std::uint64_t{layout} << 7) | (std::uint64_t{data_type} << 20);
}

// B.DATR with `layout` in a fresh TLOAD header: true when it latches.  A
// rejected code must fault with Fault_IllegalInstruction (the catalog's
// B.DATR Layout one-of constraint), leaving TPC and the attributes unchanged.
bool datr_layout_accepted(unsigned layout) {
  BundleTestHost h;
  EXPECT_TRUE(h.run({tload_start(kU32)}).ok());
  const arch::Word tpc = h.m.state.pc;
  const auto o = h.run({datr(layout)});
  if (o.ok()) {
    EXPECT_TRUE(h.state().data_attributes_present) << layout;
    EXPECT_EQ(h.state().data_attributes.data_layout, layout);
    return true;
  }
  EXPECT_EQ(o.fault, FaultCode::Fault_IllegalInstruction) << layout;
  EXPECT_FALSE(h.state().data_attributes_present) << layout;
  EXPECT_EQ(h.m.state.pc, tpc) << layout;
  return false;
}

// PTO-AVS-BLOCK-B-DATR-CUBE-RESERVED-003: TileDataLayoutCodeAccepted, observed
// as B.DATR acceptance: nineteen codes; 2, 5, 7, 10..16, 19, 29, 31 reserved.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_DATR_CUBE_RESERVED_003) {
  unsigned accepted = 0;
  for (unsigned code = 0; code < 32; ++code) accepted += datr_layout_accepted(code) ? 1 : 0;
  EXPECT_EQ(accepted, 19U);
  for (const unsigned code : {2U, 5U, 7U, 19U, 29U, 31U}) EXPECT_FALSE(datr_layout_accepted(code)) << code;
  for (unsigned code = 10; code <= 16; ++code) EXPECT_FALSE(datr_layout_accepted(code)) << code;
}

// Catalog B.DATR form and its Layout field.
const isa::FormDesc& datr_form() { return isa::form(*isa::form_by_id(kBDatr)); }
int datr_layout_field() { return isa::field_index(datr_form(), "Layout"); }

// PTO-AVS-BLOCK-B-DATR-LAYOUT-MAP-001: every accepted code maps to its named
// transformation and back (TileDataLayoutOfCode / TileDataLayoutCodeOf, here
// the symbolic Layout names of the assembler/disassembler), the others are
// reserved; spot values NORM, ND2DN, ND2ZN, ND2M32, NZ2DN, NZ2ZN.  The
// source/destination layouts of ND2DN and NZ2ZN are checked on a latched
// B.DATR (TileDataLayoutSource/DestinationLayout).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_DATR_LAYOUT_MAP_001) {
  unsigned accepted = 0;
  for (unsigned code = 0; code < 32; ++code) {
    if (!datr_layout_accepted(code)) continue;
    ++accepted;
    const auto name = as::attribute_value_name(datr_form(), datr_layout_field(), code);
    ASSERT_TRUE(name.has_value()) << code;
    EXPECT_EQ(as::attribute_value_code(datr_form(), datr_layout_field(), *name), std::int64_t{code}) << *name;
  }
  EXPECT_EQ(accepted, 19U);
  const std::pair<unsigned, const char*> spots[] = {{0, "NORM"},    {1, "ND2DN"},  {3, "ND2ZN"},
                                                    {21, "ND2M32"}, {28, "NZ2DN"}, {30, "NZ2ZN"}};
  for (const auto& [code, expected] : spots)
    EXPECT_EQ(as::attribute_value_name(datr_form(), datr_layout_field(), code).value_or(""), expected) << code;
  BundleTestHost h;
  ASSERT_TRUE(h.run({tload_start(kU32), datr(1)}).ok());
  const tile::BundleTileLayouts nd2dn = tile::bundle_tile_layouts(h.state());
  EXPECT_EQ(nd2dn.source, tile::TileLayout::RowMajor);
  EXPECT_EQ(nd2dn.destination, tile::TileLayout::ColumnMajor);
  BundleTestHost g;
  ASSERT_TRUE(g.run({tload_start(kU32), datr(30)}).ok());
  const tile::BundleTileLayouts nz2zn = tile::bundle_tile_layouts(g.state());
  EXPECT_EQ(nz2zn.source, tile::TileLayout::NZ);
  EXPECT_EQ(nz2zn.destination, tile::TileLayout::ZN);
}

// PTO-AVS-BLOCK-B-DATR-RMODE-001: DecodeBundleRoundingSelection
// (num::decode_bundle_rmode): 000 = operation default, 001..111 = RNE, RTZ,
// RTM, RTP, RNA, RTO, RHB.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_DATR_RMODE_001) {
  using num::RoundingMode;
  EXPECT_TRUE(num::decode_bundle_rmode(0).use_operation_default);
  EXPECT_FALSE(num::decode_bundle_rmode(1).use_operation_default);
  const RoundingMode expected[8] = {RoundingMode::RNE, RoundingMode::RNE, RoundingMode::RTZ, RoundingMode::RTM,
                                    RoundingMode::RTP, RoundingMode::RNA, RoundingMode::RTO, RoundingMode::RHB};
  for (unsigned raw = 1; raw < 8; ++raw) {
    EXPECT_FALSE(num::decode_bundle_rmode(raw).use_operation_default) << raw;
    EXPECT_EQ(num::decode_bundle_rmode(raw).mode, expected[raw]) << raw;
  }
}

// ---- engine contracts of the BSTART mnemonics ----

// Expected acceptance per TileOp index 0..108 (the points' 109 assertions).
constexpr const char* kSfuAccepts =
    "0001100000000000111110000000110000000000111111111111111111111111111111111111111111111110000000000000000000000";
constexpr const char* kVecAccepts =
    "1110011111111111000001111111001111111111000000000000000000000000000000000000000000000000000000000000000000000";

void expect_engine_contract(const char* expected, isa::TileEngine engine) {
  ASSERT_EQ(std::string_view(expected).size(), isa::kTileOpCount);
  for (std::size_t i = 0; i < isa::kTileOpCount; ++i)
    EXPECT_EQ(isa::tile_op(static_cast<isa::TileOp>(i)).engine == engine, expected[i] == '1')
        << i << " " << isa::tile_op(static_cast<isa::TileOp>(i)).name;
}

// PTO-AVS-BLOCK-BSTART-SFU-ENGINE-001: InstructionContractAcceptsTileOperation_BSTART_SFU
// accepts exactly the operations whose engine is SFU.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_BSTART_SFU_ENGINE_001) {
  expect_engine_contract(kSfuAccepts, isa::TileEngine::SFU);
}
// PTO-AVS-BLOCK-BSTART-VEC-ENGINE-001: the same for VEC.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_BSTART_VEC_ENGINE_001) {
  expect_engine_contract(kVecAccepts, isa::TileEngine::VEC);
}

// PTO-AVS-BLOCK-TMATMUL-TYPES-001: ordinary matrix input classes and
// accumulator types (TileOrdinaryMatrixInputTypesSameClass /
// TileOrdinaryMatrixAccumulatorType).  TileOrdinaryMatrixInputTypeSupported
// has no public counterpart; an unsupported type X is observed as X never
// pairing with itself.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TMATMUL_TYPES_001) {
  using tile::DataType;
  EXPECT_TRUE(tile::ordinary_matrix_types_same_class(DataType::FP16, DataType::E4M3));
  EXPECT_EQ(tile::matrix_accumulator_type(DataType::FP16), DataType::FP32);
  EXPECT_EQ(tile::matrix_accumulator_type(DataType::E4M3), DataType::FP32);
  EXPECT_TRUE(tile::ordinary_matrix_types_same_class(DataType::S16, DataType::S4X2));
  EXPECT_EQ(tile::matrix_accumulator_type(DataType::S16), DataType::S32);
  EXPECT_EQ(tile::matrix_accumulator_type(DataType::S4X2), DataType::S32);
  EXPECT_TRUE(tile::ordinary_matrix_types_same_class(DataType::U16, DataType::U4X2));
  EXPECT_EQ(tile::matrix_accumulator_type(DataType::U16), DataType::U32);
  EXPECT_EQ(tile::matrix_accumulator_type(DataType::U4X2), DataType::U32);
  for (const DataType t : {DataType::FP64, DataType::E8M0, DataType::HiF4X2, DataType::S64, DataType::S32,
                           DataType::U64, DataType::U32})
    EXPECT_FALSE(tile::ordinary_matrix_types_same_class(t, t)) << num::code_of(t);
  EXPECT_FALSE(tile::ordinary_matrix_types_same_class(DataType::FP16, DataType::S16));
}

// PTO-AVS-BLOCK-BSTART-CALL-FUSED-FORMS-001: the fused BSTART CALL / ICALL
// words decode to ExecuteBundleStart forms and start blocks whose transfer is
// Call / IndirectCall; the bare CALL / ICALL words have no form and execute
// as Fault_IllegalInstruction.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_BSTART_CALL_FUSED_FORMS_001) {
  const std::pair<std::uint64_t, arch::BundleTransfer> fused[] = {{0x50160002, arch::BundleTransfer::Call},
                                                                  {0x50166001, arch::BundleTransfer::IndirectCall}};
  for (const auto& [word, transfer] : fused) {
    const isa::Decoded d = isa::decode(word, 32);
    ASSERT_TRUE(d.ok()) << std::hex << word;
    EXPECT_STREQ(d.desc().semantic_handler, "ExecuteBundleStart");
    BundleTestHost h;
    if (transfer == arch::BundleTransfer::IndirectCall) {
      // ICALL reads the retiring block's BPCN: retire a standard DIRECT block.
      block::begin_bundle_at(h.m, h.m.state.pc, arch::BundleKind::Standard, arch::BundleTransfer::Direct, 0x200000,
                             h.m.state.pc + 4, 0, true);
    }
    EXPECT_FALSE(scalar::is_fault(execute(h, word, 32))) << std::hex << word;
    EXPECT_TRUE(h.state().bundle_active);
    EXPECT_EQ(h.state().barg.transfer_type, transfer) << std::hex << word;
  }
  for (const std::uint64_t word : {0x00004101ULL, 0x00006101ULL, 0x00004001ULL, 0x00006001ULL}) {
    EXPECT_FALSE(isa::decode(word, 32).ok()) << std::hex << word;
    BundleTestHost h;
    EXPECT_TRUE(scalar::is_fault(execute(h, word, 32))) << std::hex << word;
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_IllegalInstruction) << std::hex << word;
  }
}

// B.CATR {DR, trap, far, atom, aq, rl}.
std::uint64_t catr(const std::map<std::string, std::int64_t>& fields) {
  return encode_form("b_catr_32_e90bd52fa480", fields);
}

// ---- block lifecycle points that open the block with BeginBundleAt ----
// The ASL points open these blocks with the BeginBundle(At) helper rather
// than a BSTART word; block::begin_bundle_at is the model's counterpart.

// PTO-AVS-BLOCK-C-B-DIMI-RSVD-001: the reserved C.B.DIMI form (bits [15:14]
// = 11) in a standard block rejects with Fault_IllegalInstruction before any
// LB value, presence bit or TPC changes; the saved TPC is the command's PC.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_C_B_DIMI_RSVD_001) {
  BundleTestHost h;
  h.m.state.pc = 0x600;
  block::begin_bundle_at(h.m, 0x600, arch::BundleKind::Standard, arch::BundleTransfer::Fallthrough, 0x602, 0x602,
                         0x602, false);
  ASSERT_TRUE(h.state().bundle_active);
  ASSERT_EQ(h.m.state.pc, 0x602U);
  const std::uint64_t word = 0x003c | (3ULL << 14) | (0xFFULL << 6);
  const scalar::ExecOutcome e = execute(h, word, 16);
  EXPECT_TRUE(scalar::is_fault(e));
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_IllegalInstruction);
  for (unsigned i = 0; i < 3; ++i) EXPECT_FALSE(h.state().dimension_present[i]) << i;
  EXPECT_EQ(h.m.state.trap_contexts[0].tpc, 0x602U);
}

// PTO-AVS-BLOCK-B-CATR-DR-ENGINE-001: B.CATR DR is rejected at the commit of
// a TileMatrix (CUBE) block with Fault_BundleControl, the block staying
// active, while a TileElement (VEC-class) block commits.  The point latches
// the attribute directly; here an encoded B.CATR DR header command does.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_CATR_DR_ENGINE_001) {
  {
    BundleTestHost h;
    h.m.state.pc = 0x100;
    block::begin_bundle_at(h.m, 0x100, arch::BundleKind::TileMatrix, arch::BundleTransfer::Fallthrough, 0x104,
                           0x104, 0x104, true);
    ASSERT_TRUE(h.run({catr({{"DR", 1}})}).ok());
    EXPECT_TRUE(scalar::is_fault(block::complete_bundle(h.m, 0x104)));
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_BundleControl);
    EXPECT_TRUE(h.state().bundle_active);
  }
  {
    BundleTestHost h;
    h.m.state.pc = 0x200;
    block::begin_bundle_at(h.m, 0x200, arch::BundleKind::TileElement, arch::BundleTransfer::Fallthrough, 0x204,
                           0x204, 0x204, true);
    ASSERT_TRUE(h.run({catr({{"DR", 1}})}).ok());
    EXPECT_FALSE(scalar::is_fault(block::complete_bundle(h.m, 0x204)));
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  }
}

// PTO-AVS-BLOCK-B-CATR-POST-TRAP-001: B.CATR trap raises
// Fault_BundlePostCommit only after the block commits; the saved context is
// clean (no active block, no control attributes) and resumes at the selected
// continuation 0x104.  SetBundleControlAttributeState(trap) becomes an
// encoded B.CATR trap header command.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_CATR_POST_TRAP_001) {
  BundleTestHost h;
  h.m.state.pc = 0x100;
  block::begin_bundle_at(h.m, 0x100, arch::BundleKind::Standard, arch::BundleTransfer::Fallthrough, 0x180, 0x104,
                         0x104, true);
  ASSERT_TRUE(h.run({catr({{"trap", 1}})}).ok());
  EXPECT_TRUE(scalar::is_fault(block::complete_bundle(h.m, 0x104)));
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_BundlePostCommit);
  EXPECT_FALSE(h.state().bundle_active);
  const unsigned ring = h.m.state.current_acr;
  const arch::TrapContext& c = h.m.state.trap_contexts[ring];
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.tpc, 0x104U);
  EXPECT_FALSE(c.block.bundle_active);
  EXPECT_FALSE(c.block.control_attributes.present);
  EXPECT_TRUE(h.m.recover_trap_context(ring));
  EXPECT_EQ(h.m.state.pc, 0x104U);
}

// PTO-AVS-BLOCK-BSTART-CALL-ROLLBACK-001 / PTO-AVS-BLOCK-BSTART-ICALL-ROLLBACK-001:
// a fused BSTART CALL / ICALL retiring a block whose FixedPoint operation
// cannot execute faults with Fault_IllegalInstruction; ra (x10) keeps its old
// value, the saved context holds the retiring block's BPC and BARG (Direct,
// BPCN), and the live BARG is not replaced by the call's.  The operation
// descriptor is set directly, as in the points.
void expect_call_rollback(std::uint64_t word, arch::Word start, arch::Word target, arch::Word ra) {
  BundleTestHost h;
  h.m.set_current_acr(0);
  h.m.state.pc = start;
  block::begin_bundle_at(h.m, start, arch::BundleKind::Standard, arch::BundleTransfer::Direct, target, start + 4, 0,
                         true);
  h.gpr[10] = ra;
  h.state().operation.valid = true;
  h.state().operation.operation_class = arch::BundleOperationClass::FixedPoint;
  EXPECT_TRUE(scalar::is_fault(execute(h, word, 32)));
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(h.gpr[10], ra);
  const arch::TrapContext& c = h.m.state.trap_contexts[0];
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.bpc, start);
  EXPECT_EQ(c.block.barg.bpcn, target);
  EXPECT_EQ(c.block.barg.transfer_type, arch::BundleTransfer::Direct);
  EXPECT_EQ(h.state().barg.bpcn, target);
}

TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_BSTART_CALL_ROLLBACK_001) {
  expect_call_rollback(0x50160002, 0x400, 0x600, 0xdead);
}
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_BSTART_ICALL_ROLLBACK_001) {
  expect_call_rollback(0x50166001, 0x500, 0x700, 0xbeef);
}

// ---- B.FPATR mode tables ----

// BundleFPATRPreQuantModeLegal as given by the points (MODE-TABLE lists
// every accepted code; INPUT-TYPE-002 iterates over them).
bool asl_prequant_legal(unsigned m) {
  return m <= 5 || m == 12 || m == 13 || (m >= 16 && m <= 20) || (m >= 23 && m <= 28) || (m >= 32 && m <= 39);
}

// B.FPATR PreQuantMode=m (other fields zero) latches in a Matrix header.
bool fpatr_mode_accepted(unsigned m) {
  BundleTestHost h;
  open_matrix_block(h);
  return h.run({with_field(kFpatrNone, 26, 6, m)}).ok() && h.state().fixed_point_attributes.valid;
}

// PTO-AVS-BLOCK-B-FPATR-INPUT-TYPE-002: BundleFPATRAccumulatorTypeLegal
// (tile::fpatr::accumulator_type_legal) separates S32, FP32 and U32
// accumulators; the legal modes are those B.FPATR accepts.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_INPUT_TYPE_002) {
  using tile::DataType;
  using tile::fpatr::accumulator_type_legal;
  EXPECT_TRUE(accumulator_type_legal(0, DataType::FP32));
  EXPECT_TRUE(accumulator_type_legal(0, DataType::S32));
  EXPECT_TRUE(accumulator_type_legal(0, DataType::U32));
  EXPECT_TRUE(accumulator_type_legal(3, DataType::S32));
  EXPECT_FALSE(accumulator_type_legal(3, DataType::FP32));
  EXPECT_TRUE(accumulator_type_legal(24, DataType::FP32));
  EXPECT_FALSE(accumulator_type_legal(24, DataType::S32));
  EXPECT_FALSE(accumulator_type_legal(24, DataType::U32));
  EXPECT_FALSE(accumulator_type_legal(39, DataType::U32));
  for (unsigned raw = 0; raw < 64; ++raw) {
    EXPECT_EQ(fpatr_mode_accepted(raw), asl_prequant_legal(raw)) << raw;
    if (!asl_prequant_legal(raw)) continue;
    if (raw == 0) continue;  // checked above
    const bool s32 = raw == 2 || raw == 3 || raw == 4 || raw == 5 || raw == 12 || raw == 13 || raw == 17 ||
                     raw == 18 || raw == 19 || raw == 20 || raw == 35 || raw == 39;
    EXPECT_TRUE(accumulator_type_legal(raw, s32 ? DataType::S32 : DataType::FP32)) << raw;
    EXPECT_FALSE(accumulator_type_legal(raw, s32 ? DataType::FP32 : DataType::S32)) << raw;
    EXPECT_FALSE(accumulator_type_legal(raw, DataType::U32)) << raw;
  }
}

// ---- TLSU / CUBE execution points (encoded words; B.DIM replaces the
// points' SetBundleDimension, BSTOP their ExecuteBundleTileOperation) ----

// PTO-AVS-BLOCK-MSCATTER-ZERO-001: a zero-mask source record (B.IOT with
// PEMode 000, the encodable form of the point's mask-0000 binding) with no
// dimensions or B.IOR commits with no fault, event or allocation.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_MSCATTER_ZERO_001) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tlsu_start(5, kU8)}).ok());
  ASSERT_TRUE(h.run({encode_form(kBIotSrcSrc, {{"SrcTile0", 62}, {"SrcTile1", 63}, {"PEMode", 0}, {"L", 1}})}).ok());
  h.m.start_memory_event_capture(0);
  EXPECT_TRUE(h.run({kBstop}).ok());
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(h.m.state.memory_event_count, 0);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

// PTO-AVS-BLOCK-MSCATTER-MASK-ZERO-001: the same with the two zero-mask
// records of MSCATTER.MASK (values/indices, then the predicate, last).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_MSCATTER_MASK_ZERO_001) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tlsu_start(7, kU8)}).ok());
  ASSERT_TRUE(h.run({encode_form(kBIotSrcSrc, {{"SrcTile0", 60}, {"SrcTile1", 61}, {"PEMode", 0}, {"L", 0}})}).ok());
  ASSERT_TRUE(h.run({encode_form(kBIotSrc, {{"SrcTile0", 62}, {"PEMode", 0}, {"L", 1}})}).ok());
  h.m.start_memory_event_capture(0);
  EXPECT_TRUE(h.run({kBstop}).ok());
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(h.m.state.memory_event_count, 0);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

// PTO-AVS-BLOCK-TLOAD-CUBE-DTYPE-005: a CUBE conversion TLOAD (B.DATR Layout
// 22 = ND2M16, DataType NONE) of FP64, HiF4X2, S64 or U64 is Tile legality
// with no destination capacity.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TLOAD_CUBE_DTYPE_005) {
  for (const unsigned code : {0U, 14U, 16U, 24U}) {
    BundleTestHost h;
    ASSERT_TRUE(h.run({tload_start(code), datr(22)}).ok()) << code;
    ASSERT_TRUE(h.run({bdim(0, 1), bdim(1, 1), 0x00006013 | (1ULL << 9) | (1ULL << 15) | (1ULL << 19)}).ok()) << code;
    const auto o = h.run({kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << code;
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U) << code;
  }
}

// PTO-AVS-BLOCK-TPREFETCH-FOOTPRINT-001: U16 2x2 footprints (LB2 = 4, per-PE
// base a2 and element stride a3) give sixteen acquire loads grouped by PE and
// no allocation.  The point's direct _BundleControlAttributes.acquire is an
// encoded B.CATR aq here.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TPREFETCH_FOOTPRINT_001) {
  BundleTestHost h;
  for (unsigned pe = 0; pe < 4; ++pe) {
    h.m.state.gpr[pe][2] = 0x100 * (pe + 1);
    h.m.state.gpr[pe][3] = 4 + pe;
  }
  ASSERT_TRUE(h.run({tlsu_start(3, kU16), bdim(0, 2), bdim(1, 2), bdim(2, 4), bior(2, 3), catr({{"aq", 1}})}).ok());
  h.m.start_memory_event_capture(0);
  ASSERT_TRUE(h.run({kBstop}).ok());
  ASSERT_EQ(h.m.state.memory_event_count, 16);
  const auto& e = h.m.state.memory_events;
  EXPECT_EQ(e[0].agent, 0U);
  EXPECT_EQ(e[0].address, 0x100U);
  EXPECT_EQ(e[1].address, 0x102U);
  EXPECT_EQ(e[2].address, 0x108U);
  EXPECT_EQ(e[3].address, 0x10aU);
  EXPECT_EQ(e[4].agent, 1U);
  EXPECT_EQ(e[6].address, 0x20aU);
  EXPECT_EQ(e[8].agent, 2U);
  EXPECT_EQ(e[10].address, 0x30cU);
  EXPECT_EQ(e[12].agent, 3U);
  EXPECT_EQ(e[14].address, 0x40eU);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(e[i].kind, arch::MemoryEventKind::Load) << i;
    EXPECT_EQ(e[i].size_bytes, 2U) << i;
    EXPECT_EQ(e[i].order, arch::MemoryOrder::Acquire) << i;
  }
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

// PTO-AVS-BLOCK-TPREFETCH-PACKED-001: two U4X2 logical elements per PE make
// two one-byte loads of the same containing byte.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TPREFETCH_PACKED_001) {
  BundleTestHost h;
  for (unsigned pe = 0; pe < 4; ++pe) {
    h.m.state.gpr[pe][2] = 0x100 + pe * 0x20;
    h.m.state.gpr[pe][3] = 2;
  }
  ASSERT_TRUE(h.run({tlsu_start(3, kU4X2), bdim(0, 2), bdim(1, 1), bdim(2, 2), bior(2, 3)}).ok());
  h.m.start_memory_event_capture(0);
  ASSERT_TRUE(h.run({kBstop}).ok());
  ASSERT_EQ(h.m.state.memory_event_count, 8);
  const auto& e = h.m.state.memory_events;
  for (unsigned pe = 0; pe < 4; ++pe) {
    const unsigned first = pe * 2;
    EXPECT_EQ(e[first].agent, pe);
    EXPECT_EQ(e[first + 1].agent, pe);
    EXPECT_EQ(e[first].size_bytes, 1U);
    EXPECT_EQ(e[first].address, 0x100U + pe * 0x20);
    EXPECT_EQ(e[first + 1].address, e[first].address);
  }
}

// ConfigureCubeTileForMask(index, capacity, rows, columns, type, layout, Matrix, 1111).
void cube_tile(BundleTestHost& h, tile::TileIndex i, std::uint32_t capacity, std::uint32_t rows, std::uint32_t columns,
               tile::DataType t, tile::TileLayout layout) {
  const tile::ConfigureRequest r{.capacity_bytes = capacity, .valid_rows = rows, .valid_columns = columns,
                                 .data_type = t, .layout = layout, .location = tile::TileLocation::Matrix,
                                 .mask = 0b1111};
  ASSERT_EQ(h.file.configure_cube(i, r), arch::FaultCode::Fault_None);
}

// PTO-AVS-BLOCK-TMATMUL-MASK-001: a zero-mask TMATMUL block (encoded B.IOT
// PEMode 000) has no effects; a partial mask 0011 allocates and publishes the
// destination for the selected PEs only.  Mask 0011 has no PEMode encoding,
// so, like the point's AddBundleTileBinding, that binding is installed
// directly; block::commit_tile_bundle is ExecuteBundleTileOperation.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TMATMUL_MASK_001) {
  {
    BundleTestHost h;
    ASSERT_TRUE(h.run({kMatrixStart}).ok());
    ASSERT_TRUE(h.run({encode_form(kBIotSrcSrcDst, {{"SrcTile0", 62}, {"SrcTile1", 63}, {"SizeCode", 1},
                                                    {"PEMode", 0}, {"L", 1}, {"DstTile", 0}})})
                    .ok());
    EXPECT_TRUE(h.run({kBstop}).ok());
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  }
  {
    BundleTestHost h;
    cube_tile(h, 1, 128, 1, 1, tile::DataType::FP16, tile::TileLayout::CubeM16);
    cube_tile(h, 2, 128, 1, 1, tile::DataType::FP16, tile::TileLayout::CubeN8);
    h.file.tile(1).write_element(0, 0, 2);
    h.file.tile(2).write_element(0, 0, 3);
    ASSERT_TRUE(h.run({kMatrixStart, kFpatrNone}).ok());
    arch::BundleTileBinding& t = h.state().tile_bindings[0];
    t = {};
    t.valid = t.destination_valid = true;
    t.destination = t.destination_hand = 0;
    t.destination_size = 1;
    t.pe_mask = 0b0011;
    t.source0_valid = t.source1_valid = true;
    t.source0 = 1;
    t.source1 = 2;
    t.last = true;
    h.state().header_dirty = true;
    EXPECT_EQ(block::commit_tile_bundle(h.m, isa::TileOp::TMATMUL), scalar::ExecOutcome::Next);
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    EXPECT_TRUE(h.state().tile_bindings[0].destination_allocated_by_bundle);
    EXPECT_EQ(h.file.allocation_mask(h.state().tile_bindings[0].destination), 0b0011U);
  }
}

// ---- CUBE transport (B.DATR Layout 21..26, tlsu-layout-conversion.asl) ----

constexpr unsigned kFP16 = 4;
// B.IOT ->T<1> with PEMode `pe_mode`, last.
constexpr std::uint64_t iot_dst_t1(unsigned pe_mode) { return 0x00006013 | (std::uint64_t{pe_mode} << 9) | (1ULL << 15) | (1ULL << 19); }
// B.IOT T#0 (SrcTile0 = 0) with PEMode `pe_mode`, last.
constexpr std::uint64_t iot_src_t0(unsigned pe_mode) { return 0x00005013 | (std::uint64_t{pe_mode} << 9) | (1ULL << 19); }
// B.DATR {Layout, DTYPE_NONE, PadValue}.
constexpr std::uint64_t datr_pad(unsigned layout, unsigned pad) { return datr(layout) | (std::uint64_t{pad} << 27); }

// The element (r, c) of tile t by its storage index (TileStorageIndex).
std::uint64_t stored(const BundleTestHost& h, tile::TileIndex t, unsigned r, unsigned c) {
  const tile::Tile& x = h.file.tile(t);
  return x.read_raw(x.linear_index(r, c));
}

// PTO-AVS-BLOCK-TLOAD-CUBE-STRIDE-007: ND2M16 TLOAD of a 2x2 FP16 block on
// PE0: an explicit byte stride (a3 = 6) addresses row 1 at base + 6; an
// omitted B.IOR reads from 0 with the dense LB0 byte width (4); encoded zero
// registers alias row 1 onto row 0.  The destination is read at the end of
// the block commit.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TLOAD_CUBE_STRIDE_007) {
  const std::vector<std::uint64_t> header{tload_start(kFP16), datr(22), bdim(0, 2), bdim(1, 2), iot_dst_t1(1)};
  {
    BundleTestHost h;
    h.m.memory.write(0x100, 2, 1);
    h.m.memory.write(0x102, 2, 2);
    h.m.memory.write(0x106, 2, 3);
    h.m.memory.write(0x108, 2, 4);
    h.gpr[2] = 0x100;
    h.gpr[3] = 6;
    ASSERT_TRUE(h.run(header).ok());
    ASSERT_TRUE(h.run({bior(2, 3), kBstop}).ok());
    EXPECT_EQ(stored(h, h.destination(), 1, 0), 3U);
  }
  {
    BundleTestHost h;
    for (unsigned i = 0; i < 4; ++i) h.m.memory.write(2 * i, 2, 5 + i);
    ASSERT_TRUE(h.run(header).ok());
    ASSERT_TRUE(h.run({kBstop}).ok());
    EXPECT_EQ(stored(h, h.destination(), 1, 0), 7U);
  }
  {
    BundleTestHost h;
    h.m.memory.write(0, 2, 9);
    h.m.memory.write(2, 2, 10);
    ASSERT_TRUE(h.run(header).ok());
    ASSERT_TRUE(h.run({bior(0, 0), kBstop}).ok());
    const tile::TileIndex d = h.destination();
    EXPECT_EQ(stored(h, d, 0, 0), stored(h, d, 1, 0));
    EXPECT_EQ(stored(h, d, 0, 1), stored(h, d, 1, 1));
  }
}

// PTO-AVS-BLOCK-TSTORE-CUBE-002: M162ND TSTORE (Layout 25, PadValue Null) of
// a 2x3 FP16 CUBE_M16 tile on PE3 (mask 0001) writes the six values densely
// from address 0 and leaves the source (layout, payload, definedness) as it was.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TSTORE_CUBE_002) {
  BundleTestHost h;
  const tile::ConfigureRequest r{.capacity_bytes = 128, .valid_rows = 2, .valid_columns = 3,
                                 .data_type = tile::DataType::FP16, .layout = tile::TileLayout::CubeM16,
                                 .location = tile::TileLocation::Matrix, .mask = 0b0001};
  ASSERT_EQ(h.file.configure_cube(0, r), arch::FaultCode::Fault_None);
  for (unsigned row = 0; row < 2; ++row)
    for (unsigned column = 0; column < 3; ++column) h.file.tile(0).write_element(row, column, row * 3 + column + 1);
  ASSERT_TRUE(h.file.tile(0).contents_defined());
  ASSERT_TRUE(h.run({tstore_start(kFP16), datr_pad(25, 3), bdim(0, 3), bdim(1, 2), iot_src_t0(4)}).ok());
  EXPECT_TRUE(h.run({kBstop}).ok());
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  for (unsigned e = 0; e < 6; ++e) EXPECT_EQ(h.m.memory.read(e * 2, 2), e + 1) << e;
  EXPECT_EQ(h.file.tile(0).descriptor().layout, tile::TileLayout::CubeM16);
  EXPECT_TRUE(h.file.tile(0).contents_defined());
  EXPECT_EQ(stored(h, 0, 0, 0), 1U);
  EXPECT_EQ(stored(h, 0, 1, 2), 6U);
  EXPECT_EQ(h.file.tile(0).defined_element_count(), 6U);
}

// PTO-AVS-BLOCK-B-DATR-CUBE-LAYOUTS-002: codes 21..26 are accepted; the load
// codes 21/22/23 place a CUBE_M32 / CUBE_M16 / CUBE_N8 TLOAD destination and
// the store codes 24/25/26 store from a CUBE_M32 / CUBE_M16 / CUBE_N8 source.
// The code round trip is checked through the Layout names.  The negative
// direction assertions (a load code is not a store code and vice versa) have
// no separate architectural observation here and are not expressed.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_DATR_CUBE_LAYOUTS_002) {
  const tile::TileLayout layouts[3] = {tile::TileLayout::CubeM32, tile::TileLayout::CubeM16, tile::TileLayout::CubeN8};
  for (unsigned code = 21; code <= 26; ++code) {
    EXPECT_TRUE(datr_layout_accepted(code)) << code;
    const auto name = as::attribute_value_name(datr_form(), datr_layout_field(), code);
    ASSERT_TRUE(name.has_value());
    EXPECT_EQ(as::attribute_value_code(datr_form(), datr_layout_field(), *name), std::int64_t{code});
  }
  for (unsigned i = 0; i < 3; ++i) {
    BundleTestHost h;  // load 1x1 FP16 on PE0
    ASSERT_TRUE(h.run({tload_start(kFP16), datr(21 + i), bdim(0, 1), bdim(1, 1), iot_dst_t1(1), kBstop}).ok()) << i;
    EXPECT_EQ(h.file.tile(h.destination()).descriptor().layout, layouts[i]) << i;
  }
  for (unsigned i = 0; i < 3; ++i) {
    BundleTestHost h;  // store 1x1 FP16 from PE3
    const tile::ConfigureRequest r{.capacity_bytes = i == 0 ? 1024U : 512U, .valid_rows = 1, .valid_columns = 1,
                                   .data_type = tile::DataType::FP16, .layout = layouts[i],
                                   .location = tile::TileLocation::Matrix, .mask = 0b0001};
    ASSERT_EQ(h.file.configure_cube(0, r), arch::FaultCode::Fault_None) << i;
    h.file.tile(0).write_element(0, 0, 0x3c00);
    h.poke(0, 0);
    ASSERT_TRUE(h.run({tstore_start(kFP16), datr(24 + i), bdim(0, 1), bdim(1, 1), iot_src_t0(4), kBstop}).ok()) << i;
    EXPECT_EQ(h.m.memory.read(0, 2), 0x3c00U) << i;
  }
}

// PTO-AVS-BLOCK-TLOAD-SHARED-001: a Shared TLOAD (B.IOS S31, SizeCode 3,
// PEMode 101 = mask 1100) of 32x2 U32 (LB2 = 32) loads quarter 0 from PE0
// (base 0, stride 128) and quarter 1 from PE1 (base 0x200, stride 160); the
// other quarters stay uninitialised (undefined-register reads).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TLOAD_SHARED_001) {
  BundleTestHost h;
  h.m.state.gpr[0][2] = 0;
  h.m.state.gpr[1][2] = 0x200;
  h.m.state.gpr[0][3] = 128;
  h.m.state.gpr[1][3] = 160;
  h.poke(0, 0x11);
  h.poke(0x2a0, 0x22);
  const std::uint64_t ios = 0x00001013 | (31ULL << 20) | (3ULL << 15) | (5ULL << 9);
  const std::uint64_t ior = 0x00000013 | (2ULL << 15) | (3ULL << 20);
  ASSERT_TRUE(h.run({tload_start(kU32), bdim(0, 32), bdim(1, 2), bdim(2, 32), ios, ior, kBstop}).ok());
  const tile::SharedTile& s = h.file.shared(31);
  EXPECT_TRUE(s.descriptor_valid);
  EXPECT_EQ(s.allocation_mask, 0b1100);
  EXPECT_EQ(s.initialized_mask, 0b1100);
  EXPECT_EQ(tile::read_shared_word(s, 31, 0), 0x11U);
  EXPECT_EQ(tile::read_shared_word(s, 31, 32), 0x22U);
  EXPECT_EQ(tile::read_shared_word(s, 31, 64), tile::undefined_shared_word(31, 64));
  EXPECT_EQ(tile::undefined_shared_word(31, 64), 31U ^ 64U);  // UndefinedSharedTileWord
}

// ---- MGATHER / MGATHER.CAS / MSCATTER / GMOV (tlsu-*.asl) ----

// ConfigureTile(index, capacity, rows, columns, valid_rows, valid_columns,
// type, RowMajor): allocated on every PE, the valid elements in row-major
// order from `values`.
void local_tile(BundleTestHost& h, tile::TileIndex i, tile::DataType t, std::uint32_t columns, std::uint32_t vr,
                std::uint32_t vc, const std::vector<std::uint64_t>& values, std::uint32_t capacity = 128) {
  tile::ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = columns;
  r.valid_rows = vr;
  r.valid_columns = vc;
  r.data_type = t;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(i, r), arch::FaultCode::Fault_None);
  for (std::uint32_t k = 0; k < values.size(); ++k) h.file.tile(i).write_element(k / vc, k % vc, values[k]);
}

// B.DATR {NORM, DataType 0, PadValue Max} as the points encode it.
constexpr std::uint64_t kDatrMaxPad = 0x00001023 | (1ULL << 27);
// B.IOR RegSrc0 = a2.
constexpr std::uint64_t kIorA2 = 0x00000013 | (2ULL << 15);

// PTO-AVS-BLOCK-MGATHER-GATHER-001: two U32 byte displacements {0, 3} from
// PE0's a2 = 0x100 load 0x11 and 0x44 into a U8 destination (LB0 = 2, LB1 and
// LB2 omitted: 1 and LB0), two load events in order, every non-valid physical
// element padded with Max (0xff).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_MGATHER_GATHER_001) {
  BundleTestHost h;
  local_tile(h, 0, tile::DataType::U32, 2, 1, 2, {0, 3});
  h.poke(0x100, 0x11);
  h.poke(0x103, 0x44);
  h.m.state.gpr[0][2] = 0x100;
  const std::uint64_t binding = 0x00005013 | (1ULL << 19) | (1ULL << 15) | (1ULL << 9);  // T#0 ->T<1>, PE0
  ASSERT_TRUE(h.run({tlsu_start(4, kU8), kDatrMaxPad, bdim(0, 2), binding, kIorA2}).ok());
  h.m.start_memory_event_capture(0);
  const auto o = h.run({kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const tile::TileIndex d = h.destination();
  const tile::TileDescriptor& desc = h.file.tile(d).descriptor();
  EXPECT_EQ(desc.valid_rows, 1U);
  EXPECT_EQ(desc.valid_columns, 2U);
  EXPECT_EQ(desc.columns, 2U);
  ASSERT_EQ(h.m.state.memory_event_count, 2);
  EXPECT_EQ(h.m.state.memory_events[0].address, 0x100U);
  EXPECT_EQ(h.m.state.memory_events[1].address, 0x103U);
  EXPECT_EQ(stored(h, d, 0, 0), 0x11U);
  EXPECT_EQ(stored(h, d, 0, 1), 0x44U);
  EXPECT_EQ(stored(h, d, 1, 0), 0xffU);
  EXPECT_EQ(stored(h, d, desc.rows - 1, 1), 0xffU);
}

// BSTART.MGATHER.CAS U8 inputs (indices T#0, expected T#1 via SrcTile1 field
// [31:26] = 1) and output (new values T#2 ->T<1>), both on PE0.
constexpr std::uint64_t kCasInputs = 0x00004013 | (1ULL << 26) | (1ULL << 9);
constexpr std::uint64_t kCasOutput = 0x00005013 | (2ULL << 20) | (1ULL << 19) | (1ULL << 15) | (1ULL << 9);

// PTO-AVS-BLOCK-MGATHER-CAS-EXEC-001: four S16 displacements -8, -5, -3, -1
// from 0x108; lanes 0 and 2 match (10, 30) and write 100 / 102, lanes 1 and 3
// do not; the destination holds every old value and Max padding outside the
// valid region; four atomic events, two of them writing.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_MGATHER_CAS_EXEC_001) {
  BundleTestHost h;
  local_tile(h, 0, tile::DataType::S16, 2, 2, 2, {0xFFF8, 0xFFFB, 0xFFFD, 0xFFFF});
  local_tile(h, 1, tile::DataType::U8, 4, 2, 2, {10, 99, 30, 98});
  local_tile(h, 2, tile::DataType::U8, 4, 2, 2, {100, 101, 102, 103});
  h.poke(0x100, 10);
  h.poke(0x103, 20);
  h.poke(0x105, 30);
  h.poke(0x107, 40);
  h.m.state.gpr[0][2] = 0x108;
  ASSERT_TRUE(h.run({tlsu_start(8, kU8), kDatrMaxPad, bdim(0, 2), bdim(1, 2), kCasInputs, kCasOutput, kIorA2}).ok());
  h.m.start_memory_event_capture(0);
  const auto o = h.run({kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const tile::TileIndex d = h.destination();
  EXPECT_EQ(stored(h, d, 0, 0), 10U);
  EXPECT_EQ(stored(h, d, 0, 1), 20U);
  EXPECT_EQ(stored(h, d, 1, 0), 30U);
  EXPECT_EQ(stored(h, d, 1, 1), 40U);
  EXPECT_EQ(stored(h, d, 2, 0), 0xffU);
  ASSERT_EQ(h.m.state.memory_event_count, 4);
  unsigned writes = 0;
  for (unsigned e = 0; e < 4; ++e) {
    EXPECT_EQ(h.m.state.memory_events[e].kind, arch::MemoryEventKind::Atomic) << e;
    writes += h.m.state.memory_events[e].write_performed ? 1 : 0;
  }
  EXPECT_EQ(writes, 2U);
  EXPECT_EQ(h.byte(0x100), 100U);
  EXPECT_EQ(h.byte(0x103), 20U);
  EXPECT_EQ(h.byte(0x105), 102U);
  EXPECT_EQ(h.byte(0x107), 40U);
}

// PTO-AVS-BLOCK-MGATHER-CAS-DUP-001: two lanes CAS the same byte (expected
// 10, new 20 / 30): exactly one atomic event writes, and memory and the old
// values agree with one of the two lane orders.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_MGATHER_CAS_DUP_001) {
  BundleTestHost h;
  local_tile(h, 0, tile::DataType::U32, 2, 1, 2, {0, 0});
  local_tile(h, 1, tile::DataType::U8, 2, 1, 2, {10, 10});
  local_tile(h, 2, tile::DataType::U8, 2, 1, 2, {20, 30});
  h.poke(0x180, 10);
  h.m.state.gpr[0][2] = 0x180;
  ASSERT_TRUE(h.run({tlsu_start(8, kU8), bdim(0, 2), kCasInputs, kCasOutput, kIorA2}).ok());
  h.m.start_memory_event_capture(0);
  const auto o = h.run({kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const tile::TileIndex d = h.destination();
  const std::uint64_t observed0 = element_at(h, d, 0, 0), observed1 = element_at(h, d, 0, 1);
  ASSERT_EQ(h.m.state.memory_event_count, 2);
  unsigned writes = 0;
  for (unsigned e = 0; e < 2; ++e) {
    EXPECT_EQ(h.m.state.memory_events[e].kind, arch::MemoryEventKind::Atomic) << e;
    writes += h.m.state.memory_events[e].write_performed ? 1 : 0;
  }
  EXPECT_EQ(writes, 1U);
  const unsigned memory = h.byte(0x180);
  EXPECT_TRUE((memory == 20 && observed0 == 10 && observed1 == 20) ||
              (memory == 30 && observed0 == 30 && observed1 == 10))
      << memory << " " << observed0 << " " << observed1;
}

// PTO-AVS-BLOCK-MSCATTER-DUP-001: two U8 lanes (0x31, 0x72) scattered to the
// same byte with B.CATR atomic clear and set: two store events, either
// complete value, both sources still allocated.  The point's
// SetBundleControlAttributeState / SetBundleScalarBinding are an encoded
// B.CATR atom / B.IOR a2 here.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_MSCATTER_DUP_001) {
  for (const bool atomic : {false, true}) {
    BundleTestHost h;
    const arch::Word base = atomic ? 0x1a0 : 0x180;
    local_tile(h, 1, tile::DataType::U8, 2, 1, 2, {0x31, 0x72});
    local_tile(h, 2, tile::DataType::U32, 2, 1, 2, {0, 0});
    h.m.state.gpr[0][2] = base;
    const std::uint64_t binding = 0x00004013 | (2ULL << 26) | (1ULL << 20) | (1ULL << 19) | (1ULL << 9);
    ASSERT_TRUE(h.run({tlsu_start(5, kU8), catr({{"atom", atomic ? 1 : 0}}), bdim(0, 2), binding, kIorA2}).ok());
    h.m.start_memory_event_capture(0);
    const auto o = h.run({kBstop});
    ASSERT_TRUE(o.ok()) << atomic << " " << static_cast<int>(o.fault) << " " << o.message;
    EXPECT_EQ(h.m.state.memory_event_count, 2) << atomic;
    const unsigned observed = h.byte(base);
    EXPECT_TRUE(observed == 0x31 || observed == 0x72) << atomic << " " << observed;
    EXPECT_TRUE(h.file.tile(1).allocated());
    EXPECT_TRUE(h.file.tile(2).allocated());
  }
}

// PTO-AVS-BLOCK-GMOV-PEER-001: a GMOV whose PE3 peer selector (a2) is 4
// rejects the whole collective with Tile legality before allocation (only
// the 4 x 128-byte source is in use); after repairing PE3's a2 to 2 the
// recovered block commits with a destination allocated on all four PEs.
// The point re-calls the commit; here the trap context is recovered and
// BSTOP re-executed.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_GMOV_PEER_001) {
  BundleTestHost h;
  local_tile(h, 0, tile::DataType::U8, 128, 1, 1, {7});
  const std::uint64_t binding = 0x00005013 | (1ULL << 15) | (7ULL << 9) | (1ULL << 19);  // T#0 ->T<1>
  ASSERT_TRUE(h.run({tlsu_start(13, kU8), binding, kIorA2}).ok());
  for (unsigned pe = 0; pe < 4; ++pe) h.m.state.gpr[pe][2] = 2;
  h.m.state.gpr[3][2] = 4;
  const auto rejected = h.run({kBstop});
  EXPECT_EQ(rejected.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), 512U);
  ASSERT_TRUE(h.m.recover_trap_context(0));
  h.m.clear_fault();
  h.m.state.gpr[3][2] = 2;
  const auto completed = h.run({kBstop});
  ASSERT_TRUE(completed.ok()) << static_cast<int>(completed.fault) << " " << completed.message;
  EXPECT_EQ(h.file.allocation_mask(h.destination()), 0b1111);
}

// ND2M16 TLOAD of a 3x1 FP16 column on PE0 with B.IOR (a2 base, a3 stride).
std::vector<std::uint64_t> cube_tload_3x1(unsigned pad = 0) {
  return {tload_start(kFP16), datr_pad(22, pad), bdim(0, 1), bdim(1, 3), iot_dst_t1(1),
          0x00000013 | (2ULL << 15) | (3ULL << 20)};
}

// PTO-AVS-BLOCK-TLOAD-CUBE-ACCESS-003: on the reference 4096-byte memory a
// fault at the first element (base 4096), in the middle (stride
// 0x8000000000000002) or at the last element (base 4092, stride 2) is a
// DataPage fault at the element address with no event, no capacity, and an
// unallocated destination in both the live and the saved bindings.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TLOAD_CUBE_ACCESS_003) {
  const std::array<std::array<arch::Word, 3>, 3> cases{{{4096, 2, 4096},
                                                        {0, 0x8000000000000002ULL, 0x8000000000000002ULL},
                                                        {4092, 2, 4096}}};
  for (const auto& [base, stride, address] : cases) {
    BundleTestHost h(arch::MachineConfig::reference(4096));
    h.gpr[2] = base;
    h.gpr[3] = stride;
    ASSERT_TRUE(h.run(cube_tload_3x1()).ok()) << base;
    h.m.start_memory_event_capture(0);
    const auto o = h.run({kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_DataPage) << base;
    EXPECT_EQ(o.fault_address, address) << base;
    EXPECT_EQ(h.m.state.memory_event_count, 0) << base;
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U) << base;
    EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle) << base;
    EXPECT_TRUE(h.m.state.trap_contexts[0].valid) << base;
    EXPECT_FALSE(h.m.state.trap_contexts[0].block.tile_bindings[0].destination_allocated_by_bundle) << base;
  }
}

// PTO-AVS-BLOCK-TLOAD-CUBE-RETRY-004: an odd base (a2 = 1) faults with
// DataAlignment before any event or allocation; after recovery with a2 = 0
// the same block commits: 128 bytes allocated, three load events (one per
// valid element, RecordLoadEvent in load-store.asl TLOAD), rows 0 and 2 hold
// 1 and 3.  The point re-calls the commit; here BSTOP re-executes at the
// recovered TPC.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TLOAD_CUBE_RETRY_004) {
  BundleTestHost h;
  h.m.memory.write(0, 2, 1);
  h.m.memory.write(2, 2, 2);
  h.m.memory.write(4, 2, 3);
  h.gpr[2] = 1;
  h.gpr[3] = 2;
  ASSERT_TRUE(h.run(cube_tload_3x1(3)).ok());
  h.m.start_memory_event_capture(0);
  const auto first = h.run({kBstop});
  EXPECT_EQ(first.fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  EXPECT_EQ(h.m.state.memory_event_count, 0);
  EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
  EXPECT_TRUE(h.m.state.trap_contexts[0].valid);
  EXPECT_FALSE(h.m.state.trap_contexts[0].block.tile_bindings[0].destination_allocated_by_bundle);
  h.gpr[2] = 0;
  ASSERT_TRUE(h.m.recover_trap_context(0));
  EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
  h.m.clear_fault();
  const auto second = h.run({kBstop});
  ASSERT_TRUE(second.ok()) << static_cast<int>(second.fault) << " " << second.message;
  EXPECT_EQ(h.file.core_capacity_in_use(), 128U);
  EXPECT_EQ(h.m.state.memory_event_count, 3);
  EXPECT_EQ(stored(h, h.destination(), 0, 0), 1U);
  EXPECT_EQ(stored(h, h.destination(), 2, 0), 3U);
}

// A CUBE source T#0 for PE3 (mask 0001) with every valid element set to
// `value(r, c)`; the model's Tile::write_element marks them defined.
template <typename Value>
void cube_source(BundleTestHost& h, std::uint32_t capacity, std::uint32_t rows, std::uint32_t columns,
                 tile::DataType t, tile::TileLayout layout, Value value) {
  const tile::ConfigureRequest r{.capacity_bytes = capacity, .valid_rows = rows, .valid_columns = columns,
                                 .data_type = t, .layout = layout, .location = tile::TileLocation::Matrix,
                                 .mask = 0b0001};
  ASSERT_EQ(h.file.configure_cube(0, r), arch::FaultCode::Fault_None);
  for (std::uint32_t row = 0; row < rows; ++row)
    for (std::uint32_t column = 0; column < columns; ++column) h.file.tile(0).write_element(row, column, value(row, column));
  ASSERT_TRUE(h.file.tile(0).contents_defined());
}

// PTO-AVS-BLOCK-TSTORE-CUBE-ACCESS-003: M162ND TSTORE of a 3x1 FP16 column
// on the reference 4096-byte memory faulting at the first, middle or last
// element: DataPage at the element address, no event, the witness byte
// untouched, the source allocated, defined and unchanged.  B.IOR's a2/a3
// are written on every PE (the binding executes on PE3).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TSTORE_CUBE_ACCESS_003) {
  struct Case {
    arch::Word base, stride, address, witness;
  };
  for (const Case& c : {Case{4096, 2, 4096, 0}, Case{0, 0x8000000000000002ULL, 0x8000000000000002ULL, 0},
                        Case{4092, 2, 4096, 4092}}) {
    BundleTestHost h(arch::MachineConfig::reference(4096));
    cube_source(h, 128, 3, 1, tile::DataType::FP16, tile::TileLayout::CubeM16,
                [](std::uint32_t r, std::uint32_t) { return r + 1; });
    h.poke(c.witness, 0xa5);
    for (unsigned pe = 0; pe < 4; ++pe) {
      h.m.state.gpr[pe][2] = c.base;
      h.m.state.gpr[pe][3] = c.stride;
    }
    ASSERT_TRUE(h.run({tstore_start(kFP16), datr(25), bdim(0, 1), bdim(1, 3), iot_src_t0(4),
                       0x00000013 | (2ULL << 15) | (3ULL << 20)})
                    .ok());
    h.m.start_memory_event_capture(0);
    const auto o = h.run({kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_DataPage) << c.base;
    EXPECT_EQ(o.fault_address, c.address) << c.base;
    EXPECT_EQ(h.m.state.memory_event_count, 0) << c.base;
    EXPECT_EQ(h.byte(c.witness), 0xa5U) << c.base;
    EXPECT_TRUE(h.file.tile(0).allocated());
    EXPECT_TRUE(h.file.tile(0).contents_defined());
    EXPECT_EQ(stored(h, 0, 0, 0), 1U);
    EXPECT_EQ(stored(h, 0, 2, 0), 3U);
  }
}

// PTO-AVS-BLOCK-TSTORE-CUBE-DESCRIPTOR-004: an M162ND TSTORE (LB0 = 3,
// LB1 = 2) whose source has the wrong CUBE layout (M32), data type (FP32),
// valid shape (2x4) or location (Any instead of Matrix) is Tile legality
// before any event, leaving memory and the source as they were.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TSTORE_CUBE_DESCRIPTOR_004) {
  struct Case {
    std::uint32_t capacity, columns;
    tile::DataType type;
    tile::TileLayout layout;
    bool corrupt_location;
  };
  const Case cases[] = {{256, 3, tile::DataType::FP16, tile::TileLayout::CubeM32, false},
                        {256, 3, tile::DataType::FP32, tile::TileLayout::CubeM16, false},
                        {128, 4, tile::DataType::FP16, tile::TileLayout::CubeM16, false},
                        {128, 3, tile::DataType::FP16, tile::TileLayout::CubeM16, true}};
  for (const Case& c : cases) {
    BundleTestHost h;
    cube_source(h, c.capacity, 2, c.columns, c.type, c.layout, [](std::uint32_t, std::uint32_t) { return 1U; });
    if (c.corrupt_location) h.file.tile(0).set_location(tile::TileLocation::Any);  // the point's direct poke
    h.poke(0, 0xa5);
    ASSERT_TRUE(h.run({tstore_start(kFP16), datr(25), bdim(0, 3), bdim(1, 2), iot_src_t0(4)}).ok());
    h.m.start_memory_event_capture(0);
    const auto o = h.run({kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << c.columns << " " << c.corrupt_location;
    EXPECT_EQ(h.m.state.memory_event_count, 0);
    EXPECT_EQ(h.byte(0), 0xa5U);
    EXPECT_TRUE(h.file.tile(0).allocated());
    EXPECT_TRUE(h.file.tile(0).contents_defined());
  }
}

// ---- TMOV with Shared registers (shared-tlsu.asl) ----

// BSTART.TMOV-family start (TLSU Function `function`, U8).
std::uint64_t tmov_start(unsigned function) { return tlsu_start(function, kU8); }
// B.IOS S<id>, SizeCode, PEMode.
constexpr std::uint64_t ios_word(unsigned id, unsigned size, unsigned pe_mode) {
  return 0x00001013 | (std::uint64_t{id} << 20) | (std::uint64_t{size} << 15) | (std::uint64_t{pe_mode} << 9);
}
// B.IOT ->hand<1> (DstTile [8:7]) with PEMode, last.
constexpr std::uint64_t iot_dst_hand(unsigned hand, unsigned pe_mode) {
  return 0x00006013 | (1ULL << 15) | (std::uint64_t{hand} << 7) | (1ULL << 19) | (std::uint64_t{pe_mode} << 9);
}

// PTO-AVS-BLOCK-TMOV-EXTRACT-001: EXTRACT (TLSU Function 12) from an absent
// Shared register S42 into ->U<1> on PE0: the selected quarter receives
// undefined-register values, the destination is not defined and S42 stays
// absent.  The point also pokes payload element 32 of the still unallocated
// U#1 and checks that the unselected quarter keeps it; the model keeps no
// payload for an unallocated register, so that raw retention is not
// expressed (element 32 is checked to stay undefined instead).
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TMOV_EXTRACT_001) {
  BundleTestHost h;
  ASSERT_FALSE(h.file.shared(42).descriptor_valid);
  ASSERT_TRUE(h.run({tmov_start(12), ios_word(42, 0, 1), iot_dst_hand(1, 1)}).ok());
  const auto o = h.run({kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  ASSERT_EQ(h.destination(), 16U);
  EXPECT_TRUE(h.file.tile(16).allocated());
  EXPECT_EQ(h.file.tile(16).read_raw(0), tile::undefined_shared_word(42, 0) & 0xff);
  EXPECT_FALSE(h.file.tile(16).element_defined(32));
  EXPECT_FALSE(h.file.shared(42).descriptor_valid);
  // The point also asserts !contents_defined: TMOVSharedToLocal sets
  // contents_defined = (mask == 1111) (asl/tile/model/memory/shared-movement.asl).
  // ADR 0014 makes the summary derived from the element bits instead; see
  // TmovPartialMaskSummaryFollowsAdr0014 and docs/semantics-notes.md.
}

// ADR 0014: contents_defined is the summary "every valid element is
// defined", never an independent flag.  A PE0-only EXTRACT into a one-element
// destination writes (and so defines) its only valid element, so the
// destination is defined, where shared-movement.asl's mask rule would leave
// it undefined.
TEST(SpecPointsBlockAttributesExecution, TmovPartialMaskSummaryFollowsAdr0014) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tmov_start(12), ios_word(42, 0, 1), iot_dst_hand(1, 1), kBstop}).ok());
  const tile::Tile& d = h.file.tile(16);
  ASSERT_EQ(d.valid_element_count(), 1U);
  EXPECT_TRUE(d.element_defined(0));
  EXPECT_TRUE(d.contents_defined());
}

// PTO-AVS-BLOCK-TMOV-PUBLISH-001: INSERT (Function 9) fills S7 without
// publishing it; BROADCAST (11) of the unpublished register is Tile legality
// without allocating U#1; PUBLISH (10) publishes it; BROADCAST then allocates
// U#1 with the inserted 0x5a and S7 stays published.  Between blocks the
// point calls ResetBundleControlState + ClearFault; block::reset_bundle_control
// and Machine::clear_fault here.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TMOV_PUBLISH_001) {
  BundleTestHost h;
  local_tile(h, 0, tile::DataType::U8, 128, 1, 1, {0x5a});
  const std::uint64_t local_source = 0x00005013 | (7ULL << 9) | (1ULL << 19);  // T#0, all PEs, last
  const auto next_block = [&h] {
    block::reset_bundle_control(h.m.state);
    h.m.clear_fault();
  };
  ASSERT_TRUE(h.run({tmov_start(9), local_source, ios_word(7, 1, 7), kBstop}).ok());
  EXPECT_TRUE(tile::shared_fully_initialized(h.file.shared(7)));
  EXPECT_FALSE(tile::shared_published(h.file.shared(7)));
  EXPECT_EQ(tile::read_shared_word(h.file.shared(7), 7, 0), 0x5aU);

  next_block();
  ASSERT_TRUE(h.run({tmov_start(11), ios_word(7, 0, 7), iot_dst_hand(1, 7)}).ok());
  EXPECT_EQ(h.run({kBstop}).fault, FaultCode::Fault_TileLegality);
  EXPECT_FALSE(h.file.tile(16).allocated());

  next_block();
  ASSERT_TRUE(h.run({tmov_start(10), local_source, ios_word(7, 1, 7), kBstop}).ok());
  EXPECT_TRUE(tile::shared_published(h.file.shared(7)));

  next_block();
  ASSERT_TRUE(h.run({tmov_start(11), ios_word(7, 0, 7), iot_dst_hand(1, 7), kBstop}).ok());
  EXPECT_TRUE(h.file.tile(16).allocated());
  EXPECT_EQ(h.file.tile(16).read_raw(0), 0x5aU);
  EXPECT_TRUE(tile::shared_published(h.file.shared(7)));
}

// PTO-AVS-BLOCK-TESTBUNDLEDATAATTRIBUTES-EXECUTION-001:
// (a) Layout codes 0, 1, 30 are accepted (and supported) by B.DATR, 2 is not;
// (b) B.DATR {NORM, U64, Null, CMode 1, RTZ, Sat, Canonicalize} latches with
//     data type 24, PadValue Null and Canonicalize; RMode RTZ + Sat reach a
//     conversion's numeric control, observed on a TCVT FP32 -> S8 that
//     truncates 2.75 to 2 and saturates 300.0 to 127 (RNE would give 3);
// (c) a second block latches Layout ND2DN with data type 24;
// (d) the reserved DataType encodings 15, 21, 22, 23, 29, 30 reject as
//     Fault_IllegalInstruction with the data type and TPC unchanged.
// The point's direct SetBundleDataAttributeState(15, ...) -> TileLegality
// has no instruction counterpart (the encoding already fails decode, as (d)
// shows) and is not expressed.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TESTBUNDLEDATAATTRIBUTES_EXECUTION_001) {
  for (const unsigned code : {0U, 1U, 30U}) EXPECT_TRUE(datr_layout_accepted(code)) << code;
  EXPECT_FALSE(datr_layout_accepted(2));
  {
    BundleTestHost h;
    const std::uint64_t word = encode_form(kBDatr, {{"DataType", 24}, {"Layout", 0}, {"PadValueOrByteId", 3},
                                                    {"CMode", 1}, {"RMode", 2}, {"Sat", 1}, {"Canonicalize", 1}});
    ASSERT_TRUE(h.run({tload_start(kU32)}).ok());
    EXPECT_TRUE(h.run({word}).ok());
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    EXPECT_EQ(h.state().data_attributes.data_type, 24U);
    EXPECT_EQ(tile::current_pad_value(h.state()), tile::PadValue::Null);
    EXPECT_TRUE(h.state().data_attributes.canonicalize);
  }
  {
    BundleTestHost h;  // TCVT (TEPL mode 0, Function 27) FP32 -> S8 with RTZ + Sat
    // 512 bytes: the same 64 x 2 shape as the 128-byte S8 destination (TCVT keeps the shape).
    local_tile(h, 1, tile::DataType::FP32, 2, 1, 2, {0x40300000, 0x43960000}, 512);  // 2.75, 300.0
    const std::uint64_t word = encode_form(kBDatr, {{"DataType", 19}, {"RMode", 2}, {"Sat", 1}});
    const auto o = h.run({tepl_start(27, kFP32), word, bdim(0, 2), bdim(2, 2),
                          encode_form(kBIotSrcDst, {{"SrcTile0", 1}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), kBstop});
    ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
    EXPECT_EQ(stored(h, h.destination(), 0, 0), 2U);
    EXPECT_EQ(stored(h, h.destination(), 0, 1), 127U);
  }
  {
    BundleTestHost h;
    ASSERT_TRUE(h.run({tload_start(kU32), datr(1, 24)}).ok());
    EXPECT_EQ(h.state().data_attributes.data_type, 24U);
    EXPECT_EQ(h.state().data_attributes.data_layout, 1U);
  }
  for (const unsigned reserved : {15U, 21U, 22U, 23U, 29U, 30U}) {
    BundleTestHost h;
    h.m.state.pc = 0x180;
    const unsigned before = h.state().data_attributes.data_type;
    const auto o = h.run({0x00001023 | (std::uint64_t{reserved} << 20)});
    EXPECT_EQ(o.fault, FaultCode::Fault_IllegalInstruction) << reserved;
    EXPECT_EQ(h.state().data_attributes.data_type, before) << reserved;
    EXPECT_EQ(h.m.state.pc, 0x180U) << reserved;
  }
}

// PTO-AVS-BLOCK-TGEMV-CUBE-002: TGEMV (CUBE Function 16) with K = 9, N = 10
// on FP16 CUBE_M16 A (1x9) and CUBE_N8 B (9x10) whose payload words are all
// raw 1, in the reference numeric profile the point runs in: the FP32
// destination is CUBE_M16, 1x10, and its first and last results are 9.
// SetBundleFixedPointAttributeState(0...) is an encoded B.FPATR, B.DIM
// replaces SetBundleDimension, AddBundleTileBinding is B.IOT A, B ->T<4>.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_TGEMV_CUBE_002) {
  BundleTestHost h;
  block::tile_state(h.m).profile = tile::NumericProfile::Reference;
  cube_tile(h, 1, 384, 1, 9, tile::DataType::FP16, tile::TileLayout::CubeM16);
  cube_tile(h, 2, 512, 9, 10, tile::DataType::FP16, tile::TileLayout::CubeN8);
  for (unsigned c = 0; c < 9; ++c) h.file.tile(1).write_element(0, c, 1);
  for (unsigned r = 0; r < 9; ++r)
    for (unsigned c = 0; c < 10; ++c) h.file.tile(2).write_element(r, c, 1);
  const std::uint64_t start = 0x01031181 | (std::uint64_t{kFP16} << 27);
  const std::uint64_t binding = encode_form(
      kBIotSrcSrcDst, {{"SrcTile0", 1}, {"SrcTile1", 2}, {"SizeCode", 4}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}});
  const auto o = h.run({start, kFpatrNone, bdim(1, 10), bdim(2, 9), binding, kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  const tile::TileIndex d = h.destination();
  const tile::TileDescriptor& dd = h.file.tile(d).descriptor();
  EXPECT_EQ(dd.layout, tile::TileLayout::CubeM16);
  EXPECT_EQ(dd.valid_rows, 1U);
  EXPECT_EQ(dd.valid_columns, 10U);
  EXPECT_EQ(stored(h, d, 0, 0), 9U);
  EXPECT_EQ(stored(h, d, 0, 9), 9U);
}

// ---- B.FPATR mode table (PTO-AVS-BLOCK-B-FPATR-MODE-TABLE-BOUNDARY-001) ----

// B.FPATR {PreQuantMode, ReluMode, GroupNCode, RowMaxEn, GroupMaxEn, RowMaxInit, MaxAbsEn}.
std::uint64_t fpatr_word(unsigned pre, unsigned relu, unsigned group_n, bool row_max, bool group_max, bool row_init,
                         bool max_abs) {
  return kFpatrNone | (std::uint64_t{pre} << 26) | (std::uint64_t{relu} << 23) | (std::uint64_t{group_n} << 19) |
         (std::uint64_t{row_max} << 18) | (std::uint64_t{group_max} << 17) | (std::uint64_t{row_init} << 16) |
         (std::uint64_t{max_abs} << 15);
}

// BundleFPATRFieldsLegal through tile::fpatr::fields_legal and through the
// B.FPATR command (accepted, or rejected without a descriptor).
bool fpatr_fields_legal(unsigned pre, unsigned relu, unsigned group_n, bool row_max, bool group_max, bool row_init,
                        bool max_abs) {
  arch::BundleFixedPointAttributes a;
  a.pre_quant_mode = static_cast<std::uint8_t>(pre);
  a.relu_mode = static_cast<std::uint8_t>(relu);
  a.group_n_code = static_cast<std::uint8_t>(group_n);
  a.row_max_en = row_max;
  a.group_max_en = group_max;
  a.row_max_init = row_init;
  a.max_abs_en = max_abs;
  BundleTestHost h;
  open_matrix_block(h);
  const bool accepted = h.run({fpatr_word(pre, relu, group_n, row_max, group_max, row_init, max_abs)}).ok();
  EXPECT_EQ(accepted, h.state().fixed_point_attributes.valid);
  EXPECT_EQ(accepted, tile::fpatr::fields_legal(a));
  return accepted;
}

// A 1x1x1 FP16 TMATMUL with B.FPATR {pre} and B.DATR {DataType FP16 (the
// right operand type), RMode, Sat}: true when it commits.  Used for
// BundleFPATRDATRFieldsLegal, which the matrix commit checks
// (asl/block/model/dispatch/tile-schema.asl).
bool matmul_with_rounding(unsigned pre, unsigned rmode, bool sat) {
  BundleTestHost h;
  block::tile_state(h.m).profile = tile::NumericProfile::Reference;
  cube_tile(h, 32, 128, 1, 1, tile::DataType::FP16, tile::TileLayout::CubeM16);
  cube_tile(h, 33, 128, 1, 1, tile::DataType::FP16, tile::TileLayout::CubeN8);
  h.file.tile(32).write_element(0, 0, 0x3c00);
  h.file.tile(33).write_element(0, 0, 0x3c00);
  const std::uint64_t datr_word = encode_form(kBDatr, {{"DataType", kFP16}, {"RMode", rmode}, {"Sat", sat}});
  const std::uint64_t binding = encode_form(
      kBIotSrcSrcDst, {{"SrcTile0", 32}, {"SrcTile1", 33}, {"SizeCode", 3}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}});
  const auto o = h.run({kMatrixStart, fpatr_word(pre, 0, 0, false, false, false, false), datr_word, bdim(0, 1),
                        bdim(1, 1), bdim(2, 1), binding, kBstop});
  if (!o.ok()) {
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << pre << " " << rmode << " " << sat;
  }
  return o.ok();
}

TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_B_FPATR_MODE_TABLE_BOUNDARY_001) {
  // BundleFPATRPreQuantModeLegal / ReluModeLegal: B.FPATR acceptance.
  for (unsigned m = 0; m < 64; ++m) EXPECT_EQ(fpatr_mode_accepted(m), asl_prequant_legal(m)) << m;
  EXPECT_FALSE(fpatr_mode_accepted(14));
  EXPECT_TRUE(fpatr_fields_legal(0, 3, 0, false, false, false, false));
  EXPECT_FALSE(fpatr_fields_legal(0, 4, 0, false, false, false, false));
  // BundleFPATRGroupN.
  const unsigned group_n[10] = {0, 8, 16, 32, 48, 64, 80, 96, 112, 128};
  for (unsigned code = 0; code < 10; ++code) EXPECT_EQ(tile::fpatr::group_n(code), group_n[code]) << code;
  // BundleFPATRFieldsLegal(pre, relu, group_n, row_max, group_max, row_init, max_abs).
  EXPECT_FALSE(fpatr_fields_legal(0, 0, 1, false, false, false, false));
  EXPECT_FALSE(fpatr_fields_legal(0, 0, 0, false, false, true, false));
  EXPECT_FALSE(fpatr_fields_legal(0, 0, 0, false, false, false, true));
  EXPECT_TRUE(fpatr_fields_legal(0, 0, 0, true, false, false, true));
  EXPECT_TRUE(fpatr_fields_legal(0, 0, 0, false, false, false, false));
  EXPECT_TRUE(fpatr_fields_legal(0, 0, 1, false, true, false, true));
  EXPECT_TRUE(fpatr_fields_legal(0, 0, 1, true, true, false, true));
  EXPECT_FALSE(fpatr_fields_legal(0, 0, 0, false, true, false, false));
  EXPECT_FALSE(fpatr_fields_legal(0, 0, 1, false, false, true, false));
  // The B.DATR fields the point pairs with modes 0 and 1 commit; its
  // BundleFPATRDATRFieldsLegal rejections have no architectural caller (see
  // the comment after this test).  The shift / scalar modes 12, 13, 3 need
  // S32 operands and parameter bindings and are not expressed.
  EXPECT_TRUE(matmul_with_rounding(0, 0, false));
  EXPECT_TRUE(matmul_with_rounding(1, 0, false));
  // BundleFPATROutputType.
  using tile::DataType;
  const std::pair<unsigned, DataType> outputs[] = {
      {0, DataType::FP32},  {1, DataType::FP16},  {2, DataType::S8},    {3, DataType::S8},    {4, DataType::FP16},
      {5, DataType::FP16},  {12, DataType::S16},  {13, DataType::S16},  {16, DataType::BF16}, {17, DataType::S4X2},
      {18, DataType::S4X2}, {19, DataType::S16},  {20, DataType::S16},  {23, DataType::S8},   {24, DataType::S8},
      {25, DataType::HiF8}, {26, DataType::E4M3}, {27, DataType::FP32}, {28, DataType::HiF8}, {32, DataType::FP16},
      {33, DataType::FP16}, {34, DataType::BF16}, {35, DataType::BF16}, {36, DataType::BF16}, {37, DataType::E4M3},
      {38, DataType::FP32}, {39, DataType::BF16}};
  for (const auto& [mode, type] : outputs) EXPECT_EQ(tile::fpatr::output_type(mode), type) << mode;
  // Parameter routing (BundleFPATRModeUses{Vector,Scalar}Parameter, ReluModeUses*).
  for (const unsigned m : {2U, 4U, 12U, 18U, 20U, 23U, 28U, 33U, 36U, 37U, 38U, 39U})
    EXPECT_TRUE(tile::fpatr::mode_uses_vector_parameter(m)) << m;
  for (const unsigned m : {3U, 5U, 13U, 17U, 19U, 24U, 25U, 26U, 27U, 32U, 34U, 35U})
    EXPECT_TRUE(tile::fpatr::mode_uses_scalar_parameter(m)) << m;
  EXPECT_FALSE(tile::fpatr::mode_uses_vector_parameter(0));
  EXPECT_FALSE(tile::fpatr::mode_uses_scalar_parameter(0));
  EXPECT_FALSE(tile::fpatr::mode_uses_scalar_parameter(1));
  EXPECT_FALSE(tile::fpatr::mode_uses_vector_parameter(16));
  EXPECT_FALSE(tile::fpatr::mode_uses_scalar_parameter(16));
  EXPECT_TRUE(tile::fpatr::relu_uses_scalar_parameter(2));
  EXPECT_TRUE(tile::fpatr::relu_uses_vector_parameter(3));
  EXPECT_FALSE(tile::fpatr::relu_uses_scalar_parameter(0));
  EXPECT_FALSE(tile::fpatr::relu_uses_vector_parameter(1));
  // BundleGroupMaxColumns (GroupMax destination width) is not expressed: it
  // needs a RowMax/GroupMax multi-destination TMATMUL (see the report).
}

// The point's BundleFPATRDATRFieldsLegal assertions have no architectural
// counterpart: its only caller is the TileMatrix branch of
// SelectedBundleTileDataAttributesLegal (tile-schema.asl), which no bundle
// reaches -- a Matrix bundle takes the dedicated CUBE path, whose B.DATR check
// is BundleTMATMULDataAttributesLegal (cube-tmatmul.asl), and any other
// TileMatrix block fails DecodeTileOperation first (docs/semantics-notes.md).

// PTO-AVS-BLOCK-MSCATTER-STAGE2-WIDTH-001: one-lane MSCATTER on PE0 (source
// T#1, index T#2, base a3 = 0x100, LB0..LB2 = 1) on the bounded reference
// memory: a U64 index stores the full 8-byte value with one 8-byte event; an
// index with upper-half bits faults with DataPage at the full-width address
// 0x100000100 (no truncation, no event, target unchanged); an S16 index
// works at its own width; a raw invalid TF32 carrier is stored unchanged.
TEST(SpecPointsBlockAttributesExecution, PTO_AVS_BLOCK_MSCATTER_STAGE2_WIDTH_001) {
  constexpr arch::Word target = 0x100;
  constexpr std::uint64_t source_value = 0x1122334455667788ULL;
  const std::uint64_t binding = 0x00004013 | (2ULL << 26) | (1ULL << 20) | (1ULL << 19) | (1ULL << 9);
  const std::uint64_t ior = 0x00000013 | (3ULL << 15);
  const auto prepare = [&](BundleTestHost& h, tile::DataType source, tile::DataType index, std::uint64_t index_value,
                           unsigned dt, std::uint64_t value) {
    local_tile(h, 1, source, 1, 1, 1, {value});
    local_tile(h, 2, index, 1, 1, 1, {index_value});
    h.m.state.gpr[0][3] = target;
    ASSERT_TRUE(h.run({tlsu_start(5, dt), bdim(0, 1), bdim(1, 1), bdim(2, 1), binding, ior}).ok());
  };
  {
    BundleTestHost h(arch::MachineConfig::reference());
    prepare(h, tile::DataType::U64, tile::DataType::U64, 0, 24, source_value);
    h.m.memory.write(target, 8, 0xdeadbeefdeadbeefULL);
    h.m.start_memory_event_capture(0);
    ASSERT_TRUE(h.run({kBstop}).ok());
    EXPECT_EQ(h.m.memory.read(target, 8), source_value);
    ASSERT_GT(h.m.state.memory_event_count, 0);
    EXPECT_EQ(h.m.state.memory_events[0].address, target);
    EXPECT_EQ(h.m.state.memory_events[0].size_bytes, 8U);
    EXPECT_EQ(element_at(h, 1, 0, 0), source_value);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    prepare(h, tile::DataType::U64, tile::DataType::U64, 0x0000000100000000ULL, 24, source_value);
    h.m.memory.write(target, 8, 0xdeadbeefdeadbeefULL);
    h.m.start_memory_event_capture(0);
    const auto o = h.run({kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
    EXPECT_EQ(o.fault_address, 0x0000000100000100ULL);
    EXPECT_EQ(h.m.state.memory_event_count, 0);
    EXPECT_EQ(h.m.memory.read(target, 8), 0xdeadbeefdeadbeefULL);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    prepare(h, tile::DataType::U64, tile::DataType::S16, 0, 24, source_value);
    h.m.memory.write(target, 8, 0xdeadbeefdeadbeefULL);
    h.m.start_memory_event_capture(0);
    ASSERT_TRUE(h.run({kBstop}).ok());
    EXPECT_EQ(h.m.state.memory_event_count, 1);
    EXPECT_EQ(h.m.memory.read(target, 8), source_value);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    prepare(h, tile::DataType::TF32, tile::DataType::U32, 0, 2, 0x3f800001);
    h.m.memory.write(target, 4, 0);
    ASSERT_TRUE(h.run({kBstop}).ok());
    EXPECT_EQ(h.m.memory.read(target, 4), 0x3f800001U);
  }
}

}  // namespace
}  // namespace pto::test
