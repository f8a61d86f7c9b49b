// Spec test points that the automatic extractor skipped, translated by hand:
//
// (1) the *-ALIAS-001 points and TESTTILEELEMENTWISEANDALIASING-EXECUTION-001
//     call a semantic handler with the destination equal to a source.  A
//     bundle always renames a fresh destination, but the kernels take any
//     TileOperands, so the rule "sources are snapshotted before the first
//     destination write" (asl/tile/model/execution/{elementwise,unary}.asl)
//     is checked by driving the kernel with destination == source.
// (2) the TFMA points that poke model-internal records or use ASL tuples:
//     each is checked through its kernel-level counterpart (TileKernel
//     schema_legal / operands_legal / execute, reference profile) and, where
//     the point is about the bundle schema or the PE_MASK no-op, through an
//     encoded BSTART.VEC TFMA block run on the machine.
//
// Expected values are the points' own assertions or hand derivations from
// asl/tile/model/execution/fused-multiply-add.asl and
// asl/arch/profile/reference-profile.asl, noted per test.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "bundle_test_host.hpp"
#include "numerics/format.hpp"
#include "ops_harness.hpp"

namespace pto::test {
namespace {

using isa::TileOp;
using tile::DataType;
using tile::TileIndex;
using tile::test::OpsHarness;

constexpr unsigned kU64Code = 24;  // TileDataType_U64 encoding (BSTART DataType)
constexpr std::uint64_t kFp32One = 0x3f800000;
constexpr std::uint64_t kFp32PosInf = 0x7f800000;
constexpr std::uint64_t kFp32NegInf = 0xff800000;
constexpr std::uint64_t kFp32SNaN = 0x7f800001;
constexpr num::Flags kFlagNV = 1;  // Zeros{5} + 1: NV is bit 0 of the five sticky flags

// ------------------------------------------------------- aliasing: binary

// PTO-AVS-TILE-TMUL-ALIAS-001 (TMUL.asl, elementwise.asl ExecuteTileBinary):
// ConfigureTile(0/1, 128, 4, 4, 1, 2, U64); destination aliases the left source.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TMUL_ALIAS_001) {
  OpsHarness h;
  h.configure(0, DataType::U64, 4, 1, 2, 128);
  h.configure(1, DataType::U64, 4, 1, 2, 128);
  h.set(0, 0, 0, 3);
  h.set(0, 0, 1, 5);
  h.set(1, 0, 0, 7);
  h.set(1, 0, 1, 11);
  const auto o = OpsHarness::operands(0, {0, 1});
  EXPECT_TRUE(h.legal(TileOp::TMUL, o));  // InstructionContractOperandsLegal_TMUL(0, 0, 1)
  ASSERT_TRUE(h.run(TileOp::TMUL, o));
  EXPECT_EQ(h.word(0, 0, 0), 21U);
  EXPECT_EQ(h.word(0, 0, 1), 55U);
}

// PTO-AVS-TILE-TESTTILEELEMENTWISEANDALIASING-EXECUTION-001
// (tests/asl/tile/model/execution/elementwise/tile-exec-and-aliasing-001.asl):
// four 2x2 U64 tiles of 256 bytes; ADD into a fresh tile, ADD aliasing the
// left source, integer DIV, TEXPANDS (ExecuteTileFillScalar) and TFMA.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TESTTILEELEMENTWISEANDALIASING_EXECUTION_001) {
  OpsHarness h;
  for (TileIndex i = 0; i < 3; ++i) h.configure(i, DataType::U64, 2, 2, 2, 256);
  h.fill(0, {1, 2, 3, 4});
  h.fill(1, {10, 20, 30, 40});

