// Layout-and-rearrangement and irregular-and-complex kernels: spec test
// points from /work/spec/tests/asl/tile/{layout-and-rearrangement,
// irregular-and-complex}/** (AVS id in each test name; expected values are
// the points' assertions), independent host-loop checks in the ieee profile,
// and operand-legality rejections hand-derived from the ASL legality units.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <utility>
#include <vector>

#include "ops_harness.hpp"
#include "tile/ops_convert.hpp"

namespace pto::tile::test {
namespace {

using isa::TileOp;

// ------------------------------------------------------------- generation

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TCI_WRAP_001) {
  OpsHarness h;
  h.configure_tile(0, 128, 2, 1, 2, DataType::U16);
  h.configure_tile(1, 128, 2, 1, 2, DataType::U16);
  TileOperands up = OpsHarness::operands(0, {}, ~0ULL);
  TileOperands down = OpsHarness::operands(1, {}, ~0ULL);
  down.flag0 = true;
  ASSERT_TRUE(h.run(TileOp::TCI, up));
  ASSERT_TRUE(h.run(TileOp::TCI, down));
  EXPECT_EQ(h.raw(0, 0, 0), 0xffffU);
  EXPECT_EQ(h.raw(0, 0, 1), 0U);
  EXPECT_EQ(h.raw(1, 0, 0), 0xffffU);
  EXPECT_EQ(h.raw(1, 0, 1), 0xfffeU);
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TTRI_EDGE_001) {
  OpsHarness h;
  h.configure_tile(0, 128, 4, 2, 3, DataType::FP16);
  h.configure_tile(1, 128, 4, 2, 3, DataType::FP16);
  TileOperands lower = OpsHarness::operands(0, {});
  lower.diagonal = -65535;
  TileOperands upper = OpsHarness::operands(1, {});
  upper.diagonal = -65535;
  upper.flag0 = true;
  ASSERT_TRUE(h.run(TileOp::TTRI, lower));
  ASSERT_TRUE(h.run(TileOp::TTRI, upper));
  EXPECT_EQ(h.raw(0, 0, 0), 0U);
  EXPECT_EQ(h.raw(0, 1, 2), 0U);
  EXPECT_EQ(h.raw(1, 0, 0), 0x3c00U);
  EXPECT_EQ(h.raw(1, 1, 2), 0x3c00U);
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TTRI_TYPED_001) {  // lower, diagonal 0; Null padding stays undefined
  OpsHarness h;
  h.configure_tile(0, 128, 4, 2, 3, DataType::FP16);
  ASSERT_TRUE(h.run(TileOp::TTRI, OpsHarness::operands(0, {})));
  EXPECT_EQ(h.raw(0, 0, 0), 0x3c00U);
  EXPECT_EQ(h.raw(0, 0, 1), 0U);
  EXPECT_EQ(h.raw(0, 1, 1), 0x3c00U);
  EXPECT_FALSE(h.tiles.tile(0).element_defined_at(0, 3));
}

// ------------------------------------------------------------------ partial

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TPARTADD_OVERLAP_001) {
  OpsHarness h;
  h.configure_tile(20, 128, 4, 1, 3, DataType::S16);
  h.configure_tile(21, 128, 4, 1, 3, DataType::S16);
  h.configure_tile(22, 128, 2, 1, 2, DataType::S16);
  h.fill(21, {1, 2, 7});
  h.fill(22, {3, 4});
  h.loop(DataType::S16, 3, 1, 4);
  ASSERT_TRUE(h.run(TileOp::TPARTADD, OpsHarness::operands(20, {21, 22})));
  EXPECT_EQ(h.raw(20, 0, 0), 4U);
  EXPECT_EQ(h.raw(20, 0, 1), 6U);
  EXPECT_EQ(h.raw(20, 0, 2), 7U);
}

struct PartialPoint {
  const char* id;
  TileOp op;
  DataType type;
  std::uint64_t left, right, expected;
};

