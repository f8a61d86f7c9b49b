// Tile register state: geometry, capacity, padding, layouts, rendering
// (ADR 0014 definedness bullets are in adr0014_test.cpp).  Expected values
// are hand-derived from the ASL named in each comment.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tile/ops_elementwise.hpp"
#include "tile/tile_elementwise.hpp"
#include "tile/tile_render.hpp"
#include "tile/tile_state.hpp"
#include "tile_request.hpp"

namespace pto::tile {
namespace {

using test::u32_request;

// ---------------------------------------------------------------- geometry

TEST(TileGeometry, HandsOwnSixteenIndicesEach) {  // TileHandOf
  EXPECT_EQ(hand_of(0), TileHand::T);
  EXPECT_EQ(hand_of(15), TileHand::T);
  EXPECT_EQ(hand_of(16), TileHand::U);
  EXPECT_EQ(hand_of(47), TileHand::M);
  EXPECT_EQ(hand_of(63), TileHand::N);
  EXPECT_EQ(index_within_hand(17), 2U);
}

TEST(TileGeometry, PEModeMaskTableAdr0096) {  // PTOv0PEMaskOfPEMode; bit 3 = PE0
  const PeMask expected[8] = {0b0000, 0b1000, 0b0100, 0b0010, 0b0001, 0b1100, 0b1110, 0b1111};
  for (unsigned m = 0; m < 8; ++m) EXPECT_EQ(pe_mask_of_pe_mode(m), expected[m]) << m;
  EXPECT_EQ(pe_mask_bit_of_pe(0), 3U);
}

TEST(TileGeometry, SizeCodesLocalAndShared) {  // TileSizeCodeBytes, ADR 0096
  EXPECT_EQ(size_code_bytes(1), 128U);
  EXPECT_EQ(size_code_bytes(10), 65536U);
  EXPECT_EQ(size_code_bytes(12), 262144U);
  EXPECT_TRUE(local_size_code_legal(10));
  EXPECT_FALSE(local_size_code_legal(11));
  EXPECT_TRUE(size_code_legal(12));
  EXPECT_FALSE(size_code_legal(13));
  EXPECT_FALSE(size_code_legal(0));
}

TEST(TileGeometry, DerivedRowsFromCapacity) {  // DerivedTileRows
  EXPECT_EQ(derived_tile_rows(65536, 64, DataType::U32), 256U);
  EXPECT_EQ(derived_tile_rows(128, 1, DataType::U8), 128U);
  EXPECT_EQ(derived_tile_rows(128, 3, DataType::U8), 0U);  // columns not a power of two
  EXPECT_EQ(derived_tile_rows(128, 64, DataType::FP64), 0U);  // row wider than capacity
  EXPECT_EQ(derived_tile_rows(128, 4, DataType::U4X2), 64U);
}

TEST(TileState, StorageIsSizedByCapacityAndPacked) {
  TileFile f;
  ConfigureRequest big = u32_request(65536, 64, 64, 64);
  big.mask = 0b0001;  // one PE: 64 KiB of the 256 KiB budget
  ASSERT_EQ(f.configure(0, big), FaultCode::Fault_None);
  EXPECT_EQ(f.tile(0).payload().size(), 65536U);
  EXPECT_EQ(f.tile(0).logical_capacity(), 16384U);
  ConfigureRequest r = u32_request(128, 16, 16, 16);
  r.data_type = DataType::U4X2;
  ASSERT_EQ(f.configure(1, r), FaultCode::Fault_None);
  EXPECT_EQ(f.tile(1).logical_capacity(), 256U);  // 128 B of nibbles
  f.tile(1).write_element(0, 1, 0xA);
  f.tile(1).write_element(0, 0, 0x5);
  EXPECT_EQ(static_cast<unsigned>(f.tile(1).payload()[0]), 0xA5U);  // ADR 0033: even element = low nibble
}

TEST(TileState, CapacityBudgetSharedByLocalAndShared) {  // CoreTileCapacityInUse
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(65536, 64, 1, 1)), FaultCode::Fault_None);  // 4 x 64 KiB = 256 KiB
  EXPECT_EQ(f.core_capacity_in_use(), 262144U);
  EXPECT_EQ(f.configure(1, u32_request(128, 1, 1, 1)), FaultCode::Fault_TileAllocation);
  f.release(0);
  f.set_capacity_limit(1024);
  ConfigureRequest r = u32_request(512, 4, 1, 1);
  r.mask = 0b1100;  // two PEs: 1024 bytes
  EXPECT_EQ(f.configure(2, r), FaultCode::Fault_None);
  EXPECT_EQ(f.configure(3, u32_request(128, 1, 1, 1)), FaultCode::Fault_TileAllocation);
}