  ASSERT_TRUE(h.run(TileOp::TADD, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.word(2, 0, 0), 11U);
  EXPECT_EQ(h.word(2, 1, 1), 44U);

  // Destination aliases source_left: both sources are snapshotted first.
  ASSERT_TRUE(h.run(TileOp::TADD, OpsHarness::operands(0, {0, 1})));
  EXPECT_EQ(h.word(0, 0, 1), 22U);
  EXPECT_EQ(h.word(0, 1, 1), 44U);

  ASSERT_TRUE(h.run(TileOp::TDIV, OpsHarness::operands(2, {1, 0})));  // 10 / 11, 20 / 22
  EXPECT_EQ(h.word(2, 0, 0), 0U);
  EXPECT_EQ(h.word(2, 0, 1), 0U);
  ASSERT_TRUE(h.run(TileOp::TEXPANDS, OpsHarness::operands(2, {}, 3)));
  h.configure(3, DataType::U64, 2, 2, 2, 256);
  ASSERT_TRUE(h.run(TileOp::TEXPANDS, OpsHarness::operands(3, {}, 5)));
  ASSERT_TRUE(h.run(TileOp::TFMA, OpsHarness::operands(2, {0, 1, 3})));
  EXPECT_EQ(h.word(2, 0, 0), 115U);   // 11 * 10 + 5
  EXPECT_EQ(h.word(2, 1, 1), 1765U);  // 44 * 40 + 5
}

// -------------------------------------------------------- aliasing: unary

// One 1x1 tile 0 holding `value`; the unary op runs in place (destination 0,
// source 0).  `check_legal`: the point asserts InstructionContractOperandsLegal.
std::uint64_t unary_in_place(TileOp op, DataType t, std::uint64_t value, bool check_legal) {
  OpsHarness h;
  h.configure(0, t, 1, 1, 1, 128);
  h.set(0, 0, 0, value);
  const auto o = OpsHarness::operands(0, {0});
  if (check_legal) {
    EXPECT_TRUE(h.legal(op, o));
  }
  EXPECT_TRUE(h.run(op, o));
  return h.word(0, 0, 0);  // ReadTileElement (signed types sign-extend)
}

// PTO-AVS-TILE-TABS-ALIAS-001 (TABS.asl, unary.asl ExecuteTileUnary): S8 -1 -> 1.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TABS_ALIAS_001) {
  EXPECT_EQ(unary_in_place(TileOp::TABS, DataType::S8, 0xff, true), 1U);
}
// PTO-AVS-TILE-TNEG-ALIAS-001: U8 1 -> 0xff (modulo the element width).
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TNEG_ALIAS_001) {
  EXPECT_EQ(unary_in_place(TileOp::TNEG, DataType::U8, 1, true), 0xffU);
}
// PTO-AVS-TILE-TNOT-ALIAS-001: U8 0x0f -> 0xf0.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TNOT_ALIAS_001) {
  EXPECT_EQ(unary_in_place(TileOp::TNOT, DataType::U8, 0x0f, true), 0xf0U);
}
// PTO-AVS-TILE-TRELU-ALIAS-001: S8 -1 -> 0.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TRELU_ALIAS_001) {
  EXPECT_EQ(unary_in_place(TileOp::TRELU, DataType::S8, 0xff, true), 0U);
}
// PTO-AVS-TILE-TEXP-ALIAS-001 (TEXP.asl): in-place FP32 -0 -> +1.0
// (TileSFUUnarySpecialValue, computed from the old payload).
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TEXP_ALIAS_001) {
  EXPECT_EQ(unary_in_place(TileOp::TEXP, DataType::FP32, 0x80000000, false), kFp32One);
}
// PTO-AVS-TILE-TSQRT-ALIAS-001 (TSQRT.asl): in-place FP32 -0 keeps -0.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TSQRT_ALIAS_001) {
  EXPECT_EQ(unary_in_place(TileOp::TSQRT, DataType::FP32, 0x80000000, false), 0x80000000U);
}

// ------------------------------------------------------------- TFMA values

// Tiles 1, 2, 3 (left, right, addend) of one element each and destination 0,
// all `t`, 1x1 row-major in 128 bytes (the points' ConfigureTile(i, 128, 1,
// 1, 1, 1, t, RowMajor, Any)).
struct Fma : OpsHarness {
  explicit Fma(DataType t) {
    for (TileIndex i = 0; i < 4; ++i) configure(i, t, 1, 1, 1, 128);
  }
  Fma(DataType t, std::uint64_t left, std::uint64_t right, std::uint64_t addend) : Fma(t) {
    set(1, 0, 0, left);
    set(2, 0, 0, right);
    set(3, 0, 0, addend);
  }
  static tile::TileOperands tuple() { return operands(0, {1, 2, 3}); }
  bool execute() { return run(TileOp::TFMA, tuple()); }
};