TEST(OpsLayoutIrregular, PartialTypedPoints) {
  const PartialPoint points[] = {
      {"PTO-AVS-TILE-TPARTMAX-U8-001", TileOp::TPARTMAX, DataType::U8, 250, 5, 250},
      {"PTO-AVS-TILE-TPARTMIN-S8-001", TileOp::TPARTMIN, DataType::S8, 0xff, 1, 0xff},
      {"PTO-AVS-TILE-TPARTMUL-WRAP-001", TileOp::TPARTMUL, DataType::U8, 16, 16, 0},
  };
  for (const PartialPoint& p : points) {
    OpsHarness h;
    h.configure_tile(0, 128, 2, 1, 2, p.type);
    h.configure_tile(1, 128, 2, 1, 2, p.type);
    h.configure_tile(2, 128, 2, 1, 1, p.type);
    h.fill(1, {p.left, 9});
    h.fill(2, {p.right});
    h.loop(p.type, 2, 1, 2);
    ASSERT_TRUE(h.run(p.op, OpsHarness::operands(0, {1, 2}))) << p.id;
    EXPECT_EQ(h.raw(0, 0, 0), p.expected) << p.id;
    EXPECT_EQ(h.raw(0, 0, 1), 9U) << p.id << " full-source tail copied";
  }
}

TEST(OpsLayoutIrregular, PartialRejectsUncoveredDestination) {  // TilePartialCoverageLegal
  OpsHarness h;
  h.configure_tile(0, 128, 2, 2, 2, DataType::U8);
  h.configure_tile(1, 128, 2, 1, 2, DataType::U8);
  h.configure_tile(2, 128, 2, 2, 1, DataType::U8);
  h.fill(1, {1});
  h.fill(2, {1});
  h.loop(DataType::U8, 2, 2, 2);
  EXPECT_FALSE(h.legal(TileOp::TPARTADD, OpsHarness::operands(0, {1, 2})));  // (1,1) covered by neither
}

// ------------------------------------------------------------------ sorting

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TSORT_GROUPS_001) {
  OpsHarness h;
  h.configure_tile(60, 256, 4, 2, 4, DataType::FP32);
  h.configure_tile(61, 256, 4, 2, 4, DataType::FP32);
  h.configure_tile(62, 256, 4, 2, 4, DataType::U32);
  h.fill(60, {0x40400000, 0x3f800000, 0x40000000, 0, 0x40c00000, 0x40800000, 0x40a00000, 0x40e00000});
  TileOperands o = OpsHarness::operands(61, {60});
  o.destination[1] = 62;
  o.sort_width = 3;
  ASSERT_TRUE(h.run(TileOp::TSORT, o));
  EXPECT_EQ(h.raw(61, 0, 0), 0x3f800000U);
  EXPECT_EQ(h.raw(61, 0, 2), 0x40400000U);
  EXPECT_EQ(h.raw(61, 0, 3), 0U);
  EXPECT_EQ(h.raw(61, 1, 0), 0x40800000U);
  EXPECT_EQ(h.raw(61, 1, 1), 0x40a00000U);
  EXPECT_EQ(h.raw(61, 1, 2), 0x40c00000U);
  EXPECT_EQ(h.raw(62, 1, 0), 1U);
  EXPECT_EQ(h.raw(62, 1, 1), 2U);
  EXPECT_EQ(h.raw(62, 1, 2), 0U);
  EXPECT_EQ(h.raw(62, 1, 3), 0U);
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TMRGSORT_STABLE_001) {  // +0 (left) before -0 (right)
  OpsHarness h;
  h.configure_tile(30, 256, 2, 1, 2, DataType::FP32);
  h.configure_tile(31, 256, 2, 1, 2, DataType::FP32);
  h.configure_tile(32, 256, 4, 1, 4, DataType::FP32);
  h.fill(30, {0, 0x3f800000});
  h.fill(31, {0x80000000, 0x40000000});
  ASSERT_TRUE(h.run(TileOp::TMRGSORT, OpsHarness::operands(32, {30, 31})));
  EXPECT_EQ(h.raw(32, 0, 0), 0U);
  EXPECT_EQ(h.raw(32, 0, 1), 0x80000000U);
  EXPECT_EQ(h.raw(32, 0, 2), 0x3f800000U);
  EXPECT_EQ(h.raw(32, 0, 3), 0x40000000U);
}