// A shared register counts against the budget once valid, also when made
// valid through the file's accessor after the file had none (the capacity
// check skips the scan of the 256 registers only until one is handed out
// for writing); reset() invalidates them all.
TEST(TileState, SharedRegisterCountsOnceValidUntilReset) {  // CoreTileCapacityInUse
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(4096, 64, 1, 1)), FaultCode::Fault_None);  // 4 PEs x 4 KiB
  EXPECT_EQ(f.shared_capacity_in_use(), 0U);
  SharedTile& s = f.shared(7);
  s.descriptor_valid = true;
  s.allocation_mask = 0b1000;  // one PE
  s.tile = f.tile(0);
  EXPECT_EQ(f.shared_capacity_in_use(), 4096U);
  EXPECT_EQ(f.core_capacity_in_use(), 4U * 4096U + 4096U);
  f.reset();
  EXPECT_EQ(f.shared_capacity_in_use(), 0U);
  EXPECT_FALSE(f.shared(7).descriptor_valid);
}

// ---------------------------------------------------------------- padding

TEST(TilePadding, NullLeavesPaddingUndefinedOthersDefine) {  // TileWithPadding, TilePadValueForDataType
  TileFile f;
  ConfigureRequest r = u32_request(128, 4, 1, 2);
  r.data_type = DataType::S16;
  ASSERT_EQ(f.configure(0, r), FaultCode::Fault_None);
  f.tile(0).apply_padding(PadValue::Min);
  EXPECT_TRUE(f.tile(0).element_defined_at(0, 2));
  EXPECT_EQ(f.tile(0).read_raw(f.tile(0).linear_index(0, 2)), 0x8000U);
  EXPECT_EQ(f.tile(0).read_word(f.tile(0).linear_index(1, 0)), 0xFFFFFFFFFFFF8000ULL);
  f.tile(0).apply_padding(PadValue::Null);
  EXPECT_FALSE(f.tile(0).element_defined_at(0, 2));
  EXPECT_EQ(pad_value_for_data_type(PadValue::Max, DataType::FP32), 0x7f7fffffULL);
  EXPECT_EQ(pad_value_for_data_type(PadValue::Min, DataType::U16), 0U);
}

// ---------------------------------------------------------------- definedness shortcuts

// define_range sets exactly [first, first + count): partial words at both
// ends and whole words between (elements 60..259 of a 512-element tile).
TEST(TileDefinedness, DefineRangeAcrossWordBoundaries) {
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(2048, 16, 32, 16)), FaultCode::Fault_None);  // 32 x 16 U32
  f.tile(0).define_range(60, 200);
  EXPECT_EQ(f.tile(0).defined_element_count(), 200U);
  EXPECT_FALSE(f.tile(0).element_defined(59));
  EXPECT_TRUE(f.tile(0).element_defined(60));
  EXPECT_TRUE(f.tile(0).element_defined(64));
  EXPECT_TRUE(f.tile(0).element_defined(191));
  EXPECT_TRUE(f.tile(0).element_defined(259));
  EXPECT_FALSE(f.tile(0).element_defined(260));
}

// MarkTileValidRegionDefined after partial writes, and again after the
// destination is reconfigured (ADR 0014: allocation clears definedness), must
// define the whole valid region (8 x 3 of an 8 x 4 U32 tile) and nothing else.
TEST(TileDefinedness, MarkValidRegionAfterPartialWriteAndReconfigure) {
  TileFile f;
  const ConfigureRequest r = u32_request(128, 4, 8, 3);
  ASSERT_EQ(f.configure(0, r), FaultCode::Fault_None);
  Tile& t = f.tile(0);
  t.write_element(2, 1, 7);
  t.write_element(0, 3, 9);  // padding element: its bit is set, the count ignores it
  EXPECT_EQ(t.defined_valid_elements(), 1U);
  t.mark_valid_region_defined();
  EXPECT_TRUE(t.contents_defined());
  EXPECT_EQ(t.defined_valid_elements(), 24U);
  EXPECT_EQ(t.defined_element_count(), 25U);
  t.mark_valid_region_defined();  // already defined: unchanged
  EXPECT_EQ(t.defined_element_count(), 25U);
  ASSERT_EQ(f.configure(0, r), FaultCode::Fault_None);
  EXPECT_FALSE(t.contents_defined());
  EXPECT_EQ(t.defined_element_count(), 0U);
  t.mark_valid_region_defined();
  EXPECT_TRUE(t.contents_defined());
  EXPECT_EQ(t.defined_element_count(), 24U);
  EXPECT_FALSE(t.element_defined_at(0, 3));
  EXPECT_FALSE(t.element_defined_at(7, 3));
}