// PTO-AVS-TILE-TFMA-OPERANDS-001 (TileOperandsLegal_TFMA, indexed-layout.asl):
// a complete matching U64 tuple is legal; the addend's layout changed to
// ColumnMajor (the point assigns _Tiles[[3]].layout) is rejected.  Here tile
// 3 is reconfigured ColumnMajor with the same capacity, columns and valid
// shape and rewritten, so layout is the only difference.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TFMA_OPERANDS_001) {
  Fma h(DataType::U64, 2, 3, 4);
  EXPECT_TRUE(h.legal(TileOp::TFMA, Fma::tuple()));

  h.configure(3, DataType::U64, 1, 1, 1, 128, tile::TileLayout::ColumnMajor);
  h.set(3, 0, 0, 4);
  ASSERT_TRUE(h.tiles.tile(3).contents_defined());
  EXPECT_FALSE(h.legal(TileOp::TFMA, Fma::tuple()));
}

// PTO-AVS-TILE-TFMA-WIDTH-001 (TileFixedFusedMultiplyAddValue, integer
// branch): the value is left * right + addend modulo the element width, no
// flags.  S8 0xff * 2 + 3 = 513 -> 1; U8 0x80 * 2 + 1 = 257 -> 1.  The point
// calls the value function; here it is the one element of a TFMA.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TFMA_WIDTH_001) {
  {
    Fma h(DataType::S8, 0xff, 2, 3);
    ASSERT_TRUE(h.execute());
    EXPECT_EQ(h.raw(0, 0, 0), 1U);
    EXPECT_EQ(h.word(0, 0, 0), 1U);
    EXPECT_EQ(h.last_flags, 0U);
  }
  {
    Fma h(DataType::U8, 0x80, 2, 1);
    ASSERT_TRUE(h.execute());
    EXPECT_EQ(h.raw(0, 0, 0), 1U);
    EXPECT_EQ(h.word(0, 0, 0), 1U);
    EXPECT_EQ(h.last_flags, 0U);
  }
}

// PTO-AVS-TILE-TFMA-INVALID-001: a signalling NaN, zero times infinity and an
// infinite product plus the opposite infinity each give a quiet NaN with
// exactly NV (TileFixedFusedMultiplyAddValue -> TileProfileFusedInvalidResult).
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TFMA_INVALID_001) {
  struct Case {
    std::uint64_t left, right, addend;
  };
  for (const Case& c : {Case{kFp32SNaN, kFp32One, 0}, Case{0, kFp32PosInf, 0}, Case{kFp32PosInf, kFp32One, kFp32NegInf}}) {
    SCOPED_TRACE(::testing::Message() << std::hex << c.left << " * " << c.right << " + " << c.addend);
    Fma h(DataType::FP32, c.left, c.right, c.addend);
    ASSERT_TRUE(h.execute());
    EXPECT_EQ(num::classify(DataType::FP32, h.raw(0, 0, 0)), num::ValueClass::QuietNaN);
    EXPECT_EQ(h.last_flags, kFlagNV);
  }
}

