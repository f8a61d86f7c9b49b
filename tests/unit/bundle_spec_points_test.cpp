// Spec test points of tests/asl/block/execution/BSTART.{TLOAD,TSTORE}
// translated to encoded instruction sequences run through the machine
// (ExecuteCommandInstruction -> runner::execute_instruction).  Test-only
// helpers are rewritten: SetBundleDimension -> B.DIM, ExecuteBundleTile-
// Operation -> BSTOP, ConfigureTile + WriteTileElement -> a TLOAD of the
// same values.  Instruction words are the ASL's own bit constructions.
#include <gtest/gtest.h>

#include "bundle_test_host.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;

constexpr std::uint64_t kTloadU32 = 0x00011181 | (25ULL << 27);
constexpr std::uint64_t kTloadU64 = 0x00011181 | (24ULL << 27);
constexpr std::uint64_t kTstoreU32 = 0x00111181 | (25ULL << 27);
// B.IOT ->T<1> (SizeCode 1 at [18:15], L at [19]) with PEMode at [11:9].
constexpr std::uint64_t biot_dst_t1(unsigned pe_mode) { return 0x00006013 | (1ULL << 15) | (1ULL << 19) | (pe_mode << 9); }
// B.IOT T#1, L (SrcTile0 = 0).
constexpr std::uint64_t kBiotSrcT1 = 0x00005013 | (7ULL << 9) | (1ULL << 19);
constexpr std::uint64_t ior(unsigned s0, unsigned s1) { return 0x13 | (std::uint64_t{s0} << 15) | (std::uint64_t{s1} << 20); }

// T#1 := 2x2 U32 {a, b; c, d} loaded densely from 0x800 (replaces ConfigureTile / WriteTileElement).
void configure_tstore_source(BundleTestHost& h, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  h.store32(0x800, a);
  h.store32(0x804, b);
  h.store32(0x808, c);
  h.store32(0x80c, d);
  h.gpr[9] = 0x800;
  h.gpr[8] = 8;
  ASSERT_TRUE(h.run({kTloadU32, bdim(0, 2), bdim(1, 2), biot_dst_t1(7), ior(9, 8), kBstop}).ok());
  ASSERT_EQ(h.destination(), 0U);
  h.gpr[9] = h.gpr[8] = 0;
}

// PTO-AVS-BLOCK-TSTORE-STRIDE-001
TEST(AvsBlockTstore, Stride001) {
  {
    BundleTestHost h;  // explicit base 0x200, stride 12
    configure_tstore_source(h, 11, 12, 13, 14);
    h.gpr[2] = 0x200;
    h.gpr[3] = 12;
    ASSERT_TRUE(h.run({kTstoreU32, kBiotSrcT1, ior(2, 3), kBstop}).ok());
    EXPECT_EQ(h.byte(0x200), 11U);
    EXPECT_EQ(h.byte(0x204), 12U);
    EXPECT_EQ(h.byte(0x20c), 13U);
    EXPECT_EQ(h.byte(0x210), 14U);
  }
  {
    BundleTestHost h;  // omitted B.IOR: base 0, dense stride from the source's columns
    configure_tstore_source(h, 15, 16, 17, 18);
    ASSERT_TRUE(h.run({kTstoreU32, kBiotSrcT1, kBstop}).ok());
    EXPECT_EQ(h.byte(0), 15U);
    EXPECT_EQ(h.byte(4), 16U);
    EXPECT_EQ(h.byte(8), 17U);
    EXPECT_EQ(h.byte(12), 18U);
  }
  {
    BundleTestHost h;  // encoded zero registers: base 0, stride 0 (row 1 overwrites row 0)
    configure_tstore_source(h, 19, 20, 21, 22);
    ASSERT_TRUE(h.run({kTstoreU32, bdim(2, 4), kBiotSrcT1, ior(0, 0), kBstop}).ok());
    EXPECT_EQ(h.byte(0), 21U);
    EXPECT_EQ(h.byte(4), 22U);
  }
}

// PTO-AVS-BLOCK-TLOAD-PREFLIGHT-001: the reference 4096-byte memory; element
// 1 of the 1x2 U32 footprint lies past the end.  DataPage, no allocation.
TEST(AvsBlockTload, Preflight001) {
  BundleTestHost h(arch::MachineConfig::reference(4096));
  h.store32(4092, 0xaa);
  h.gpr[2] = 4092;
  h.gpr[3] = 2;
  const auto o = h.run({kTloadU32, bdim(0, 2), bdim(1, 1), bdim(2, 2), biot_dst_t1(7), ior(2, 3), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(o.fault_address, 4096U);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
}

// PTO-AVS-BLOCK-TLOAD-ZERO-MASK-001: PE_MASK=0000 on a Local destination and
// on a Shared binding: strict no-op (no fault, allocation or Shared descriptor).
TEST(AvsBlockTload, ZeroMask001) {
  {
    BundleTestHost h;
    const auto o = h.run({kTloadU64, biot_dst_t1(0), kBstop});
    EXPECT_TRUE(o.ok());
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
    EXPECT_TRUE(o.trace.zero_mask_no_op);
  }
  {
    BundleTestHost h;
    const std::uint64_t shared_zero_mask = 0x00001013 | (77ULL << 20) | (1ULL << 15);  // B.IOS S77, PEMode 000
    const auto o = h.run({kTloadU64, shared_zero_mask, kBstop});
    EXPECT_TRUE(o.ok());
    EXPECT_FALSE(h.file.shared(77).descriptor_valid);
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  }
}

}  // namespace
}  // namespace pto::test

#include "tile/tile_contracts.hpp"

namespace pto::test {
namespace {

// The generated B.DATR contract rows follow isa::TileOp order.
TEST(TileContracts, RowsMatchTheCatalogOrder) {
  for (std::size_t i = 0; i < isa::kTileOpCount; ++i) {
    const auto op = static_cast<isa::TileOp>(i);
    EXPECT_STREQ(tile::datr_contract_name(op), isa::tile_op(op).name);
  }
  EXPECT_TRUE(tile::datr_contract(isa::TileOp::TADD).allows(tile::DatrField::PadValue));
  EXPECT_FALSE(tile::datr_contract(isa::TileOp::TADD).allows(tile::DatrField::RMode));
}

// SelectedBundleTileDataAttributesLegal: ordinary TLOAD keeps PadValue zero
// (catalog pad_union pad-value, zero-only for non-CUBE layouts): TileLegality
// before any allocation.
TEST(TileContracts, TloadNonzeroPadValueIsTileLegalityBeforeAllocation) {
  BundleTestHost h;
  const std::uint64_t datr_pad_max = encode_form(kBDatr, {{"DataType", 31}, {"PadValueOrByteId", 1}});
  const auto o = h.run({kTloadU32, bdim(0, 2), datr_pad_max, biot_dst_t1(7), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

}  // namespace
}  // namespace pto::test