TEST(OpsLayoutIrregular, MergeRejectsUnorderedSource) {  // TileSortSequenceOrdered
  OpsHarness h;
  h.configure_tile(0, 256, 2, 1, 2, DataType::FP32);
  h.configure_tile(1, 256, 2, 1, 2, DataType::FP32);
  h.configure_tile(2, 256, 4, 1, 4, DataType::FP32);
  h.fill(0, {0x40000000, 0x3f800000});  // 2, 1: not ascending
  h.fill(1, {0, 0x3f800000});
  EXPECT_FALSE(h.legal(TileOp::TMRGSORT, OpsHarness::operands(2, {0, 1})));
  TileOperands descending = OpsHarness::operands(2, {0, 1});
  descending.flag0 = true;
  EXPECT_FALSE(h.legal(TileOp::TMRGSORT, descending));  // the right source is ascending
}

// Independent check: stable sort of random FP16 groups (NaNs last, zeros tie).
TEST(OpsLayoutIrregular, SortMatchesHostStableSort) {
  std::mt19937_64 g(21);
  for (bool descending : {false, true})
    for (std::uint8_t width : {1, 5, 32, 64}) {
      OpsHarness h;
      h.configure_tile(0, 2048, 64, 3, 61, DataType::FP16);
      h.configure_tile(1, 2048, 64, 3, 61, DataType::FP16);
      h.configure_tile(2, 4096, 64, 3, 61, DataType::U32);
      const std::uint16_t pool[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7e00, 0x7c00, 0xfc00, 0x4000, 0x3c00};
      for (std::uint32_t r = 0; r < 3; ++r)
        for (std::uint32_t c = 0; c < 61; ++c) h.set(0, r, c, pool[g() % std::size(pool)]);
      TileOperands o = OpsHarness::operands(1, {0});
      o.destination[1] = 2;
      o.sort_width = width;
      o.flag0 = descending;
      ASSERT_TRUE(h.run(TileOp::TSORT, o, NumericProfile::Ieee));
      const auto rank = [&](std::uint16_t v) -> std::pair<bool, float> {  // host order: NaN last, zeros equal
        const float f = host_fp16_to_float(v);
        if (f != f) return {true, 0.0f};
        return {false, descending ? -f : f};
      };
      for (std::uint32_t r = 0; r < 3; ++r)
        for (std::uint32_t begin = 0; begin < 61; begin += width) {
          const std::uint32_t end = std::min<std::uint32_t>(begin + width, 61);
          std::vector<std::uint32_t> idx(end - begin);
          for (std::uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
          std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
            return rank(static_cast<std::uint16_t>(h.raw(0, r, begin + a))) <
                   rank(static_cast<std::uint16_t>(h.raw(0, r, begin + b)));
          });
          for (std::uint32_t i = 0; i < idx.size(); ++i) {
            ASSERT_EQ(h.raw(2, r, begin + i), idx[i]) << "row " << r << " group " << begin;
            ASSERT_EQ(h.raw(1, r, begin + i), h.raw(0, r, begin + idx[i]));
          }
        }
    }
}