// PTO-AVS-TILE-TFMA-PROFILE-INVALID-001: the reference profile's
// TileProfileFusedInvalidResult (reference-profile.asl) returns a quiet NaN
// (HardwareNumericCanonicalNaNResult) and NV; the point fixes no payload.
// The hook is reachable only through TFMA's invalid cases: checked on the
// kernel (result and flags) and on the machine in the reference profile,
// where the NV flag is recorded in CORE_STATE[36:32] (ScalarFPRecordFlags).
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TFMA_PROFILE_INVALID_001) {
  {
    Fma h(DataType::FP32, kFp32SNaN, kFp32One, 0);
    ASSERT_TRUE(h.run(TileOp::TFMA, Fma::tuple(), tile::NumericProfile::Reference));
    EXPECT_EQ(num::classify(DataType::FP32, h.raw(0, 0, 0)), num::ValueClass::QuietNaN);
    EXPECT_EQ(h.last_flags, kFlagNV);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference(4096));
    const std::pair<TileIndex, std::uint64_t> sources[] = {{1, kFp32SNaN}, {2, kFp32One}, {3, 0}};
    for (const auto& [i, v] : sources) {
      tile::ConfigureRequest r;
      r.capacity_bytes = 128;
      r.columns = 1;
      r.valid_rows = r.valid_columns = 1;
      r.data_type = DataType::FP32;
      r.mask = 0b1111;
      ASSERT_EQ(h.file.configure(i, r), arch::FaultCode::Fault_None);
      h.file.tile(i).write_element(0, 0, v);
    }
    const std::vector<std::uint64_t> words{
        tepl_start(28, kFP32), bdim(0, 1),
        encode_form(kBIotSrcSrc, {{"SrcTile0", 1}, {"SrcTile1", 2}, {"PEMode", 7}}),
        encode_form(kBIotSrcDst, {{"SrcTile0", 3}, {"DstTile", 0}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), kBstop};
    const BundleOutcome o = h.run(words);
    ASSERT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(num::classify(DataType::FP32, element_at(h, h.destination(), 0, 0)), num::ValueClass::QuietNaN);
    EXPECT_EQ((h.m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F, kFlagNV);
  }
}

// ---------------------------------------------------- TFMA bundle schema

// An encoded TFMA U64 block on the machine: BSTART.VEC TFMA (0xc1c19181, the
// points' ExecuteCommandInstruction word), optional B.DIM LB0=1, optional
// B.IOR x0, x0, x0 -> x0, B.IOT T1, T2 (PE_MASK from PEMode) and B.IOT T3
// ->Dst<SizeCode 1>, L; then BSTOP.  Sources T1..T3 = 2, 3, 4 when configured.
struct TfmaBlock : BundleTestHost {
  void configure_sources() {
    const std::pair<TileIndex, std::uint64_t> sources[] = {{1, 2}, {2, 3}, {3, 4}};
    for (const auto& [i, v] : sources) {
      tile::ConfigureRequest r;
      r.capacity_bytes = 128;
      r.columns = 1;
      r.valid_rows = r.valid_columns = 1;
      r.data_type = DataType::U64;
      r.mask = 0b1111;
      ASSERT_EQ(file.configure(i, r), arch::FaultCode::Fault_None);
      file.tile(i).write_element(0, 0, v);
    }
  }
  BundleOutcome run_block(bool lb0, bool scalar_binding, unsigned pe_mode = 7) {
    const std::uint64_t start = tepl_start(28, kU64Code);
    EXPECT_EQ(start, 0xc1c19181U);
    std::vector<std::uint64_t> w{start};
    if (lb0) w.push_back(bdim(0, 1));
    if (scalar_binding) w.push_back(bior(0, 0));
    w.push_back(encode_form(kBIotSrcSrc, {{"SrcTile0", 1}, {"SrcTile1", 2}, {"PEMode", pe_mode}}));
    w.push_back(encode_form(kBIotSrcDst,
                            {{"SrcTile0", 3}, {"DstTile", 0}, {"SizeCode", 1}, {"PEMode", pe_mode}, {"L", 1}}));
    w.push_back(kBstop);
    return run(w);
  }
  bool any_unconfigured_tile_allocated() const {
    for (unsigned t = 0; t < tile::kTileRegisterCount; ++t)
      if (t != 1 && t != 2 && t != 3 && file.tile(static_cast<TileIndex>(t)).allocated()) return true;
    return false;
  }
  std::uint64_t fp_flags() const { return (m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F; }
};

// The ASL points' pending-block state for SelectedBundleClosedTFMASchemaLegal:
// a TileElement operation with DataType 24 (U64) and the two bindings
// AddBundleTileBinding(FALSE, 0, 0, '1111', TRUE, TRUE, 1, 2, FALSE) and
// AddBundleTileBinding(TRUE, 0, 1, '1111', TRUE, FALSE, 3, 0, TRUE).
arch::BlockState tfma_pending_block() {
  arch::BlockState b;
  b.operation.valid = true;
  b.operation.operation_class = arch::BundleOperationClass::TileElement;
  b.operation.data_type_valid = true;
  b.operation.data_type = kU64Code;
  arch::BundleTileBinding& m = b.tile_bindings[0];
  m.valid = true;
  m.pe_mask = 0b1111;
  m.source0_valid = m.source1_valid = true;
  m.source0 = 1;
  m.source1 = 2;
  arch::BundleTileBinding& r = b.tile_bindings[1];
  r.valid = true;
  r.destination_valid = true;
  r.destination = 0;
  r.destination_size = 1;
  r.pe_mask = 0b1111;
  r.source0_valid = true;
  r.source0 = 3;
  r.last = true;
  return b;
}

bool tfma_schema_legal(const arch::BlockState& b) {
  const tile::TileKernel* k = tile::tile_kernel_table().get(TileOp::TFMA);
  EXPECT_NE(k, nullptr);
  if (k == nullptr || k->schema_legal == nullptr) {
    ADD_FAILURE() << "TFMA has no closed schema";
    return true;
  }
  const tile::TileFile tiles;
  return k->schema_legal(tile::SchemaView{b, tiles, 0, false});
}

// PTO-AVS-TILE-TFMA-LB0-001 (SelectedBundleClosedTFMASchemaLegal,
// tile-schema.asl): the otherwise complete binding tuple rejects without an
// explicit LB0.  Kernel schema on the point's state; then the encoded block:
// without B.DIM LB0 it faults Fault_TileLegality with no allocation, with
// LB0=1 it commits 2 * 3 + 4.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TFMA_LB0_001) {
  arch::BlockState b = tfma_pending_block();
  EXPECT_FALSE(tfma_schema_legal(b));
  b.dimensions[0] = 1;
  b.dimension_present[0] = true;
  EXPECT_TRUE(tfma_schema_legal(b));  // the same tuple with LB0 is accepted

  {
    TfmaBlock h;
    h.configure_sources();
    const std::uint64_t in_use = h.file.core_capacity_in_use();
    const BundleOutcome o = h.run_block(false, false);
    EXPECT_EQ(o.status, BundleStatus::Fault);
    EXPECT_EQ(o.fault, arch::FaultCode::Fault_TileLegality);
    EXPECT_TRUE(o.trace.destinations.empty());
    EXPECT_EQ(h.file.core_capacity_in_use(), in_use);
    EXPECT_FALSE(h.any_unconfigured_tile_allocated());
  }
  {
    TfmaBlock h;
    h.configure_sources();
    const BundleOutcome o = h.run_block(true, false);
    ASSERT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(element_at(h, h.destination(), 0, 0), 10U);
  }
}

// PTO-AVS-TILE-TFMA-SCHEMA-001: exactly two ordered Local B.IOT bindings and
// no scalar binding.  The accepted tuple (with LB0=1) passes; an added B.IOR
// rejects.  On the machine the B.IOR is x0, x0, x0 -> x0, which
// BundleOperationScalarBindingSchemaLegal accepts for TFMA (no GPR inputs),
// so it is the TFMA schema that faults Fault_TileLegality, before any
// allocation; the sources persist.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TFMA_SCHEMA_001) {
  arch::BlockState b = tfma_pending_block();
  b.dimensions[0] = 1;
  b.dimension_present[0] = true;
  EXPECT_TRUE(tfma_schema_legal(b));
  b.scalar_bindings[0].valid = true;
  EXPECT_FALSE(tfma_schema_legal(b));

  {
    TfmaBlock h;
    h.configure_sources();
    const BundleOutcome o = h.run_block(true, false);
    ASSERT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(element_at(h, h.destination(), 0, 0), 10U);
  }
  {
    TfmaBlock h;
    h.configure_sources();
    const std::uint64_t in_use = h.file.core_capacity_in_use();
    const BundleOutcome o = h.run_block(true, true);
    EXPECT_EQ(o.status, BundleStatus::Fault);
    EXPECT_EQ(o.fault, arch::FaultCode::Fault_TileLegality);
    EXPECT_TRUE(o.trace.destinations.empty());
    EXPECT_EQ(h.file.core_capacity_in_use(), in_use);
    EXPECT_FALSE(h.any_unconfigured_tile_allocated());
    EXPECT_EQ(element_at(h, 1, 0, 0), 2U);
    EXPECT_EQ(element_at(h, 3, 0, 0), 4U);
  }
}

