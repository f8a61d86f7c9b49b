// B.DATR Layout on the generic commit path: TileDataLayoutSourceLayout /
// TileDataLayoutDestinationLayout (asl/block/model/state/control-state.asl),
// destinations configured with CurrentBundleTileLayout
// (asl/block/model/dispatch/destination-shape.asl), TCVT's source-layout
// rule (tcvt-schema.asl, TileOperandsLegal_TCVT) and the storage index of
// the placed destination (TileLinearIndex, asl/tile/model/definedness/elements.asl).
#include <gtest/gtest.h>

#include "bundle_test_host.hpp"
#include "tile/tile_contracts.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using tile::DataType;
using tile::Fault;
using tile::TileLayout;

constexpr unsigned kTtransFunction = 14, kTscatterFunction = 16;  // TEPL mode 3
// BSTART.TEPL TCVT (mode 0, function 27) with source DataType U8, the word of
// PTO-AVS-TILE-TCVT-BUNDLE-001.
constexpr std::uint64_t kTcvtU8Start = 0xd9b19181;

arch::BlockState bundle_with_layout(unsigned code) {
  arch::BlockState b;
  b.data_attributes_present = true;
  b.data_attributes.data_layout = static_cast<std::uint8_t>(code);
  return b;
}

void configure(BundleTestHost& h, tile::TileIndex i, std::uint32_t capacity, std::uint32_t columns,
               std::uint32_t valid_rows, std::uint32_t valid_columns, DataType t,
               TileLayout layout = TileLayout::RowMajor) {
  tile::ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = columns;
  r.valid_rows = valid_rows;
  r.valid_columns = valid_columns;
  r.data_type = t;
  r.layout = layout;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(i, r), Fault::None);
}

std::uint64_t datr(unsigned layout, unsigned data_type = 0, unsigned pad = 0) {
  return encode_form(kBDatr, {{"Layout", layout}, {"DataType", data_type}, {"PadValueOrByteId", pad}});
}

// PTO-AVS-TILE-TCVT-LAYOUT-001: every assigned transformation has an
// explicit (source, destination) pair; NORM (also an omitted B.DATR) is
// RowMajor to RowMajor.
TEST(LayoutConversion, PTO_AVS_TILE_TCVT_LAYOUT_001) {
  using L = TileLayout;
  struct Row {
    unsigned code;
    L source, destination;
  };
  const Row rows[] = {{0, L::RowMajor, L::RowMajor},     {1, L::RowMajor, L::ColumnMajor}, {3, L::RowMajor, L::ZN},
                      {4, L::RowMajor, L::NZ},           {6, L::ColumnMajor, L::RowMajor}, {8, L::ColumnMajor, L::ZN},
                      {9, L::ColumnMajor, L::NZ},        {17, L::ZN, L::RowMajor},         {18, L::ZN, L::ColumnMajor},
                      {20, L::ZN, L::NZ},                {27, L::NZ, L::RowMajor},         {28, L::NZ, L::ColumnMajor},
                      {30, L::NZ, L::ZN}};
  for (const Row& r : rows) {
    const tile::BundleTileLayouts l = tile::bundle_tile_layouts(bundle_with_layout(r.code));
    EXPECT_TRUE(l.valid) << r.code;
    EXPECT_EQ(l.source, r.source) << r.code;
    EXPECT_EQ(l.destination, r.destination) << r.code;
  }
  arch::BlockState omitted = bundle_with_layout(1);
  omitted.data_attributes_present = false;  // inherited state is not an encoded field
  EXPECT_EQ(tile::bundle_tile_layouts(omitted).destination, L::RowMajor);
  for (unsigned cube = 21; cube <= 26; ++cube)  // CUBE codes have no generic pair
    EXPECT_FALSE(tile::bundle_tile_layouts(bundle_with_layout(cube)).valid) << cube;
}