// ------------------------------------------------------------- quantization

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TQUANT_SAT_001) {
  const auto rne = num::RoundingMode::RNE;
  for (NumericProfile p : {NumericProfile::Reference, NumericProfile::Ieee}) {
    EXPECT_EQ(ops::quantize_element(0x43480000, 0x3f800000, 0, DataType::S8, rne, true, p).bits, 127U);
    EXPECT_EQ(ops::quantize_element(0x43480000, 0x3f800000, 0, DataType::S8, rne, false, p).bits, 0xc8U);  // -56
  }
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TQUANT_AFFINE_001_and_TDEQUANT_AFFINE_001) {
  OpsHarness h;
  h.configure_tile(0, 128, 2, 1, 2, DataType::FP32);
  h.configure_tile(1, 128, 2, 1, 2, DataType::S8);
  h.configure_tile(2, 128, 2, 1, 2, DataType::FP32);
  h.fill(0, {0x3f800000, 0x40000000});
  h.loop(DataType::FP32, 2, 1, 2);
  TileOperands q = OpsHarness::operands(1, {0}, 0x3f800000);
  ASSERT_TRUE(h.run(TileOp::TQUANT, q));
  EXPECT_EQ(h.raw(1, 0, 0), 1U);
  EXPECT_EQ(h.raw(1, 0, 1), 2U);
  h.loop(DataType::S8, 2, 1, 2);
  ASSERT_TRUE(h.run(TileOp::TDEQUANT, OpsHarness::operands(2, {1}, 0x3f800000)));
  EXPECT_EQ(h.raw(2, 0, 0), 0x3f800000U);
  EXPECT_EQ(h.raw(2, 0, 1), 0x40000000U);
  EXPECT_EQ(h.raw(0, 0, 1), 0x40000000U);  // the source persists
}

TEST(OpsLayoutIrregular, QuantizationLegality) {  // TileQuantizationScaleLegal / ZeroPointLegal
  OpsHarness h;
  h.configure_tile(0, 128, 2, 1, 2, DataType::FP32);
  h.configure_tile(1, 128, 2, 1, 2, DataType::S8);
  h.fill(0, {0x3f800000});
  h.loop(DataType::FP32, 2, 1, 2);
  EXPECT_TRUE(h.legal(TileOp::TQUANT, OpsHarness::operands(1, {0}, 0x3f800000)));
  EXPECT_FALSE(h.legal(TileOp::TQUANT, OpsHarness::operands(1, {0}, 0xbf800000)));  // negative scale
  EXPECT_FALSE(h.legal(TileOp::TQUANT, OpsHarness::operands(1, {0}, 0x7f800000)));  // infinite scale
  EXPECT_FALSE(h.legal(TileOp::TQUANT, OpsHarness::operands(1, {0}, 0)));           // zero scale
  TileOperands zp = OpsHarness::operands(1, {0}, 0x3f800000);
  zp.scalar1 = 0xff;  // not sign-extended for S8
  EXPECT_FALSE(h.legal(TileOp::TQUANT, zp));
  zp.scalar1 = ~0ULL;  // -1 properly extended
  EXPECT_TRUE(h.legal(TileOp::TQUANT, zp));
}

// Independent check of TQUANT (round to nearest even then clamp or wrap).
TEST(OpsLayoutIrregular, QuantizeMatchesHostLoop) {
  std::mt19937_64 g(22);
  std::uniform_real_distribution<float> value(-400.0f, 400.0f);
  for (bool saturating : {false, true}) {
    OpsHarness h;
    h.configure_tile(0, 4096, 64, 5, 61, DataType::FP32);
    h.configure_tile(1, 1024, 64, 5, 61, DataType::U8);
    for (std::uint32_t r = 0; r < 5; ++r)
      for (std::uint32_t c = 0; c < 61; ++c) h.set(0, r, c, std::bit_cast<std::uint32_t>(value(g)));
    h.loop(DataType::FP32, 61, 5, 64);
    TileOperands o = OpsHarness::operands(1, {0}, std::bit_cast<std::uint32_t>(0.75f));
    o.scalar1 = 3;
    o.numeric_control.saturating = saturating;
    ASSERT_TRUE(h.run(TileOp::TQUANT, o, NumericProfile::Ieee));
    for (std::uint32_t r = 0; r < 5; ++r)
      for (std::uint32_t c = 0; c < 61; ++c) {
        const double affine = double{std::bit_cast<float>(static_cast<std::uint32_t>(h.raw(0, r, c)))} * 0.75 + 3;
        auto q = static_cast<std::int64_t>(std::nearbyint(affine));  // host default rounding is RNE
        if (saturating) q = std::clamp<std::int64_t>(q, 0, 255);
        ASSERT_EQ(h.raw(1, r, c), static_cast<std::uint64_t>(q) & 0xff) << affine;
      }
  }
}

