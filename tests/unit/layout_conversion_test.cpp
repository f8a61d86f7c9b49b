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
using arch::FaultCode;
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
  ASSERT_EQ(h.file.configure(i, r), FaultCode::Fault_None);
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

// ---- TLOAD, TSTORE, TMOV on the generic commit (load-store.asl,
// shared-movement.asl TMOV, memory-schema.asl) ----

// The pair table of PTO-AVS-TILE-TCVT-LAYOUT-001: every non-CUBE code and
// the destination layout it places.
struct LayoutCode {
  unsigned code;
  TileLayout destination;
};
constexpr LayoutCode kLayoutCodes[] = {
    {1, TileLayout::ColumnMajor}, {3, TileLayout::ZN},       {4, TileLayout::NZ},          {6, TileLayout::RowMajor},
    {8, TileLayout::ZN},          {9, TileLayout::NZ},       {17, TileLayout::RowMajor},   {18, TileLayout::ColumnMajor},
    {20, TileLayout::NZ},         {27, TileLayout::RowMajor}, {28, TileLayout::ColumnMajor}, {30, TileLayout::ZN}};

constexpr unsigned kTmovFunction = 2;
std::uint64_t tmov_start(unsigned dt) { return tile_start(0x00011181, kTmovFunction, dt); }

// FP64 element (r, c) of a GM rectangle at 0x1000 with a 64-byte row pitch.
constexpr std::uint64_t kGmBase = 0x1000, kGmPitch = 64;
std::uint64_t gm_value(std::uint32_t r, std::uint32_t c) { return 0x100000000ULL * (r + 1) + 10 * r + c + 1; }
void fill_gm(BundleTestHost& h, std::uint32_t rows, std::uint32_t columns) {
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < columns; ++c) h.m.memory.write(kGmBase + r * kGmPitch + c * 8, 8, gm_value(r, c));
}

// BSTART.TLOAD FP64; B.DATR Layout; 2 x 3 valid of 4 columns; 512 bytes
// (16 rows, one FP64 fractal of 16 x 4); base a2, byte pitch a3.
BundleOutcome run_fp64_tload(BundleTestHost& h, unsigned layout, unsigned size_code = 3) {
  h.gpr[2] = kGmBase;
  h.gpr[3] = kGmPitch;
  return h.run({tload_start(kFP64), datr(layout), bdim(0, 3), bdim(1, 2), bdim(2, 4),
                encode_form(kBIotDst, {{"SizeCode", size_code}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}), bior(2, 3),
                kBstop});
}

// TLOAD places its destination in CurrentBundleTileLayout (the pair's
// destination; ResolveBundleTileDestinations) and fills it by logical
// (r, c) from base + r * pitch + c * 8: the pair's source layout is not
// consulted, GM is always addressed by rows (TLOAD, load-store.asl).
TEST(LayoutConversion, TloadPlacesEveryLayoutCodeByLogicalElement) {
  for (const LayoutCode& l : kLayoutCodes) {
    BundleTestHost h;
    fill_gm(h, 2, 3);
    const auto o = run_fp64_tload(h, l.code);
    ASSERT_TRUE(o.ok()) << l.code << " " << o.message << o.trace.outcome;
    const tile::Tile& t = h.file.tile(h.destination());
    EXPECT_EQ(t.descriptor().layout, l.destination) << l.code;
    EXPECT_EQ(t.descriptor().data_type, DataType::FP64) << l.code;
    EXPECT_EQ(t.descriptor().rows, 16U) << l.code;
    for (std::uint32_t r = 0; r < 2; ++r)
      for (std::uint32_t c = 0; c < 3; ++c) EXPECT_EQ(element_at(h, h.destination(), r, c), gm_value(r, c)) << l.code;
    EXPECT_EQ(t.defined_valid_elements(), 6U) << l.code;
    EXPECT_FALSE(t.element_defined_at(2, 0)) << l.code;  // outside the valid region (ADR 0014)
  }
}