// A destination written repeatedly (the valid region stays defined) still
// takes each bundle's padding: U32 ADD of 2 x 3 valid regions in 8 x 4
// tiles, then Null padding, then a reconfigured destination with Max
// padding (TileWithPadding, TilePadValueForDataType: U32 Max = 0xffffffff).
TEST(TileDefinedness, RepeatedPublicationAppliesEachPadding) {
  TileFile f;
  const ConfigureRequest r = u32_request(128, 4, 2, 3);
  for (TileIndex i = 0; i < 3; ++i) ASSERT_EQ(f.configure(i, r), FaultCode::Fault_None);
  for (std::uint32_t row = 0; row < 2; ++row)
    for (std::uint32_t c = 0; c < 3; ++c) {
      f.tile(0).write_element(row, c, 10 * row + c);
      f.tile(1).write_element(row, c, 100);
    }
  Tile& d = f.tile(2);
  const auto add = [&](PadValue pad) {
    ops::tile_binary(ops::Binary::ADD, d, f.tile(0), f.tile(1), pad, NumericProfile::Reference);
  };
  add(PadValue::Zero);
  EXPECT_EQ(d.read_raw(d.linear_index(1, 2)), 112U);
  EXPECT_TRUE(d.contents_defined());
  EXPECT_EQ(d.defined_element_count(), 32U);  // 6 valid + 26 padding
  EXPECT_EQ(d.read_raw(d.linear_index(0, 3)), 0U);
  add(PadValue::Null);
  EXPECT_TRUE(d.contents_defined());
  EXPECT_EQ(d.defined_element_count(), 6U);
  EXPECT_FALSE(d.element_defined_at(0, 3));
  EXPECT_FALSE(d.element_defined_at(7, 0));
  ASSERT_EQ(f.configure(2, r), FaultCode::Fault_None);
  EXPECT_FALSE(d.contents_defined());
  add(PadValue::Max);
  EXPECT_TRUE(d.contents_defined());
  EXPECT_EQ(d.read_raw(d.linear_index(0, 0)), 100U);
  EXPECT_EQ(d.read_raw(d.linear_index(7, 3)), 0xFFFFFFFFU);
  EXPECT_EQ(d.defined_element_count(), 32U);
}

TEST(TileLayouts, FractalLinearIndex) {  // TileLinearIndex ZN / NZ for U32 (8 inner elements)
  TileFile f;
  ConfigureRequest r = u32_request(1024, 16, 16, 16);  // 16 x 16 U32
  r.layout = TileLayout::NZ;
  ASSERT_EQ(f.configure(0, r), FaultCode::Fault_None);
  // NZ: (bc*block_rows + br)*128 + ir*8 + ic; (row 1, col 9) -> (1*1+0)*128 + 8 + 1.
  EXPECT_EQ(f.tile(0).linear_index(1, 9), 137U);
  r.layout = TileLayout::ZN;
  ASSERT_EQ(f.configure(1, r), FaultCode::Fault_None);
  // ZN: (br*block_cols + bc)*128 + ic*16 + ir -> (0*2+1)*128 + 1*16 + 1.
  EXPECT_EQ(f.tile(1).linear_index(1, 9), 145U);
}

TEST(TileRender, JsonAndTable) {
  TileFile f;
  ASSERT_EQ(f.configure(16, u32_request(128, 4, 1, 2)), FaultCode::Fault_None);
  f.tile(16).write_element(0, 0, 0xAB);
  const auto j = tile_to_json(f, 16);
  EXPECT_EQ(j["name"], "U#1");
  EXPECT_EQ(j["payload"][0][0], "0x000000ab");
  EXPECT_TRUE(j["payload"][0][1].is_null());
  EXPECT_EQ(j["definedness"]["defined_valid_elements"], 1);
  const std::string table = tile_to_table(f, 16);
  EXPECT_NE(table.find("U#1 U32 8x4 valid 1x2"), std::string::npos) << table;
  EXPECT_NE(table.find("0x000000ab          ?\n"), std::string::npos) << table;
  EXPECT_EQ(parse_tile_name("u#1"), std::optional<TileIndex>(16));
  EXPECT_EQ(parse_tile_name("N#16"), std::optional<TileIndex>(63));
  EXPECT_FALSE(parse_tile_name("X#1").has_value());
  EXPECT_FALSE(parse_tile_name("T#17").has_value());
}

}  // namespace
}  // namespace pto::tile