// PTO-AVS-TILE-TFMA-MASK-ZERO-001 (ExecuteBundleTileOperation, tile-execution
// .asl; ADR 0096): PE_MASK zero is a strict no-op before schema, source,
// allocation, arithmetic, padding or flag effects.  The point adds one
// zero-mask binding directly; an instruction stream expresses a zero mask
// only as PEMode 000 on B.IOT, which BindBundleTileIO records as zero
// participation (no binding), and BSTOP then returns before every check.
// Here both TFMA bindings carry PEMode 000, with no LB0 (the schema would
// reject) and unconfigured sources (operand legality would reject): the block
// completes with no fault, no allocation and no floating flags.
TEST(OpsSpecHandlerAliasFma, PTO_AVS_TILE_TFMA_MASK_ZERO_001) {
  TfmaBlock h;
  const BundleOutcome o = h.run_block(false, false, 0);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(h.m.state.last_fault, arch::FaultCode::Fault_None);
  EXPECT_TRUE(o.trace.zero_mask_no_op);
  EXPECT_TRUE(o.trace.destinations.empty());
  EXPECT_FALSE(h.file.tile(0).allocated());
  EXPECT_FALSE(h.any_unconfigured_tile_allocated());
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  EXPECT_EQ(h.fp_flags(), 0U);
}

}  // namespace
}  // namespace pto::test