// PTO-AVS-TILE-TCVT-BUNDLE-001: U8 ND source -> U16 DN destination with the
// source's physical shape; (0, 1) is stored at payload index 1 * 16 + 0.
TEST(LayoutConversion, PTO_AVS_TILE_TCVT_BUNDLE_001) {
  BundleTestHost h;
  configure(h, 1, 128, 8, 1, 2, DataType::U8);
  h.file.tile(1).write_element(0, 0, 7);
  h.file.tile(1).write_element(0, 1, 9);
  const auto o = h.run({kTcvtU8Start, datr(1, 26, 3), bdim(0, 2), bdim(2, 8),
                        encode_form(kBIotSrcDst, {{"SrcTile0", 1}, {"SizeCode", 2}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
                        kBstop});
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  const tile::TileIndex d = h.destination();
  const tile::TileDescriptor& dd = h.file.tile(d).descriptor();
  EXPECT_EQ(dd.data_type, DataType::U16);
  EXPECT_EQ(dd.layout, TileLayout::ColumnMajor);
  EXPECT_EQ(dd.rows, h.file.tile(1).descriptor().rows);
  EXPECT_EQ(dd.columns, h.file.tile(1).descriptor().columns);
  EXPECT_EQ(element_at(h, d, 0, 0), 7U);
  EXPECT_EQ(element_at(h, d, 0, 1), 9U);
  EXPECT_EQ(h.file.tile(d).read_raw(16), 9U);
  EXPECT_EQ(element_at(h, 1, 0, 0), 7U);
  EXPECT_EQ(element_at(h, 1, 0, 1), 9U);
}

// TCVT checks the source against CurrentBundleTileSourceLayout in its schema,
// before destination allocation (tcvt-schema.asl).
TEST(LayoutConversion, TcvtSourceWithoutTheSourceLayoutFaultsBeforeAllocation) {
  BundleTestHost h;
  configure(h, 1, 128, 8, 1, 2, DataType::U8, TileLayout::ColumnMajor);  // ND2DN wants RowMajor
  h.file.tile(1).write_element(0, 0, 7);
  h.file.tile(1).write_element(0, 1, 9);
  const std::uint64_t in_use = h.file.core_capacity_in_use();
  const auto o = h.run({kTcvtU8Start, datr(1, 26), bdim(0, 2), bdim(2, 8),
                        encode_form(kBIotSrcDst, {{"SrcTile0", 1}, {"SizeCode", 2}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
                        kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_TRUE(o.trace.destinations.empty());
  EXPECT_EQ(h.file.core_capacity_in_use(), in_use);
  EXPECT_FALSE(h.file.tile(0).allocated());
}

// A present B.DATR for these operations may only set Layout, so its
// DataType field is encoded zero, which ResolveBundleEffectiveDataType
// takes as the concrete FP64 (descriptor-legality.asl): the tiles are FP64.
constexpr unsigned kFP64 = 0;

// DN2ND: a ColumnMajor source converts into a RowMajor destination by
// logical (r, c); (1, 0) is stored at payload index 1 * 8 + 0.
TEST(LayoutConversion, TcvtDn2NdReadsAColumnMajorSource) {
  BundleTestHost h;
  configure(h, 1, 128, 8, 2, 2, DataType::U8, TileLayout::ColumnMajor);
  const std::uint32_t values[2][2] = {{7, 9}, {11, 13}};
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 2; ++c) h.file.tile(1).write_element(r, c, values[r][c]);
  const auto o = h.run({kTcvtU8Start, datr(6, 26), bdim(0, 2), bdim(1, 2), bdim(2, 8),
                        encode_form(kBIotSrcDst, {{"SrcTile0", 1}, {"SizeCode", 2}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
                        kBstop});
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  const tile::TileIndex d = h.destination();
  EXPECT_EQ(h.file.tile(d).descriptor().layout, TileLayout::RowMajor);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 2; ++c) EXPECT_EQ(element_at(h, d, r, c), values[r][c]);
  EXPECT_EQ(h.file.tile(d).read_raw(1 * 8 + 0), 11U);
}

// The source of TTRANS: 2 x 3 valid FP64 raw values s(r, c) = 10 r + c + 1.
void transpose_source(BundleTestHost& h, TileLayout layout = TileLayout::RowMajor) {
  configure(h, 5, 128, 4, 2, 3, DataType::FP64, layout);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 3; ++c) h.file.tile(5).write_element(r, c, 10 * r + c + 1);
}

BundleOutcome run_ttrans(BundleTestHost& h, unsigned layout, unsigned columns, unsigned size_code) {
  return h.run({tepl_start(kTtransFunction, kFP64, 3), datr(layout), bdim(0, 2), bdim(1, 3), bdim(2, columns),
                encode_form(kBIotSrcDst, {{"SrcTile0", 5}, {"SizeCode", size_code}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
                kBstop});
}

void expect_transposed(const BundleTestHost& h, tile::TileIndex d) {
  for (std::uint32_t r = 0; r < 3; ++r)
    for (std::uint32_t c = 0; c < 2; ++c) EXPECT_EQ(element_at(h, d, r, c), 10 * c + r + 1) << r << "," << c;
}

TEST(LayoutConversion, TtransNd2DnPlacesTheDestinationColumnMajor) {
  BundleTestHost h;
  transpose_source(h);
  const auto o = run_ttrans(h, 1, 4, 1);
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  const tile::TileIndex d = h.destination();
  const tile::Tile& t = h.file.tile(d);
  EXPECT_EQ(t.descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(t.descriptor().rows, 4U);  // 128 bytes / (4 columns x 8 bytes)
  expect_transposed(h, d);
  EXPECT_EQ(t.read_raw(1 * 4 + 2), 13U);  // d(2, 1) at column * rows + row
  EXPECT_EQ(t.read_raw(1 * 4 + 0), 11U);  // d(0, 1)
  EXPECT_FALSE(t.element_defined_at(0, 2));  // Null padding outside the valid region (ADR 0014)
  EXPECT_FALSE(t.element_defined_at(3, 0));
  EXPECT_EQ(t.defined_valid_elements(), 6U);
}

// TileOperandsLegal_TTRANS places no layout rule on its source
// (layout-rearrangement.asl): a ColumnMajor source under ND2DN is read by
// its logical (r, c).
TEST(LayoutConversion, TtransReadsAnyIndexableSourceLayout) {
  BundleTestHost h;
  transpose_source(h, TileLayout::ColumnMajor);
  const auto o = run_ttrans(h, 1, 4, 1);
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  expect_transposed(h, h.destination());
}

TEST(LayoutConversion, TtransIntoFractalLayouts) {
  struct Case {
    unsigned code;
    TileLayout layout;
    std::uint32_t index_of_2_1;  // d(2, 1) in one 16 x 4 FP64 fractal
  };
  // ZN: inner column * 16 + inner row; NZ: inner row * 4 + inner column.
  for (const Case& c : {Case{3, TileLayout::ZN, 1 * 16 + 2}, Case{4, TileLayout::NZ, 2 * 4 + 1}}) {
    BundleTestHost h;
    transpose_source(h);
    const auto o = run_ttrans(h, c.code, 4, 3);  // 512 bytes: 16 rows x 4 columns
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    const tile::Tile& t = h.file.tile(h.destination());
    EXPECT_EQ(t.descriptor().layout, c.layout);
    EXPECT_EQ(t.descriptor().rows, 16U);
    expect_transposed(h, h.destination());
    EXPECT_EQ(t.read_raw(c.index_of_2_1), 13U);
  }
}

// TileLayoutShapeLegal: a fractal destination needs rows % 16 == 0 and
// columns % (256 / element bits) == 0, else Fault_TileLegality with the
// allocation rolled back.
TEST(LayoutConversion, FractalDestinationShapeIsTileLegality) {
  BundleTestHost h;
  transpose_source(h);
  const std::uint64_t in_use = h.file.core_capacity_in_use();
  EXPECT_EQ(run_ttrans(h, 4, 4, 1).fault, FaultCode::Fault_TileLegality);  // 4 rows x 4 columns
  EXPECT_EQ(h.file.core_capacity_in_use(), in_use);
  EXPECT_FALSE(h.file.tile(0).allocated());
}

// TSCATTER under DN: every physical destination element is a defined zero,
// then destination[index[r, c], c] = source[r, c].
TEST(LayoutConversion, TscatterNd2DnZeroFillsThePlacedDestination) {
  BundleTestHost h;
  configure(h, 5, 128, 2, 2, 2, DataType::FP64);
  configure(h, 6, 128, 2, 2, 2, DataType::U32);
  const std::uint32_t values[2][2] = {{10, 11}, {20, 21}}, rows[2][2] = {{2, 0}, {3, 1}};
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 2; ++c) {
      h.file.tile(5).write_element(r, c, values[r][c]);
      h.file.tile(6).write_element(r, c, rows[r][c]);
    }
  const auto o = h.run({tepl_start(kTscatterFunction, kFP64, 3), datr(1), bdim(0, 2), bdim(1, 4),
                        encode_form(kBIotSrcSrcDst, {{"SrcTile0", 5}, {"SrcTile1", 6}, {"SizeCode", 1}, {"PEMode", 7},
                                                      {"L", 1}, {"DstTile", 0}}),
                        kBstop});
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  const tile::TileIndex d = h.destination();
  const tile::Tile& t = h.file.tile(d);
  EXPECT_EQ(t.descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(element_at(h, d, 2, 0), 10U);
  EXPECT_EQ(element_at(h, d, 0, 1), 11U);
  EXPECT_EQ(element_at(h, d, 3, 0), 20U);
  EXPECT_EQ(element_at(h, d, 1, 1), 21U);
  EXPECT_EQ(element_at(h, d, 0, 0), 0U);
  EXPECT_EQ(t.read_raw(t.descriptor().rows * 1 + 1), 21U);  // d(1, 1), column-major
  EXPECT_TRUE(t.element_defined_at(t.descriptor().rows - 1, 1));  // padding: defined zero
}

// A CUBE code selects the CUBE transport whatever the operation
// (BundleCubeTransportSelected, tlsu-layout-conversion.asl), whose data
// attribute rule rejects a non-TileMemory operation before allocation.
TEST(LayoutConversion, CubeCodeOnTtransIsTileLegality) {
  BundleTestHost h;
  transpose_source(h);
  const std::uint64_t in_use = h.file.core_capacity_in_use();
  EXPECT_EQ(run_ttrans(h, 21, 4, 1).fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), in_use);
}

// A non-CUBE Layout on an operation outside the eight still stops loudly,
// with no allocation.
TEST(LayoutConversion, OtherLayoutConsumersStopAsNotImplemented) {
  {
    BundleTestHost h;
    const auto o = h.run({tload_start(kU32), datr(1), bdim(0, 2), bdim(1, 2),
                          encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}), kBstop});
    EXPECT_EQ(o.status, BundleStatus::NotImplemented);
    EXPECT_EQ(o.message, "not implemented in this model: TLOAD with B.DATR Layout 1");
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  }
}

}  // namespace
}  // namespace pto::test