// --------------------------------------------------------------- rearrange

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TCONCAT_COLUMNS_001) {
  OpsHarness h;
  h.configure_tile(0, 128, 4, 2, 2, DataType::U32);
  h.configure_tile(1, 128, 4, 2, 1, DataType::U32);
  h.configure_tile(2, 128, 4, 2, 3, DataType::U32);
  h.fill(0, {1, 2, 4, 5});
  h.fill(1, {3, 6});
  ASSERT_TRUE(h.run(TileOp::TCONCAT, OpsHarness::operands(2, {0, 1})));
  for (std::uint32_t c = 0; c < 3; ++c) {
    EXPECT_EQ(h.raw(2, 0, c), c + 1);
    EXPECT_EQ(h.raw(2, 1, c), c + 4);
  }
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TEXTRACT_WINDOW_001) {
  OpsHarness h;
  h.configure_tile(0, 256, 8, 4, 6, DataType::U32);
  h.configure_tile(1, 128, 4, 2, 3, DataType::U32);
  for (std::uint32_t r = 0; r < 4; ++r)
    for (std::uint32_t c = 0; c < 6; ++c) h.set(0, r, c, r * 10 + c);
  TileOperands o = OpsHarness::operands(1, {0});
  o.natural0 = 1;
  o.natural1 = 2;
  ASSERT_TRUE(h.run(TileOp::TEXTRACT, o));
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 3; ++c) EXPECT_EQ(h.raw(1, r, c), (r + 1) * 10 + c + 2);
  o.natural0 = 3;  // the window leaves the source valid region
  EXPECT_FALSE(h.legal(TileOp::TEXTRACT, o));
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TINSERT_OLD_001) {
  OpsHarness h;
  h.configure_tile(0, 256, 8, 3, 4, DataType::U32);  // old destination
  h.configure_tile(1, 128, 4, 1, 2, DataType::U32);  // insertion source
  h.configure_tile(2, 256, 8, 3, 4, DataType::U32);  // new destination
  for (std::uint32_t r = 0; r < 3; ++r)
    for (std::uint32_t c = 0; c < 4; ++c) h.set(0, r, c, 100 + r * 4 + c);
  h.fill(1, {7, 8});
  TileOperands o = OpsHarness::operands(2, {0, 1});
  o.natural0 = 2;
  o.natural1 = 1;
  ASSERT_TRUE(h.run(TileOp::TINSERT, o));
  for (std::uint32_t r = 0; r < 3; ++r)
    for (std::uint32_t c = 0; c < 4; ++c) {
      const bool window = r == 2 && (c == 1 || c == 2);
      EXPECT_EQ(h.raw(2, r, c), window ? (c == 1 ? 7U : 8U) : 100 + r * 4 + c);
    }
  EXPECT_TRUE(h.tiles.tile(2).contents_defined());
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TTRANS_RECT_001) {
  OpsHarness h;
  h.configure_tile(0, 128, 4, 2, 3, DataType::U16);
  h.configure_tile(1, 128, 4, 3, 2, DataType::U16);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 3; ++c) h.set(0, r, c, r * 10 + c);
  ASSERT_TRUE(h.run(TileOp::TTRANS, OpsHarness::operands(1, {0})));
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 3; ++c) EXPECT_EQ(h.raw(1, c, r), r * 10 + c);
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TFILLPAD_SCALAR_001) {
  OpsHarness h;
  h.configure_tile(0, 128, 8, 1, 2, DataType::U8);
  h.configure_tile(1, 256, 8, 2, 3, DataType::U8);
  h.fill(0, {5, 6});
  ASSERT_TRUE(h.run(TileOp::TFILLPAD, OpsHarness::operands(1, {0}, 0x1ab)));
  EXPECT_EQ(h.raw(1, 0, 0), 5U);
  EXPECT_EQ(h.raw(1, 0, 1), 6U);
  const TileDescriptor& d = h.tiles.tile(1).descriptor();
  for (std::uint32_t r = 0; r < d.rows; ++r)
    for (std::uint32_t c = 0; c < d.columns; ++c) {
      if (r == 0 && c < 2) continue;
      ASSERT_EQ(h.raw(1, r, c), 0xabU);
      ASSERT_TRUE(h.tiles.tile(1).element_defined_at(r, c));
    }
}