// The storage index of d(1, 2) in each placed layout (TileLinearIndex):
// RowMajor 1 * 4 + 2; ColumnMajor 2 * 16 + 1; ZN inner column * 16 + inner
// row; NZ inner row * 4 + inner column (one 16 x 4 fractal).
TEST(LayoutConversion, TloadStorageIndexFollowsThePlacedLayout) {
  const std::pair<unsigned, std::uint32_t> cases[] = {{6, 1 * 4 + 2}, {1, 2 * 16 + 1}, {3, 2 * 16 + 1}, {4, 1 * 4 + 2}};
  for (const auto& [code, index] : cases) {
    BundleTestHost h;
    fill_gm(h, 2, 3);
    ASSERT_TRUE(run_fp64_tload(h, code).ok()) << code;
    EXPECT_EQ(h.file.tile(h.destination()).read_raw(index), gm_value(1, 2)) << code;
  }
  // ColumnMajor with 4 rows (128 bytes): d(1, 2) at 2 * 4 + 1.
  BundleTestHost h;
  fill_gm(h, 2, 3);
  ASSERT_TRUE(run_fp64_tload(h, 1, 1).ok());
  EXPECT_EQ(h.file.tile(h.destination()).read_raw(2 * 4 + 1), gm_value(1, 2));
}

// TileOperandsLegal_TLOAD needs TileDescriptorLegal: a fractal destination
// of 4 rows (128 bytes) is not a whole fractal, Fault_TileLegality after the
// allocation, which is rolled back; no GM byte is read into a tile.
TEST(LayoutConversion, TloadFractalDestinationShapeIsTileLegalityAfterAllocation) {
  for (const unsigned code : {3U, 4U, 8U, 9U, 20U, 30U}) {
    BundleTestHost h;
    fill_gm(h, 2, 3);
    const auto o = run_fp64_tload(h, code, 1);
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << code;
    EXPECT_FALSE(o.trace.destinations.empty()) << code;  // the check follows the allocation
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U) << code;
    EXPECT_FALSE(h.file.tile(0).allocated()) << code;
  }
}

// A present B.DATR makes its DataType field (zero: FP64, BundleDataTypeConcrete)
// the effective destination type of ordinary TLOAD: BSTART.TLOAD U32 with
// ND2DN loads 8-byte FP64 elements.  The omitted-B.IOR pitch still derives
// from the BSTART type (BundleTileInstructionOperands): 2 columns x 4 bytes,
// so d(0, 1) and d(1, 0) both read GM[8..16).
TEST(LayoutConversion, TloadWithBdatrLoadsTheFp64EffectiveType) {
  BundleTestHost h;
  h.m.memory.write(0, 8, 0x1111);
  h.m.memory.write(8, 8, 0x2222);
  h.m.memory.write(16, 8, 0x3333);
  const auto o = h.run({tload_start(kU32), datr(1), bdim(0, 2), bdim(1, 2),
                        encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}), kBstop});
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  const tile::TileIndex d = h.destination();
  EXPECT_EQ(h.file.tile(d).descriptor().data_type, DataType::FP64);
  EXPECT_EQ(h.file.tile(d).descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(element_at(h, d, 0, 0), 0x1111U);
  EXPECT_EQ(element_at(h, d, 0, 1), 0x2222U);
  EXPECT_EQ(element_at(h, d, 1, 0), 0x2222U);
  EXPECT_EQ(element_at(h, d, 1, 1), 0x3333U);
}

