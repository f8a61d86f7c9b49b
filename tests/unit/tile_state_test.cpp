// Tile register state: geometry, capacity, padding, layouts, rendering
// (ADR 0014 definedness bullets are in adr0014_test.cpp).  Expected values
// are hand-derived from the ASL named in each comment.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

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
  ASSERT_EQ(f.configure(0, big), Fault::None);
  EXPECT_EQ(f.tile(0).payload().size(), 65536U);
  EXPECT_EQ(f.tile(0).logical_capacity(), 16384U);
  ConfigureRequest r = u32_request(128, 16, 16, 16);
  r.data_type = DataType::U4X2;
  ASSERT_EQ(f.configure(1, r), Fault::None);
  EXPECT_EQ(f.tile(1).logical_capacity(), 256U);  // 128 B of nibbles
  f.tile(1).write_element(0, 1, 0xA);
  f.tile(1).write_element(0, 0, 0x5);
  EXPECT_EQ(static_cast<unsigned>(f.tile(1).payload()[0]), 0xA5U);  // ADR 0033: even element = low nibble
}

TEST(TileState, CapacityBudgetSharedByLocalAndShared) {  // CoreTileCapacityInUse
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(65536, 64, 1, 1)), Fault::None);  // 4 x 64 KiB = 256 KiB
  EXPECT_EQ(f.core_capacity_in_use(), 262144U);
  EXPECT_EQ(f.configure(1, u32_request(128, 1, 1, 1)), Fault::TileAllocation);
  f.release(0);
  f.set_capacity_limit(1024);
  ConfigureRequest r = u32_request(512, 4, 1, 1);
  r.mask = 0b1100;  // two PEs: 1024 bytes
  EXPECT_EQ(f.configure(2, r), Fault::None);
  EXPECT_EQ(f.configure(3, u32_request(128, 1, 1, 1)), Fault::TileAllocation);
}

// ---------------------------------------------------------------- padding

TEST(TilePadding, NullLeavesPaddingUndefinedOthersDefine) {  // TileWithPadding, TilePadValueForDataType
  TileFile f;
  ConfigureRequest r = u32_request(128, 4, 1, 2);
  r.data_type = DataType::S16;
  ASSERT_EQ(f.configure(0, r), Fault::None);
  f.tile(0).apply_padding(PadValue::Min);
  EXPECT_TRUE(f.tile(0).element_defined_at(0, 2));
  EXPECT_EQ(f.tile(0).read_raw(f.tile(0).linear_index(0, 2)), 0x8000U);
  EXPECT_EQ(f.tile(0).read_word(f.tile(0).linear_index(1, 0)), 0xFFFFFFFFFFFF8000ULL);
  f.tile(0).apply_padding(PadValue::Null);
  EXPECT_FALSE(f.tile(0).element_defined_at(0, 2));
  EXPECT_EQ(pad_value_for_data_type(PadValue::Max, DataType::FP32), 0x7f7fffffULL);
  EXPECT_EQ(pad_value_for_data_type(PadValue::Min, DataType::U16), 0U);
}

TEST(TileLayouts, FractalLinearIndex) {  // TileLinearIndex ZN / NZ for U32 (8 inner elements)
  TileFile f;
  ConfigureRequest r = u32_request(1024, 16, 16, 16);  // 16 x 16 U32
  r.layout = TileLayout::NZ;
  ASSERT_EQ(f.configure(0, r), Fault::None);
  // NZ: (bc*block_rows + br)*128 + ir*8 + ic; (row 1, col 9) -> (1*1+0)*128 + 8 + 1.
  EXPECT_EQ(f.tile(0).linear_index(1, 9), 137U);
  r.layout = TileLayout::ZN;
  ASSERT_EQ(f.configure(1, r), Fault::None);
  // ZN: (br*block_cols + bc)*128 + ic*16 + ir -> (0*2+1)*128 + 1*16 + 1.
  EXPECT_EQ(f.tile(1).linear_index(1, 9), 145U);
}

TEST(TileRender, JsonAndTable) {
  TileFile f;
  ASSERT_EQ(f.configure(16, u32_request(128, 4, 1, 2)), Fault::None);
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