// Layout ops read through TileLogicalLinearIndex: a ColumnMajor source
// transposes into a RowMajor destination by coordinates, not storage order.
TEST(OpsLayoutIrregular, TransposeFromColumnMajorSource) {
  OpsHarness h;
  ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = 4;
  r.valid_rows = 2;
  r.valid_columns = 3;
  r.data_type = DataType::U32;
  r.layout = TileLayout::ColumnMajor;
  r.mask = 0b1000;
  ASSERT_EQ(h.tiles.configure(0, r), FaultCode::Fault_None);
  h.configure_tile(1, 128, 4, 3, 2, DataType::U32);
  for (std::uint32_t row = 0; row < 2; ++row)
    for (std::uint32_t c = 0; c < 3; ++c) h.set(0, row, c, row * 10 + c);
  ASSERT_TRUE(h.run(TileOp::TTRANS, OpsHarness::operands(1, {0})));
  for (std::uint32_t row = 0; row < 2; ++row)
    for (std::uint32_t c = 0; c < 3; ++c) EXPECT_EQ(h.raw(1, c, row), row * 10 + c);
}

// ----------------------------------------------------------- gather/scatter

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TSCATTER_ROWS_001) {
  OpsHarness h;
  h.configure_tile(40, 128, 2, 2, 2, DataType::U16);
  h.configure_tile(41, 128, 2, 2, 2, DataType::U16);
  h.configure_tile(42, 128, 2, 4, 2, DataType::U16);
  h.fill(40, {10, 11, 20, 21});
  h.fill(41, {2, 0, 3, 1});
  h.set(42, 0, 0, 99);
  ASSERT_TRUE(h.run(TileOp::TSCATTER, OpsHarness::operands(42, {40, 41})));
  EXPECT_EQ(h.raw(42, 2, 0), 10U);
  EXPECT_EQ(h.raw(42, 0, 1), 11U);
  EXPECT_EQ(h.raw(42, 3, 0), 20U);
  EXPECT_EQ(h.raw(42, 1, 1), 21U);
  EXPECT_EQ(h.raw(42, 0, 0), 0U);
  EXPECT_EQ(h.raw(42, 3, 1), 0U);
  h.set(41, 1, 1, 0);  // two sources now target (0, 1)
  EXPECT_FALSE(h.legal(TileOp::TSCATTER, OpsHarness::operands(42, {40, 41})));
}

TEST(OpsLayoutIrregular, PTO_AVS_TILE_TGATHER_ROWS_001) {  // destination[r,c] = source[index[r,c], c]
  OpsHarness h;
  h.configure_tile(0, 128, 2, 3, 2, DataType::U32);
  h.configure_tile(1, 128, 2, 2, 2, DataType::S32);
  h.configure_tile(2, 128, 2, 2, 2, DataType::U32);
  h.fill(0, {10, 11, 20, 21, 30, 31});
  h.fill(1, {2, 0, 1, 2});
  ASSERT_TRUE(h.run(TileOp::TGATHER, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.raw(2, 0, 0), 30U);
  EXPECT_EQ(h.raw(2, 0, 1), 11U);
  EXPECT_EQ(h.raw(2, 1, 0), 20U);
  EXPECT_EQ(h.raw(2, 1, 1), 31U);
  h.set(1, 1, 1, static_cast<std::uint64_t>(-1));  // negative row index
  EXPECT_FALSE(h.legal(TileOp::TGATHER, OpsHarness::operands(2, {0, 1})));
  h.set(1, 1, 1, 3);  // beyond the source valid rows
  EXPECT_FALSE(h.legal(TileOp::TGATHER, OpsHarness::operands(2, {0, 1})));
}

}  // namespace
}  // namespace pto::tile::test