// TSTORE has no layout rule (TileOperandsLegal_TSTORE, load-store.asl
// TSTORE): a source of any layout is stored by logical (r, c), whatever
// pair the Layout names.
TEST(LayoutConversion, TstoreStoresAnySourceLayoutByLogicalElement) {
  const std::pair<unsigned, TileLayout> cases[] = {{1, TileLayout::ColumnMajor},
                                                   {1, TileLayout::RowMajor},
                                                   {3, TileLayout::NZ},
                                                   {27, TileLayout::ZN}};
  for (const auto& [code, layout] : cases) {
    BundleTestHost h;
    configure(h, 5, 512, 4, 2, 3, DataType::FP64, layout);
    for (std::uint32_t r = 0; r < 2; ++r)
      for (std::uint32_t c = 0; c < 3; ++c) h.file.tile(5).write_element(r, c, gm_value(r, c));
    h.gpr[2] = kGmBase;
    h.gpr[3] = kGmPitch;
    const auto o = h.run({tstore_start(kFP64), datr(code), encode_form(kBIotSrc, {{"SrcTile0", 5}, {"PEMode", 7}, {"L", 1}}),
                          bior(2, 3), kBstop});
    ASSERT_TRUE(o.ok()) << code << " " << o.message << o.trace.outcome;
    for (std::uint32_t r = 0; r < 2; ++r)
      for (std::uint32_t c = 0; c < 3; ++c)
        EXPECT_EQ(h.m.memory.read(kGmBase + r * kGmPitch + c * 8, 8), gm_value(r, c)) << code << " " << r << c;
    EXPECT_EQ(h.m.memory.read(kGmBase + 3 * 8, 8), 0U) << code;  // column 3 is outside the valid region
  }
}

// TMOV: the destination is placed in CurrentBundleTileLayout and
// TileOperandsLegal_TMOV (TileShapeAndTypeMatch) compares layouts, so the
// source must already have the pair's destination layout; the copy is
// element for element (TMOV, shared-movement.asl).
TEST(LayoutConversion, TmovCopiesASourceOfThePlacedLayout) {
  BundleTestHost h;
  configure(h, 5, 128, 4, 2, 3, DataType::FP64, TileLayout::ColumnMajor);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 3; ++c) h.file.tile(5).write_element(r, c, gm_value(r, c));
  const auto o = h.run({tmov_start(kFP64), datr(1), encode_form(kBIotSrcDst, {{"SrcTile0", 5}, {"SizeCode", 1},
                                                                               {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
                        kBstop});
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  const tile::Tile& t = h.file.tile(h.destination());
  EXPECT_EQ(t.descriptor().layout, TileLayout::ColumnMajor);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 3; ++c) EXPECT_EQ(element_at(h, h.destination(), r, c), gm_value(r, c));
  EXPECT_EQ(t.read_raw(2 * 4 + 1), gm_value(1, 2));  // d(1, 2) column-major in 4 rows
  EXPECT_TRUE(t.contents_defined());
}

// A source whose layout differs from the placed one, or (a present B.DATR
// makes the destination FP64) whose type is not FP64: Fault_TileLegality in
// TileOperandsLegal_TMOV, after the allocation, rolled back.
TEST(LayoutConversion, TmovLayoutOrTypeMismatchIsTileLegalityAfterAllocation) {
  struct Case {
    const char* what;
    unsigned code;
    DataType type;
    unsigned bstart_type;
  };
  for (const Case& c : {Case{"ColumnMajor source, ND2ZN places ZN", 3, DataType::FP64, kFP64},
                        Case{"ColumnMajor source, DN2ND places RowMajor", 6, DataType::FP64, kFP64},
                        Case{"FP32 source, ND2DN places an FP64 ColumnMajor tile", 1, DataType::FP32, kFP32}}) {
    BundleTestHost h;
    configure(h, 5, 128, 4, 2, 3, c.type, TileLayout::ColumnMajor);
    for (std::uint32_t r = 0; r < 2; ++r)
      for (std::uint32_t k = 0; k < 3; ++k) h.file.tile(5).write_element(r, k, 1);
    const std::uint64_t in_use = h.file.core_capacity_in_use();
    const auto o = h.run({tmov_start(c.bstart_type), datr(c.code),
                          encode_form(kBIotSrcDst, {{"SrcTile0", 5}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
                          kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << c.what;
    EXPECT_FALSE(o.trace.destinations.empty()) << c.what;
    EXPECT_EQ(h.file.core_capacity_in_use(), in_use) << c.what;
  }
}

}  // namespace
}  // namespace pto::test
