// TCMP, TCMPS, TSEL, TSELS, THISTOGRAM, TIMG2COL and the numeric status
// flags tile kernels record.
//
// Spec test points translated from /work/spec/tests/asl/tile/{elementwise-
// tile-tile/logical/{TCMP,TSEL}, tile-scalar-and-immediate/logical/{TCMPS,
// TSELS}, irregular-and-complex/initialization/THISTOGRAM, layout-and-
// rearrangement/layout/TIMG2COL, model/...}/** keep their AVS id in the test
// name; expected values are the points' own assertions (reference profile).
// Points that drive ExecuteBundleTileOperation are split where this model
// differs: the schema, destination plan, operand legality and semantics run
// through the kernel; the predicate destination allocation
// (ResolveBundlePredicateDestination) is simulated with the descriptor the
// ASL configures, because the engine does not allocate predicate tiles yet
// (see docs/semantics-notes.md).  The ieee-profile checks at the end compare
// random tiles with plain host loops written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "bundle_test_host.hpp"
#include "ops_harness.hpp"
#include "tile_request.hpp"
#include "tile/ops_compare.hpp"
#include "tile/ops_img2col.hpp"
#include "tile/tile_contracts.hpp"

namespace pto::tile::test {
namespace {

using isa::TileOp;

const TileKernel& kernel(const OpsHarness& h, TileOp op) {
  const TileKernel* k = h.table.get(op);
  EXPECT_NE(k, nullptr);
  return *k;
}

// AddBundleTileBinding(destination_valid, hand 0, size, mask, source0_valid,
// source1_valid, source0, source1, last).
void add_binding(arch::BlockState& b, unsigned slot, bool destination, unsigned size, std::optional<TileIndex> s0,
          std::optional<TileIndex> s1, bool last, std::uint8_t mask = 0b1111) {
  arch::BundleTileBinding& t = b.tile_bindings[slot];
  t = {};
  t.valid = true;
  t.destination_valid = destination;
  t.destination_size = static_cast<std::uint8_t>(size);
  t.pe_mask = mask;
  t.source0_valid = s0.has_value();
  t.source1_valid = s1.has_value();
  t.source0 = s0.value_or(0);
  t.source1 = s1.value_or(0);
  t.last = last;
}

// BSTART DataType and B.DIM LB0 only (ValidRow 1, Col = ValidCol).
void start(arch::BlockState& b, DataType t, std::uint32_t valid_columns) {
  b.operation.data_type_valid = true;
  b.operation.data_type = num::code_of(t);
  b.dimensions[0] = valid_columns;
  b.dimension_present[0] = true;
}

// The descriptor ResolveBundlePredicateDestination configures from the
// first source binding (SizeCode bytes, the source's Row/Col/ValidRow/ValidCol).
void allocate_predicate(OpsHarness& h, TileIndex destination, TileIndex source, unsigned size_code) {
  const TileDescriptor& s = h.tiles.tile(source).descriptor();
  h.configure_predicate(destination, size_code_bytes(size_code), s.rows, s.columns, s.valid_rows, s.valid_columns);
}

TileOperands with_comparison(TileOperands o, TileComparison c) {
  o.comparison = c;
  return o;
}

// An expected element: [row, column] of a tile holds `word`.
struct Word {
  std::uint32_t row, column;
  std::uint64_t word;
};

template <typename Harness>
void expect_words(const Harness& h, TileIndex tile, std::initializer_list<Word> expected) {
  for (const Word& w : expected)
    EXPECT_EQ(h.word(tile, w.row, w.column), w.word) << "tile " << unsigned{tile} << " [" << w.row << ", " << w.column << "]";
}

// The closed schemas read their sources before allocation: give every bound
// numeric source type t, the 1 x 2 loop shape and a defined all-zero payload
// (a valid encoding of every type); a bound predicate mask takes the same
// physical grid (TileLogicalShapeMatch) with defined bits.
void retype_numeric_sources(OpsHarness& h, DataType t) {
  std::uint32_t rows = 0;
  std::vector<TileIndex> masks;
  for (const arch::BundleTileBinding& b : h.bundle.tile_bindings) {
    if (!b.valid) continue;
    for (const auto& [valid, index] : {std::pair{b.source0_valid, b.source0}, std::pair{b.source1_valid, b.source1}}) {
      if (!valid) continue;
      const Tile& tile = h.tiles.tile(index);
      if (tile.allocated() && tile.descriptor().storage_kind == TileStorageKind::Predicate) {
        masks.push_back(index);
        continue;
      }
      h.tiles.release(index);
      h.configure(index, t, 2, 1, 2);
      h.fill(index, {0});
      rows = h.tiles.tile(index).descriptor().rows;
    }
  }
  for (const TileIndex m : masks) {
    h.tiles.release(m);
    h.configure_predicate(m, 128, rows, 2, 1, 2);
    h.set_predicate_bit(m, 0, 0, true);
    h.set_predicate_bit(m, 0, 1, false);
  }
}

// A *-types-001 point through the schema: each accepted data type is legal,
// each rejected one is not (sources of that type).
void expect_schema_types(OpsHarness& h, TileOp op, std::initializer_list<DataType> accepted,
                         std::initializer_list<DataType> rejected) {
  for (const DataType t : accepted) {
    start(h.bundle, t, 2);
    retype_numeric_sources(h, t);
    EXPECT_TRUE(kernel(h, op).schema_legal(h.schema_view())) << num::name(t);
  }
  for (const DataType t : rejected) {
    start(h.bundle, t, 2);
    retype_numeric_sources(h, t);
    EXPECT_FALSE(kernel(h, op).schema_legal(h.schema_view())) << num::name(t);
  }
}

// Engine-test tile on every PE: 128 bytes, one valid row.
ConfigureRequest engine_request(DataType t, std::uint32_t columns = 2, std::uint32_t valid_columns = 2) {
  ConfigureRequest r = u32_request(128, columns, 1, valid_columns);
  r.data_type = t;
  return r;
}

// ================================================================ TCMP

// tests/asl/tile/elementwise-tile-tile/logical/TCMP/tile-bound-tcmp-modes-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_MODES_001) {
  OpsHarness h;
  h.configure(1, DataType::U64, 2, 1, 2);
  h.configure(2, DataType::U64, 2, 1, 2);
  h.fill(1, {1});
  h.fill(2, {1});
  start(h.bundle, DataType::U64, 2);
  add_binding(h.bundle, 0, true, 1, 1, 2, true);
  for (unsigned code = 0; code < 8; ++code) {
    h.bundle.data_attributes.comparison_mode = static_cast<std::uint8_t>(code);
    EXPECT_EQ(kernel(h, TileOp::TCMP).schema_legal(h.schema_view()), code <= 5) << code;
  }
  using C = TileComparison;
  EXPECT_TRUE(ops::compare_boolean(C::EQ, false, true));
  EXPECT_TRUE(ops::compare_boolean(C::NE, false, false));
  EXPECT_TRUE(ops::compare_boolean(C::LT, true, false));
  EXPECT_TRUE(ops::compare_boolean(C::GT, false, false));
  EXPECT_TRUE(ops::compare_boolean(C::LE, false, true));
  EXPECT_TRUE(ops::compare_boolean(C::GE, false, true));
}

// tile-bound-tcmp-types-001.asl: TileCompareDataTypeSupported through the schema.
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_TYPES_001) {
  OpsHarness h;
  add_binding(h.bundle, 0, true, 1, 1, 2, true);
  expect_schema_types(h, TileOp::TCMP,
                      {DataType::FP32, DataType::FP64, DataType::TF32, DataType::HF32, DataType::FP16, DataType::BF16,
                       DataType::E4M3, DataType::E5M2, DataType::S64, DataType::S32, DataType::S16, DataType::S8,
                       DataType::U64, DataType::U32, DataType::U16, DataType::U8},
                      {DataType::HiF8, DataType::U4X2});
}

// tile-bound-tcmp-datr-001.asl (catalog datr_contract of TCMP).
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_DATR_001) {
  arch::BlockState b;
  b.data_attributes_present = true;
  b.data_attributes.data_type = 0;
  b.data_attributes.comparison_mode = 5;
  b.data_attributes.pad_value = 1;
  EXPECT_TRUE(datr_fields_legal(TileOp::TCMP, b));
  b.data_attributes.comparison_mode = 0;
  b.data_attributes.pad_value = 0;
  b.data_attributes.saturating = true;
  EXPECT_FALSE(datr_fields_legal(TileOp::TCMP, b));
  b.data_attributes.saturating = false;
  b.data_attributes.data_type = 1;
  EXPECT_FALSE(datr_fields_legal(TileOp::TCMP, b));
}

// tile-exec-tcmp-order-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_ORDER_001) {
  const auto p = NumericProfile::Reference;
  using C = TileComparison;
  EXPECT_EQ(ops::compare_element(C::LT, DataType::S8, 0xff, 1, p), (ops::CompareOutcome{true, 0}));
  EXPECT_EQ(ops::compare_element(C::LT, DataType::U8, 0xff, 1, p), (ops::CompareOutcome{false, 0}));
  EXPECT_EQ(ops::compare_element(C::EQ, DataType::FP32, 0x80000000, 0, p), (ops::CompareOutcome{true, 0}));
  EXPECT_EQ(ops::compare_element(C::EQ, DataType::FP32, 0x7f800001, 0x3f800000, p),
            (ops::CompareOutcome{false, num::kNV}));
}

// tile-exec-tcmp-packed-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_PACKED_001) {
  OpsHarness h;
  h.configure(0, DataType::U8, 16, 1, 10);
  h.configure(1, DataType::U8, 16, 1, 10);
  h.configure_predicate(2, 128, 8, 16, 1, 10);
  for (std::uint32_t c = 0; c < 10; ++c) {
    h.set(0, 0, c, c);
    h.set(1, 0, c, c % 2 == 0 ? c : 0);
  }
  ASSERT_TRUE(h.run(TileOp::TCMP, with_comparison(OpsHarness::operands(2, {0, 1}), TileComparison::EQ)));
  EXPECT_EQ(h.predicate_byte(2, 0), 0b01010101U);
  EXPECT_EQ(h.predicate_byte(2, 1), 0b00000001U);
  EXPECT_TRUE(h.predicate_bit_defined(2, 0, 9));
}

// tile-fault-tcmp-capacity-001.asl: 64x128 U8 sources need 1024 predicate
// bytes; SizeCode 1 (128 bytes) fails with Fault_TileAllocation before any
// destination is allocated.
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_CAPACITY_001) {
  OpsHarness h;
  h.configure(1, DataType::U8, 128, 64, 128, 8192);
  h.configure(2, DataType::U8, 128, 64, 128, 8192);
  h.tiles.tile(1).mark_valid_region_defined();
  h.tiles.tile(2).mark_valid_region_defined();
  h.loop(DataType::U8, 128, 64, 128);
  add_binding(h.bundle, 0, true, 1, 1, 2, true, 0b0001);
  const TileKernel& k = kernel(h, TileOp::TCMP);
  ASSERT_TRUE(k.schema_legal(h.schema_view()));
  EXPECT_EQ(k.destinations(h.bundle, h.tiles).fault, FaultCode::Fault_TileAllocation);
  EXPECT_TRUE(h.tiles.tile(1).allocated() && h.tiles.tile(2).allocated());
}

struct TcmpBundle : OpsHarness {
  TcmpBundle() {
    configure(1, DataType::U64, 2, 1, 2);
    configure(2, DataType::U64, 2, 1, 2);
    start(bundle, DataType::U64, 2);
    add_binding(bundle, 0, true, 1, 1, 2, true);
  }
};

// tile-fault-tcmp-schema-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_SCHEMA_001) {
  {
    TcmpBundle h;
    h.fill(1, {3, 4});
    h.fill(2, {5, 6});
    const TileKernel& k = kernel(h, TileOp::TCMP);
    ASSERT_TRUE(k.schema_legal(h.schema_view()));
    const DestinationPlan plan = k.destinations(h.bundle, h.tiles);
    EXPECT_EQ(plan.fault, FaultCode::Fault_None);
    EXPECT_TRUE(plan.predicate);
    h.bundle.scalar_bindings[0] = {true, 0, 1, 0, 0, 1};  // SetBundleScalarBinding(0, 0, 1, 0, 0, 1)
    EXPECT_FALSE(k.schema_legal(h.schema_view()));
  }
  {
    TcmpBundle h;
    h.fill(1, {3, 4});
    TileDescriptor hif8 = h.tiles.tile(2).descriptor();
    hif8.data_type = DataType::HiF8;  // _Tiles[[2]].data_type = TileDataType_HiF8
    h.tiles.tile(2).configure(hif8);
    h.fill(2, {5, 6});
    EXPECT_FALSE(kernel(h, TileOp::TCMP).schema_legal(h.schema_view()));  // Fault_TileLegality before allocation
  }
  {
    TcmpBundle h;
    h.fill(1, {3, 4});
    h.fill(2, {5, 6});
    h.bundle.dimension_present[0] = false;
    EXPECT_FALSE(kernel(h, TileOp::TCMP).schema_legal(h.schema_view()));
  }
}

// tile-exec-tcmp-bundle-001.asl: canonical TCMP U64 bundle (BSTART
// 0xc0d19181, LB0=2, B.IOT 1, 2, mask 1111, last, ->T<1>).
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_BUNDLE_001) {
  TcmpBundle h;
  h.fill(1, {7, 9});
  h.fill(2, {7, 8});
  const TileKernel& k = kernel(h, TileOp::TCMP);
  ASSERT_TRUE(k.schema_legal(h.schema_view()));
  ASSERT_TRUE(k.destinations(h.bundle, h.tiles).predicate);
  allocate_predicate(h, 0, 1, 1);
  ASSERT_TRUE(h.run(TileOp::TCMP, OpsHarness::operands(0, {1, 2})));  // omitted B.DATR: EQ, Null padding
  const TileDescriptor& d = h.tiles.tile(0).descriptor();
  EXPECT_EQ(d.storage_kind, TileStorageKind::Predicate);
  EXPECT_EQ(d.rows, h.tiles.tile(1).descriptor().rows);
  EXPECT_EQ(d.columns, h.tiles.tile(1).descriptor().columns);
  EXPECT_EQ(d.valid_rows, 1U);
  EXPECT_EQ(d.valid_columns, 2U);
  EXPECT_EQ(h.predicate_byte(0, 0), 0b00000001U);
  EXPECT_EQ(h.word(1, 0, 1), 9U);
  EXPECT_EQ(h.word(2, 0, 1), 8U);
}

// tile-state-tcmp-padding-001.asl, through the compare that applies
// PredicateTileWithPadding: Max defines padding bits as one, Null leaves
// them undefined.
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMP_PADDING_001) {
  for (const PadValue pad : {PadValue::Max, PadValue::Null}) {
    OpsHarness h;
    h.configure(1, DataType::U8, 8, 1, 2);
    h.configure(2, DataType::U8, 8, 1, 2);
    h.fill(1, {0, 1});
    h.fill(2, {1, 1});
    h.configure_predicate(0, 128, 16, 8, 1, 2);
    ASSERT_TRUE(h.run(TileOp::TCMP, OpsHarness::operands(0, {1, 2}), NumericProfile::Reference, pad));
    EXPECT_FALSE(ops::predicate_bit(h.tiles.tile(0), 0, 0));
    EXPECT_TRUE(ops::predicate_bit(h.tiles.tile(0), 0, 1));
    if (pad == PadValue::Max) {
      EXPECT_TRUE(ops::predicate_bit(h.tiles.tile(0), 0, 2));
      EXPECT_TRUE(h.predicate_bit_defined(0, 1, 7));
    } else {
      EXPECT_FALSE(h.predicate_bit_defined(0, 0, 2));
    }
  }
}

// A TCMP bundle allocates its predicate destination in the destination's
// hand (ResolveBundlePredicateDestination): U8 predicate storage shaped like
// source0, one defined bit per compared element.  B.DATR is omitted, so the
// comparison is CMode 0 = EQ; 7 == 7 and 9 != 8 (hand derivation).
TEST(OpsCompareEngine, TcmpAllocatesAPredicateDestinationThatTselConsumes) {
  pto::test::BundleTestHost h;
  const ConfigureRequest r = engine_request(DataType::U64);
  ASSERT_EQ(h.file.configure(17, r), FaultCode::Fault_None);
  ASSERT_EQ(h.file.configure(18, r), FaultCode::Fault_None);
  h.file.tile(17).write_element(0, 0, 7);
  h.file.tile(17).write_element(0, 1, 9);
  h.file.tile(18).write_element(0, 0, 7);
  h.file.tile(18).write_element(0, 1, 8);
  const auto o = h.run({0xc0d19181, pto::test::bdim(0, 2),
                        pto::test::encode_form(pto::test::kBIotSrcSrcDst,
                                               {{"SrcTile0", 17}, {"SrcTile1", 18}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}),
                        pto::test::kBstop});
  ASSERT_TRUE(o.ok()) << o.message;
  const TileIndex p = h.destination();
  EXPECT_EQ(p, 0U);  // first free index of hand T
  const TileDescriptor& d = h.file.tile(p).descriptor();
  EXPECT_EQ(d.storage_kind, TileStorageKind::Predicate);
  EXPECT_EQ(d.data_type, DataType::U8);
  EXPECT_EQ(d.rows, h.file.tile(17).descriptor().rows);
  EXPECT_EQ(d.columns, 2U);
  EXPECT_EQ(d.valid_columns, 2U);
  EXPECT_EQ(h.file.allocation_mask(p), 0b1111);
  EXPECT_EQ(static_cast<unsigned>(h.file.tile(p).payload()[0]) & 0b11U, 0b01U);
  EXPECT_TRUE(h.file.tile(p).element_defined(0));
  EXPECT_TRUE(h.file.tile(p).element_defined(1));
  EXPECT_TRUE(h.file.descriptor_legal(p));

  // The predicate then drives a TSEL U64 bundle (selector 0x01A, DataType 24, LB0 = 2):
  // mask T0, true T17, false T18 -> a destination renamed to T1 holding
  // {7 (bit set: true), 8 (bit clear: false)}.
  const auto sel = h.run({0xc1a19181, pto::test::bdim(0, 2),
                          pto::test::encode_form(pto::test::kBIotSrcSrc, {{"SrcTile0", p}, {"SrcTile1", 17}, {"PEMode", 7}}),
                          pto::test::encode_form(pto::test::kBIotSrcDst,
                                                 {{"SrcTile0", 18}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}),
                          pto::test::kBstop});
  ASSERT_TRUE(sel.ok()) << sel.message << sel.trace.outcome;
  const TileIndex out = h.destination();
  EXPECT_EQ(out, 1U);
  EXPECT_EQ(h.file.tile(out).read_raw(0), 7U);
  EXPECT_EQ(h.file.tile(out).read_raw(1), 8U);
}

// ================================================================ TCMPS

// tests/asl/tile/tile-scalar-and-immediate/logical/TCMPS/tile-bound-tcmps-mask-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMPS_MASK_001) {
  for (const bool predicate : {true, false}) {
    OpsHarness h;
    h.configure(0, DataType::U64, 2, 1, 2);
    h.fill(0, {7, 9});
    if (predicate) h.configure_predicate(1, 128, 8, 2, 1, 2);
    else h.configure(1, DataType::U64, 2, 1, 2);
    EXPECT_EQ(h.legal(TileOp::TCMPS, OpsHarness::operands(1, {0}, 7)), predicate);
  }
}

// tile-exec-tcmps-packed-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMPS_PACKED_001) {
  OpsHarness h;
  h.configure(0, DataType::U8, 16, 1, 10);
  h.configure_predicate(1, 128, 8, 16, 1, 10);
  for (std::uint32_t c = 0; c < 10; ++c) h.set(0, 0, c, c);
  ASSERT_TRUE(h.run(TileOp::TCMPS, with_comparison(OpsHarness::operands(1, {0}, 5), TileComparison::GE)));
  EXPECT_EQ(h.predicate_byte(1, 0), 0b11100000U);
  EXPECT_EQ(h.predicate_byte(1, 1), 0b00000011U);
  EXPECT_TRUE(h.predicate_bit_defined(1, 0, 9));
}

// tile-exec-tcmps-bundle-001.asl: BSTART 0xdad19181 (TCMPS U8), LB0=2,
// B.IOT 1 ->T<1>, B.IOR x2 (GPR 2 = 2).
TEST(OpsCompareSpec, PTO_AVS_TILE_TCMPS_BUNDLE_001) {
  OpsHarness h;
  h.configure(1, DataType::U8, 2, 1, 2);
  h.fill(1, {2, 3});
  start(h.bundle, DataType::U8, 2);
  add_binding(h.bundle, 0, true, 1, 1, std::nullopt, true);
  h.bundle.scalar_bindings[0] = {true, 0, 2, 0, 0, 3};
  const TileKernel& k = kernel(h, TileOp::TCMPS);
  ASSERT_TRUE(k.schema_legal(h.schema_view()));
  ASSERT_TRUE(k.destinations(h.bundle, h.tiles).predicate);
  allocate_predicate(h, 0, 1, 1);
  ASSERT_TRUE(h.run(TileOp::TCMPS, OpsHarness::operands(0, {1}, 2)));
  EXPECT_EQ(h.tiles.tile(0).descriptor().storage_kind, TileStorageKind::Predicate);
  EXPECT_EQ(h.predicate_byte(0, 0), 0b00000001U);
  EXPECT_EQ(h.word(1, 0, 1), 3U);
}

// ================================================================ TSEL

// Predicate tile 1 (bits 1,0), FP32 sources 2 (10, 11) and 3 (20, 21): the
// ConfigureTSELSchema set-up of the TSEL points (BSTART 0x09a19181, LB0=2,
// B.IOT 1, 2; B.IOT 3, last, ->T<1>).
struct TselBundle : OpsHarness {
  TselBundle() {
    configure_predicate(1, 128, 16, 2, 1, 2);
    configure(2, DataType::FP32, 2, 1, 2);
    configure(3, DataType::FP32, 2, 1, 2);
    set_predicate_bit(1, 0, 0, true);
    set_predicate_bit(1, 0, 1, false);
    fill(2, {10, 11});
    fill(3, {20, 21});
    start(bundle, DataType::FP32, 2);
    add_binding(bundle, 0, false, 0, 1, 2, false);
    add_binding(bundle, 1, true, 1, 3, std::nullopt, true);
  }
};

// tests/asl/tile/elementwise-tile-tile/logical/TSEL/tile-exec-tsel-bundle-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_BUNDLE_001) {
  TselBundle h;
  const TileKernel& k = kernel(h, TileOp::TSEL);
  ASSERT_TRUE(k.schema_legal(h.schema_view()));
  const DestinationPlan plan = k.destinations(h.bundle, h.tiles);
  ASSERT_EQ(plan.fault, FaultCode::Fault_None);
  ASSERT_TRUE(plan.explicit_shape);
  h.configure(0, DataType::FP32, plan.columns, plan.valid_rows, plan.valid_columns);  // the renamed T destination
  ASSERT_TRUE(h.run(TileOp::TSEL, OpsHarness::operands(0, {1, 2, 3})));
  EXPECT_EQ(h.tiles.tile(0).descriptor().storage_kind, TileStorageKind::Numeric);
  expect_words(h, 0, {{0, 0, 10U}, {0, 1, 21U}});
  EXPECT_TRUE(ops::predicate_bit(h.tiles.tile(1), 0, 0));
  EXPECT_FALSE(ops::predicate_bit(h.tiles.tile(1), 0, 1));
}

// tile-fault-tsel-schema-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_SCHEMA_001) {
  {
    TselBundle h;
    const TileKernel& k = kernel(h, TileOp::TSEL);
    EXPECT_TRUE(k.schema_legal(h.schema_view()));
    EXPECT_EQ(k.destinations(h.bundle, h.tiles).fault, FaultCode::Fault_None);
    h.bundle.tile_bindings[0].last = true;
    EXPECT_FALSE(k.schema_legal(h.schema_view()));
  }
  {
    TselBundle h;
    h.bundle.scalar_bindings[0] = {true, 0, 1, 0, 0, 1};
    EXPECT_FALSE(kernel(h, TileOp::TSEL).schema_legal(h.schema_view()));
  }
  {
    TselBundle h;
    TileDescriptor u32 = h.tiles.tile(3).descriptor();
    u32.data_type = DataType::U32;  // _Tiles[[3]].data_type = TileDataType_U32 (same shape)
    h.tiles.tile(3).configure(u32);
    h.fill(3, {20, 21});
    EXPECT_FALSE(kernel(h, TileOp::TSEL).schema_legal(h.schema_view()));  // Fault_TileLegality before allocation
  }
}

// tile-bound-tsel-types-001.asl (TileSelectDataTypeSupported through the schema).
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_TYPES_001) {
  TselBundle h;
  expect_schema_types(h, TileOp::TSEL,
                      {DataType::FP32, DataType::TF32, DataType::HF32, DataType::FP16, DataType::BF16, DataType::E4M3,
                       DataType::E5M2, DataType::S32, DataType::S16, DataType::S8, DataType::U32, DataType::U16,
                       DataType::U8, DataType::FP64, DataType::S64, DataType::U64},
                      {DataType::HiF8, DataType::E3M2, DataType::E2M3, DataType::E8M0, DataType::S4X2, DataType::U4X2});
}

// tile-bound-tsel-datr-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_DATR_001) {
  arch::BlockState b;
  b.data_attributes_present = true;
  b.data_attributes.data_type = 0;
  b.data_attributes.pad_value = 2;
  EXPECT_TRUE(datr_fields_legal(TileOp::TSEL, b));
  b.data_attributes.pad_value = 0;
  b.data_attributes.comparison_mode = 1;
  EXPECT_FALSE(datr_fields_legal(TileOp::TSEL, b));
  b.data_attributes.comparison_mode = 0;
  b.data_attributes.rounding_mode = 1;
  EXPECT_FALSE(datr_fields_legal(TileOp::TSEL, b));
}

// tile-exec-tsel-exact-001.asl: a signalling-NaN carrier is copied exactly
// and no numeric status is recorded.
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_EXACT_001) {
  OpsHarness h;
  h.configure_predicate(0, 128, 32, 1, 1, 1);
  for (const TileIndex i : {TileIndex{1}, TileIndex{2}, TileIndex{3}}) h.configure(i, DataType::FP32, 1, 1, 1);
  h.set_predicate_bit(0, 0, 0, true);
  h.set(1, 0, 0, 0x7f800123);
  h.set(2, 0, 0, 0x3f800000);
  ASSERT_TRUE(h.run(TileOp::TSEL, OpsHarness::operands(3, {0, 1, 2})));
  EXPECT_EQ(h.word(3, 0, 0), 0x7f800123U);
  EXPECT_EQ(h.last_flags, 0);
}

// tile-exec-tsel-packed-001.asl (the destination aliases SrcTrue).
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_PACKED_001) {
  OpsHarness h;
  h.configure_predicate(0, 128, 16, 8, 1, 4);
  h.configure(1, DataType::U8, 8, 1, 4);
  h.configure(2, DataType::U8, 8, 1, 4);
  for (std::uint32_t c = 0; c < 4; ++c) {
    h.set_predicate_bit(0, 0, c, c % 2 == 0);
    h.set(1, 0, c, 10 + c);
    h.set(2, 0, c, 20 + c);
  }
  ASSERT_TRUE(h.run(TileOp::TSEL, OpsHarness::operands(1, {0, 1, 2})));
  expect_words(h, 1, {{0, 0, 10U}, {0, 1, 21U}, {0, 2, 12U}, {0, 3, 23U}});
}

// tile-fault-tsel-mask-001.asl: an ordinary numeric tile is not a mask.
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_MASK_001) {
  OpsHarness h;
  for (const TileIndex i : {TileIndex{0}, TileIndex{1}, TileIndex{2}, TileIndex{3}}) h.configure(i, DataType::U8, 8, 1, 2);
  h.fill(0, {0, 1});
  h.fill(1, {1, 2});
  h.fill(2, {3, 4});
  EXPECT_FALSE(h.legal(TileOp::TSEL, OpsHarness::operands(3, {0, 1, 2})));
  h.configure_predicate(0, 128, 16, 8, 1, 2);
  h.set_predicate_bit(0, 0, 0, false);
  h.set_predicate_bit(0, 0, 1, true);
  EXPECT_TRUE(h.legal(TileOp::TSEL, OpsHarness::operands(3, {0, 1, 2})));
}

// tile-state-tsel-padding-001.asl: explicit Min pads FP32 with 0xff7fffff
// (defined); omitted B.DATR leaves the padding undefined.
TEST(OpsCompareSpec, PTO_AVS_TILE_TSEL_PADDING_001) {
  for (const PadValue pad : {PadValue::Min, PadValue::Null}) {
    OpsHarness h;
    h.configure_predicate(0, 128, 16, 2, 1, 1);
    for (const TileIndex i : {TileIndex{1}, TileIndex{2}, TileIndex{3}}) h.configure(i, DataType::FP32, 2, 1, 1);
    h.set_predicate_bit(0, 0, 0, true);
    h.set(1, 0, 0, 7);
    h.set(2, 0, 0, 9);
    ASSERT_TRUE(h.run(TileOp::TSEL, OpsHarness::operands(3, {0, 1, 2}), NumericProfile::Reference, pad));
    EXPECT_EQ(h.tiles.tile(3).element_defined_at(0, 1), pad == PadValue::Min);
    if (pad == PadValue::Min) {
      EXPECT_EQ(h.raw(3, 0, 1), pad_value_for_data_type(PadValue::Min, DataType::FP32));
    }
  }
}

// tile-exec-tsel-mask-zero-001.asl: PE_MASK=0000 completes as a strict no-op.
TEST(OpsCompareEngine, PTO_AVS_TILE_TSEL_MASK_ZERO_001) {
  pto::test::BundleTestHost h;
  const auto o = h.run({0x09a19181,
                        pto::test::encode_form(pto::test::kBIotSrcSrc, {{"SrcTile0", 1}, {"SrcTile1", 2}, {"PEMode", 0}}),
                        pto::test::encode_form(pto::test::kBIotSrcDst,
                                               {{"SrcTile0", 3}, {"SizeCode", 1}, {"PEMode", 0}, {"L", 1}}),
                        pto::test::kBstop});
  EXPECT_TRUE(o.ok());
  EXPECT_EQ(h.m.state.last_fault, arch::FaultCode::Fault_None);
  EXPECT_FALSE(h.file.tile(0).allocated());
}

// ================================================================ TSELS

// tests/asl/tile/tile-scalar-and-immediate/logical/TSELS/tile-bound-tsels-mask-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TSELS_MASK_001) {
  OpsHarness h;
  add_binding(h.bundle, 0, true, 1, 0, 1, true);
  h.configure_predicate(0, 128, 16, 2, 1, 2);  // the schema reads the mask and the true source
  h.set_predicate_bit(0, 0, 0, true);
  h.set_predicate_bit(0, 0, 1, false);
  for (const DataType t : {DataType::E3M2, DataType::U64, DataType::U4X2}) {
    start(h.bundle, t, 2);
    retype_numeric_sources(h, t);
    EXPECT_EQ(kernel(h, TileOp::TSELS).schema_legal(h.schema_view()), t == DataType::U64) << num::name(t);
  }
  for (const bool predicate : {true, false}) {
    OpsHarness t;
    t.configure(1, DataType::FP32, 2, 1, 2);
    t.configure(2, DataType::FP32, 2, 1, 2);
    t.fill(1, {10, 11});
    if (predicate) {
      t.configure_predicate(0, 128, 16, 2, 1, 2);
      t.set_predicate_bit(0, 0, 0, true);
      t.set_predicate_bit(0, 0, 1, false);
    } else {
      t.configure(0, DataType::FP32, 2, 1, 2);
      t.fill(0, {1, 0});
    }
    EXPECT_EQ(t.legal(TileOp::TSELS, OpsHarness::operands(2, {0, 1}, 9)), predicate);
  }
}

// tile-exec-tsels-packed-001.asl
TEST(OpsCompareSpec, PTO_AVS_TILE_TSELS_PACKED_001) {
  OpsHarness h;
  h.configure_predicate(0, 128, 16, 2, 1, 2);
  h.configure(1, DataType::FP32, 2, 1, 2);
  h.configure(2, DataType::FP32, 2, 1, 2);
  h.set_predicate_bit(0, 0, 0, false);
  h.set_predicate_bit(0, 0, 1, true);
  h.set(1, 0, 0, 0x7ff8000000000001ULL);  // the FP32 carrier keeps the low word
  h.set(1, 0, 1, 11);
  ASSERT_TRUE(h.run(TileOp::TSELS, OpsHarness::operands(2, {0, 1}, 99)));
  expect_words(h, 2, {{0, 0, 99U}, {0, 1, 11U}});
  EXPECT_EQ(h.last_flags, 0);
}

// tile-exec-tsels-bundle-001.asl: BSTART 0x0ba19181 (TSELS FP32), LB0=2,
// B.IOT 1, 2, last, ->T<1>, B.IOR x3 (GPR 3 = 99).
TEST(OpsCompareSpec, PTO_AVS_TILE_TSELS_BUNDLE_001) {
  OpsHarness h;
  h.configure_predicate(1, 128, 16, 2, 1, 2);
  h.configure(2, DataType::FP32, 2, 1, 2);
  h.set_predicate_bit(1, 0, 0, false);
  h.set_predicate_bit(1, 0, 1, true);
  h.fill(2, {10, 11});
  start(h.bundle, DataType::FP32, 2);
  add_binding(h.bundle, 0, true, 1, 1, 2, true);
  h.bundle.scalar_bindings[0] = {true, 0, 3, 0, 0, 3};
  const TileKernel& k = kernel(h, TileOp::TSELS);
  ASSERT_TRUE(k.schema_legal(h.schema_view()));
  const DestinationPlan plan = k.destinations(h.bundle, h.tiles);
  ASSERT_EQ(plan.fault, FaultCode::Fault_None);
  h.configure(0, DataType::FP32, plan.columns, plan.valid_rows, plan.valid_columns);
  ASSERT_TRUE(h.run(TileOp::TSELS, OpsHarness::operands(0, {1, 2}, 99)));
  expect_words(h, 0, {{0, 0, 99U}, {0, 1, 11U}});
}

// tests/asl/tile/model/execution/elementwise/tile-exec-stage4-carrier-001.asl (TSELS part).
TEST(OpsCompareSpec, PTO_AVS_TILE_STAGE4_CARRIER_001_Tsels) {
  OpsHarness h;
  h.configure_predicate(4, 128, 32, 1, 1, 1);
  h.configure(5, DataType::FP32, 1, 1, 1);
  h.configure(6, DataType::FP32, 1, 1, 1);
  h.set_predicate_bit(4, 0, 0, true);
  h.set(5, 0, 0, 0x3f800001);
  ASSERT_TRUE(h.run(TileOp::TSELS, OpsHarness::operands(6, {4, 5}, 0x12345678)));
  EXPECT_EQ(h.word(6, 0, 0), 0x3f800001U);
}

// ================================================================ THISTOGRAM

TileOperands histogram(TileIndex destination, TileIndex source, TileIndex filter, unsigned byte) {
  TileOperands o = OpsHarness::operands(destination, {source, filter});
  o.selected_byte = static_cast<std::uint8_t>(byte);
  return o;
}

// tests/asl/tile/irregular-and-complex/initialization/THISTOGRAM/tile-bound-thistogram-schema-001.asl
TEST(OpsHistogramSpec, PTO_AVS_TILE_THISTOGRAM_SCHEMA_001) {
  OpsHarness h;
  h.configure(0, DataType::U32, 256, 1, 256, 1024);
  h.configure(1, DataType::U16, 4, 1, 4);
  h.configure(2, DataType::U8, 1, 1, 1);
  h.fill(1, {0});
  h.set(2, 0, 0, 0);
  EXPECT_TRUE(h.legal(TileOp::THISTOGRAM, histogram(0, 1, 2, 0)));
  EXPECT_FALSE(h.legal(TileOp::THISTOGRAM, histogram(0, 1, 2, 2)));  // U16 ByteId 2 is reserved
  h.configure(3, DataType::U32, 512, 1, 257, 2048);
  EXPECT_FALSE(h.legal(TileOp::THISTOGRAM, histogram(3, 1, 2, 0)));  // ValidCol must be 256
  h.configure(4, DataType::S8, 1, 1, 1);
  h.set(4, 0, 0, 0);
  EXPECT_FALSE(h.legal(TileOp::THISTOGRAM, histogram(0, 1, 4, 0)));  // the filter must be U8
}

// tests/asl/block/model/dispatch/histogram-schema/block-bound-thistogram-schema-001.asl:
// the schema needs the (mandatory) B.DATR.
TEST(OpsHistogramSpec, PTO_AVS_BLOCK_THISTOGRAM_SCHEMA_001) {
  OpsHarness h;
  h.configure(16, DataType::U16, 4, 1, 2);
  h.configure(17, DataType::U8, 1, 1, 1);
  h.fill(16, {0});
  h.bundle.operation.data_type_valid = true;
  h.bundle.operation.data_type = num::code_of(DataType::U16);
  h.bundle.data_attributes_present = true;
  h.bundle.data_attributes.data_type_present = true;
  h.bundle.data_attributes.data_type = num::code_of(DataType::U32);
  h.bundle.data_attributes.data_layout = 0;
  h.bundle.data_attributes.pad_value = 1;
  add_binding(h.bundle, 0, true, 4, 16, 17, true);
  const TileKernel& k = kernel(h, TileOp::THISTOGRAM);
  EXPECT_TRUE(k.schema_legal(h.schema_view()));
  EXPECT_EQ(k.destinations(h.bundle, h.tiles).fault, FaultCode::Fault_None);
  h.bundle.data_attributes_present = false;
  EXPECT_FALSE(k.schema_legal(h.schema_view()));
}

// tile-exec-thistogram-prefix-001.asl: U16 ByteId 1 is unfiltered (the
// filter is never written) and the padding row stays undefined.
TEST(OpsHistogramSpec, PTO_AVS_TILE_THISTOGRAM_PREFIX_001) {
  OpsHarness h;
  h.configure(0, DataType::U32, 256, 1, 256, 2048);
  h.configure(1, DataType::U16, 4, 1, 4);
  h.configure(2, DataType::U8, 1, 1, 1);
  h.fill(1, {0x0100, 0x0200, 0x0201, 0xff00});
  ASSERT_TRUE(h.run(TileOp::THISTOGRAM, histogram(0, 1, 2, 1)));
  expect_words(h, 0, {{0, 0, 0U}, {0, 1, 1U}, {0, 2, 3U}, {0, 254, 3U}, {0, 255, 4U}});
  EXPECT_FALSE(h.tiles.tile(0).element_defined_at(1, 0));
}

// tile-exec-thistogram-u16-filter-001.asl: ByteId 0 matches the high byte
// against filter[row, 0].
TEST(OpsHistogramSpec, PTO_AVS_TILE_THISTOGRAM_U16_FILTER_001) {
  OpsHarness h;
  h.configure(0, DataType::U32, 256, 2, 256, 2048);
  h.configure(1, DataType::U16, 4, 2, 2);
  h.configure(2, DataType::U8, 1, 2, 1);
  h.fill(1, {0xaa01, 0xbb02, 0xbb03, 0xaa04});
  h.fill(2, {0xaa, 0xbb});
  ASSERT_TRUE(h.run(TileOp::THISTOGRAM, histogram(0, 1, 2, 0)));
  expect_words(h, 0, {{0, 0, 0U}, {0, 1, 1U}, {0, 255, 1U}, {1, 2, 0U}, {1, 3, 1U}, {1, 255, 1U}});
}

// tile-exec-thistogram-u32-prefix-001.asl: ByteId 0 matches bytes 3, 2, 1
// against a ColumnMajor filter's [0..2, 0].
TEST(OpsHistogramSpec, PTO_AVS_TILE_THISTOGRAM_U32_PREFIX_001) {
  OpsHarness h;
  h.configure(0, DataType::U32, 256, 1, 256, 1024);
  h.configure(1, DataType::U32, 4, 1, 4);
  h.configure(2, DataType::U8, 2, 3, 1, 128, TileLayout::ColumnMajor);
  h.fill(1, {0xaabbcc01, 0xaabbcc02, 0xaabbdd01, 0x11223301});
  h.fill(2, {0xaa, 0xbb, 0xcc});
  ASSERT_TRUE(h.run(TileOp::THISTOGRAM, histogram(0, 1, 2, 0)));
  expect_words(h, 0, {{0, 0, 0U}, {0, 1, 1U}, {0, 2, 2U}, {0, 255, 2U}});
}

// tests/asl/tile/model/execution/complex/tile-exec-complex-operations-001.asl (THISTOGRAM part).
TEST(OpsHistogramSpec, PTO_AVS_TILE_TESTTILECOMPLEX_EXECUTION_001_Thistogram) {
  OpsHarness h;
  h.configure(37, DataType::U32, 256, 1, 256, 2048);
  h.configure(49, DataType::U8, 1, 3, 1, 256);
  h.configure(50, DataType::U32, 4, 1, 4, 256);
  h.fill(49, {0});
  h.fill(50, {0, 1, 1, 3});
  ASSERT_TRUE(h.run(TileOp::THISTOGRAM, histogram(37, 50, 49, 0)));
  expect_words(h, 37, {{0, 0, 1U}, {0, 1, 3U}, {0, 2, 3U}, {0, 3, 4U}});
}

// tile-exec-thistogram-bundle-001.asl through the bundle engine: BSTART.SFU
// THISTOGRAM U16 (Mode 3 Function 8), B.DATR U32 ByteId 1, B.IOT 16, 17,
// mask 1111, last, ->T<4>.
TEST(OpsHistogramEngine, PTO_AVS_TILE_THISTOGRAM_BUNDLE_001) {
  pto::test::BundleTestHost h;
  const auto configure = [&](TileIndex i, DataType t, std::uint32_t columns, std::uint32_t valid_columns) {
    ASSERT_EQ(h.file.configure(i, engine_request(t, columns, valid_columns)), FaultCode::Fault_None);
  };
  configure(16, DataType::U16, 4, 2);
  configure(17, DataType::U8, 1, 1);
  h.file.tile(16).write_element(0, 0, 0x0100);
  h.file.tile(16).write_element(0, 1, 0x0200);
  const std::uint64_t bstart = 0x00019181ULL | (3ULL << 25) | (8ULL << 20) | (26ULL << 27);
  const std::uint64_t datr = 0x1023ULL | (25ULL << 20) | (1ULL << 27);  // DataType U32, PadValueOrByteId 1
  const auto o = h.run({bstart, datr,
                        pto::test::encode_form(pto::test::kBIotSrcSrcDst, {{"SrcTile0", 16},
                                                                           {"SrcTile1", 17},
                                                                           {"SizeCode", 4},
                                                                           {"PEMode", 7},
                                                                           {"L", 1}}),
                        pto::test::kBstop});
  ASSERT_TRUE(o.ok()) << o.message << " " << static_cast<int>(o.fault);
  const Tile& d = h.file.tile(h.destination());
  EXPECT_EQ(d.data_type(), DataType::U32);
  EXPECT_EQ(d.descriptor().valid_rows, 1U);
  EXPECT_EQ(d.descriptor().valid_columns, 256U);
  EXPECT_EQ(d.descriptor().columns, 256U);
  EXPECT_EQ(d.read_word(d.linear_index(0, 1)), 1U);
  EXPECT_EQ(d.read_word(d.linear_index(0, 2)), 2U);
}

// ================================================================ TIMG2COL

// ConfigureTileFeatureMapDescriptor(layout NC1HWC0, N, D, C1, H, W, C0, Kh,
// Kw, Sh, Sw, Dh, Dw, pads 0, logical channels, padding, not transposed).
ops::FeatureMapDescriptor nc1hwc0(std::uint32_t c1, std::uint32_t h, std::uint32_t w, std::uint32_t c0,
                                  std::uint32_t kh, std::uint32_t kw, std::uint32_t logical_channels,
                                  std::uint64_t padding) {
  ops::FeatureMapDescriptor d;
  d.valid = true;
  d.channel_groups = c1;
  d.height = h;
  d.width = w;
  d.channels_per_group = c0;
  d.filter_height = kh;
  d.filter_width = kw;
  d.logical_channels = logical_channels;
  d.padding = padding;
  return d;
}

void matrix_tile(OpsHarness& h, TileIndex i, DataType t, std::uint32_t columns) {
  h.configure(i, t, columns, 1, columns, 128, TileLayout::RowMajor, TileLocation::Matrix);
}

// tests/asl/tile/layout-and-rearrangement/layout/TIMG2COL/tile-exec-timg2col-map-001.asl
TEST(OpsImg2ColSpec, PTO_AVS_TILE_TIMG2COL_MAP_001) {
  OpsHarness h;
  matrix_tile(h, 40, DataType::FP32, 4);
  matrix_tile(h, 41, DataType::FP32, 4);
  h.fill(40, {11, 12, 13, 14});
  const auto d = nc1hwc0(1, 2, 2, 1, 2, 2, 1, 99);
  ASSERT_TRUE(ops::img2col_operands_legal(h.tiles, 41, 40, d, 0, 0));
  ops::img2col(h.tiles.tile(41), h.tiles.tile(40), d, 0, 0);
  for (std::uint32_t c = 0; c < 4; ++c) EXPECT_EQ(h.word(41, 0, c), 11U + c);
  EXPECT_TRUE(h.tiles.tile(40).contents_defined());
  // The registered kernel reads this model's feature-map state, which no
  // instruction can make valid: the same operands are illegal there.
  EXPECT_FALSE(h.legal(TileOp::TIMG2COL, OpsHarness::operands(41, {40})));
}

// tile-exec-timg2col-pad-001.asl: the packed channel beyond the logical
// channel count takes the descriptor padding.
TEST(OpsImg2ColSpec, PTO_AVS_TILE_TIMG2COL_PAD_001) {
  OpsHarness h;
  matrix_tile(h, 42, DataType::S16, 2);
  matrix_tile(h, 43, DataType::S16, 2);
  h.set(42, 0, 0, 21);
  const auto d = nc1hwc0(1, 1, 1, 2, 1, 1, 1, 77);
  ASSERT_TRUE(ops::img2col_operands_legal(h.tiles, 43, 42, d, 0, 0));
  ops::img2col(h.tiles.tile(43), h.tiles.tile(42), d, 0, 0);
  expect_words(h, 43, {{0, 0, 21U}, {0, 1, 77U}});
  EXPECT_TRUE(h.tiles.tile(43).contents_defined());
}

// tests/asl/tile/model/execution/image-to-column/tile-exec-img2col-offset-001.asl
TEST(OpsImg2ColSpec, PTO_AVS_TILE_IMG2COL_OFFSET_001) {
  OpsHarness h;
  matrix_tile(h, 4, DataType::U8, 2);
  matrix_tile(h, 5, DataType::U8, 1);
  h.fill(4, {31, 32});
  const auto d = nc1hwc0(1, 1, 1, 2, 1, 1, 2, 0);
  ASSERT_TRUE(ops::img2col_operands_legal(h.tiles, 5, 4, d, 0, 1));
  ops::img2col(h.tiles.tile(5), h.tiles.tile(4), d, 0, 1);
  EXPECT_EQ(h.word(5, 0, 0), 32U);
}

// tests/asl/tile/model/legality/image-to-column/tile-bound-img2col-range-001.asl
TEST(OpsImg2ColSpec, PTO_AVS_TILE_IMG2COL_RANGE_001) {
  OpsHarness h;
  matrix_tile(h, 2, DataType::U8, 1);
  matrix_tile(h, 3, DataType::U8, 1);
  h.set(2, 0, 0, 5);
  const auto d = nc1hwc0(1, 1, 1, 1, 1, 1, 1, 0);
  EXPECT_TRUE(ops::img2col_operands_legal(h.tiles, 3, 2, d, 0, 0));
  EXPECT_FALSE(ops::img2col_operands_legal(h.tiles, 3, 2, d, 0, 1));
}

// ================================================================ flags

// RecordNumericStatusFlags through the engine: TDIVS records DZ (reference
// profile FP32 division by the omitted-B.IOR zero scalar) into the sticky
// CORE_STATE[36:32] without clearing an earlier NX; TDIV (ExecuteTileBinary)
// records nothing for the same division.
TEST(OpsFlagsEngine, TileScalarRecordsAndTileBinaryDoesNot) {
  for (const TileOp op : {TileOp::TDIVS, TileOp::TDIV}) {
    pto::test::BundleTestHost h;
    const ConfigureRequest r = engine_request(DataType::FP32);
    ASSERT_EQ(h.file.configure(16, r), FaultCode::Fault_None);
    ASSERT_EQ(h.file.configure(17, r), FaultCode::Fault_None);
    for (std::uint32_t c = 0; c < 2; ++c) {
      h.file.tile(16).write_element(0, c, 0x3f800000);
      h.file.tile(17).write_element(0, c, 0);
    }
    h.m.state.sysregs.core_state |= arch::Word{num::kNX} << arch::kCoreStateFlagsShift;
    const isa::TileOpDesc& desc = isa::tile_op(op);
    const std::uint64_t binding =
        op == TileOp::TDIVS
            ? pto::test::encode_form(pto::test::kBIotSrcDst, {{"SrcTile0", 16}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}})
            : pto::test::encode_form(pto::test::kBIotSrcSrcDst,
                                     {{"SrcTile0", 16}, {"SrcTile1", 17}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}});
    const auto o = h.run({pto::test::tepl_start(desc.function, num::code_of(DataType::FP32), desc.mode),
                          pto::test::bdim(0, 2), binding, pto::test::kBstop});
    ASSERT_TRUE(o.ok()) << desc.name << " " << o.message;
    const auto flags = static_cast<num::Flags>((h.m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F);
    EXPECT_EQ(flags, op == TileOp::TDIVS ? num::kNX | num::kDZ : num::kNX) << desc.name;
  }
}

// Kernels hand their semantic flags to the engine: TCMP with a signalling
// NaN source reports NV, TSORT of a signalling NaN reports NV.
TEST(OpsFlags, CompareAndSortReportInvalid) {
  OpsHarness h;
  h.configure(0, DataType::FP32, 2, 1, 2);
  h.configure(1, DataType::FP32, 2, 1, 2);
  h.fill(0, {0x7f800001, 0x3f800000});
  h.fill(1, {0x3f800000, 0x3f800000});
  h.configure_predicate(2, 128, 16, 2, 1, 2);
  ASSERT_TRUE(h.run(TileOp::TCMP, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.last_flags, num::kNV);
  EXPECT_EQ(h.predicate_byte(2, 0), 0b10U);
  h.fill(1, {0x7fc00000, 0x3f800000});  // a quiet NaN is unordered without NV
  ASSERT_TRUE(h.run(TileOp::TCMP, OpsHarness::operands(2, {1, 1})));
  EXPECT_EQ(h.last_flags, 0);

  h.configure(3, DataType::FP32, 2, 1, 2);
  h.configure(4, DataType::U32, 2, 1, 2);
  TileOperands sort = OpsHarness::operands(3, {0});
  sort.destination[1] = 4;
  sort.sort_width = 2;
  ASSERT_TRUE(h.run(TileOp::TSORT, sort));
  EXPECT_EQ(h.last_flags, num::kNV);
}

// ================================================================ ieee profile, random tiles

constexpr auto kIeee = NumericProfile::Ieee;

struct Shape {
  std::uint32_t columns, valid_rows, valid_columns, capacity;
};
constexpr Shape kShapes[] = {{8, 1, 8, 256}, {16, 3, 13, 512}, {64, 5, 61, 4096}};

bool host_signaling_nan(DataType t, std::uint64_t v) {
  switch (t) {
    case DataType::FP64: return (v & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL && (v & 0x000fffffffffffffULL) != 0 &&
                                !(v & 0x0008000000000000ULL);
    case DataType::FP32: return (v & 0x7f800000) == 0x7f800000 && (v & 0x007fffff) != 0 && !(v & 0x00400000);
    case DataType::FP16: return (v & 0x7c00) == 0x7c00 && (v & 0x03ff) != 0 && !(v & 0x0200);
    default: return (v & 0x7f80) == 0x7f80 && (v & 0x007f) != 0 && !(v & 0x0040);  // BF16
  }
}

// The host's value of a carrier (NaN stays NaN, -0 == +0 in host compares).
double host_value(DataType t, std::uint64_t v) {
  switch (t) {
    case DataType::FP64: return std::bit_cast<double>(v);
    case DataType::FP32: return std::bit_cast<float>(static_cast<std::uint32_t>(v));
    case DataType::FP16: return host_fp16_to_float(static_cast<std::uint16_t>(v));
    case DataType::BF16: return std::bit_cast<float>(static_cast<std::uint32_t>(v << 16));
    case DataType::S8: return static_cast<std::int8_t>(v);
    case DataType::S16: return static_cast<std::int16_t>(v);
    case DataType::S32: return static_cast<std::int32_t>(v);
    default: return static_cast<double>(v);  // U8..U32 exactly
  }
}

bool host_compare(TileComparison c, DataType t, std::uint64_t a, std::uint64_t b) {
  if (t == DataType::S64) {
    const auto x = static_cast<std::int64_t>(a), y = static_cast<std::int64_t>(b);
    const bool r[] = {x == y, x != y, x < y, x > y, x <= y, x >= y};
    return r[static_cast<unsigned>(c)];
  }
  if (t == DataType::U64) {
    const bool r[] = {a == b, a != b, a < b, a > b, a <= b, a >= b};
    return r[static_cast<unsigned>(c)];
  }
  const double x = host_value(t, a), y = host_value(t, b);
  const bool r[] = {x == y, x != y, x < y, x > y, x <= y, x >= y};  // EQ NE LT GT LE GE
  return r[static_cast<unsigned>(c)];
}

std::uint64_t random_element(std::mt19937_64& g, DataType t, std::uint64_t partner) {
  const unsigned bits = element_bits(t);
  const std::uint64_t mask = bits == 64 ? ~0ULL : (std::uint64_t{1} << bits) - 1;
  switch (g() % 4) {
    case 0: return partner;                                              // equal
    case 1: return (partner ^ (std::uint64_t{1} << (bits - 1))) & mask;  // sign flipped (covers -0/+0)
    default: return g() & mask;
  }
}

constexpr DataType kCompareTypes[] = {DataType::FP64, DataType::FP32, DataType::FP16, DataType::BF16,
                                      DataType::S8,   DataType::U8,   DataType::S16,  DataType::U16,
                                      DataType::S32,  DataType::U32,  DataType::S64,  DataType::U64};

TEST(OpsIeeeRandomCompare, TcmpAndTcmpsMatchHostComparisons) {
  std::mt19937_64 g(20261130);
  for (const DataType t : kCompareTypes)
    for (const Shape& s : kShapes)
      for (unsigned cmp = 0; cmp < 6; ++cmp) {
        const auto c = static_cast<TileComparison>(cmp);
        OpsHarness h;
        h.configure(0, t, s.columns, s.valid_rows, s.valid_columns, s.capacity);
        h.configure(1, t, s.columns, s.valid_rows, s.valid_columns, s.capacity);
        const TileDescriptor& sd = h.tiles.tile(0).descriptor();
        const std::uint32_t pred_capacity = std::max<std::uint32_t>(128, (sd.rows * sd.columns + 127) / 128 * 128);
        h.configure_predicate(2, pred_capacity, sd.rows, sd.columns, sd.valid_rows, sd.valid_columns);
        for (std::uint32_t r = 0; r < s.valid_rows; ++r)
          for (std::uint32_t col = 0; col < s.valid_columns; ++col) {
            const std::uint64_t a = random_element(g, t, g());
            h.set(0, r, col, a);
            h.set(1, r, col, random_element(g, t, a));
          }
        const std::uint64_t scalar = random_element(g, t, h.raw(0, 0, 0));
        for (const bool tile_tile : {true, false}) {
          const TileOperands o = tile_tile ? with_comparison(OpsHarness::operands(2, {0, 1}), c)
                                           : with_comparison(OpsHarness::operands(2, {0}, scalar), c);
          ASSERT_TRUE(h.run(tile_tile ? TileOp::TCMP : TileOp::TCMPS, o, kIeee, PadValue::Max));
          num::Flags expected_flags = 0;
          for (std::uint32_t r = 0; r < sd.rows; ++r)
            for (std::uint32_t col = 0; col < sd.columns; ++col) {
              const bool valid = r < s.valid_rows && col < s.valid_columns;
              bool expected = true;  // Max padding
              if (valid) {
                const std::uint64_t a = h.raw(0, r, col), b = tile_tile ? h.raw(1, r, col) : scalar;
                expected = host_compare(c, t, a, b);
                if (num::is_float(t) && (host_signaling_nan(t, a) || host_signaling_nan(t, b))) expected_flags = num::kNV;
              }
              ASSERT_EQ(ops::predicate_bit(h.tiles.tile(2), r, col), expected)
                  << num::name(t) << " cmp " << cmp << " at " << r << "," << col;
              ASSERT_TRUE(h.predicate_bit_defined(2, r, col));
            }
          EXPECT_EQ(h.last_flags, expected_flags) << num::name(t) << " cmp " << cmp;
        }
      }
}

TEST(OpsIeeeRandomCompare, TselAndTselsCopyTheSelectedCarrier) {
  std::mt19937_64 g(7);
  for (const DataType t : kCompareTypes)
    for (const Shape& s : kShapes) {
      OpsHarness h;
      for (const TileIndex i : {TileIndex{1}, TileIndex{2}, TileIndex{3}})
        h.configure(i, t, s.columns, s.valid_rows, s.valid_columns, s.capacity);
      const TileDescriptor& sd = h.tiles.tile(1).descriptor();
      h.configure_predicate(0, std::max<std::uint32_t>(128, (sd.rows * sd.columns + 127) / 128 * 128), sd.rows,
                            sd.columns, sd.valid_rows, sd.valid_columns);
      const unsigned bits = element_bits(t);
      const std::uint64_t mask = bits == 64 ? ~0ULL : (std::uint64_t{1} << bits) - 1;
      for (std::uint32_t r = 0; r < s.valid_rows; ++r)
        for (std::uint32_t c = 0; c < s.valid_columns; ++c) {
          h.set_predicate_bit(0, r, c, g() & 1);
          h.set(1, r, c, g() & mask);
          h.set(2, r, c, g() & mask);
        }
      const std::uint64_t scalar = g();
      for (const bool tile_tile : {true, false}) {
        const TileOperands o =
            tile_tile ? OpsHarness::operands(3, {0, 1, 2}) : OpsHarness::operands(3, {0, 1}, scalar);
        ASSERT_TRUE(h.run(tile_tile ? TileOp::TSEL : TileOp::TSELS, o, kIeee, PadValue::Zero));
        EXPECT_EQ(h.last_flags, 0);
        for (std::uint32_t r = 0; r < sd.rows; ++r)
          for (std::uint32_t c = 0; c < sd.columns; ++c) {
            const bool valid = r < s.valid_rows && c < s.valid_columns;
            std::uint64_t expected = 0;  // Zero padding
            if (valid)
              expected = ops::predicate_bit(h.tiles.tile(0), r, c) ? h.raw(1, r, c)
                                                                   : (tile_tile ? h.raw(2, r, c) : scalar & mask);
            ASSERT_EQ(h.raw(3, r, c), expected) << num::name(t) << " at " << r << "," << c;
            ASSERT_TRUE(h.tiles.tile(3).element_defined_at(r, c));
          }
      }
    }
}

TEST(OpsIeeeRandomCompare, HistogramMatchesPlainCounting) {
  std::mt19937_64 g(11);
  for (const DataType t : {DataType::U16, DataType::U32})
    for (unsigned byte = 0; byte < (t == DataType::U16 ? 2U : 4U); ++byte)
      for (const std::uint32_t rows : {1U, 3U}) {
        OpsHarness h;
        h.configure(0, DataType::U32, 256, rows, 256, 4096);
        h.configure(1, t, 64, rows, 61, 1024);
        h.configure(2, DataType::U8, 1, 4, 1, 128);
        std::uint8_t filter[4];
        for (std::uint32_t r = 0; r < 4; ++r) h.set(2, r, 0, filter[r] = static_cast<std::uint8_t>(g() % 3));
        for (std::uint32_t r = 0; r < rows; ++r)
          for (std::uint32_t c = 0; c < 61; ++c) {
            // Small byte values so filters match often.
            std::uint64_t v = 0;
            for (unsigned k = 0; k < element_bits(t) / 8; ++k) v |= (g() % 3) << (8 * k);
            h.set(1, r, c, v);
          }
        TileOperands o = OpsHarness::operands(0, {1, 2});
        o.selected_byte = static_cast<std::uint8_t>(byte);
        ASSERT_TRUE(h.run(TileOp::THISTOGRAM, o, kIeee));
        for (std::uint32_t r = 0; r < rows; ++r) {
          std::uint32_t cumulative = 0;
          for (std::uint32_t bin = 0; bin < 256; ++bin) {
            for (std::uint32_t c = 0; c < 61; ++c) {
              const std::uint64_t v = h.raw(1, r, c);
              const auto b = [&](unsigned k) { return (v >> (8 * k)) & 0xFF; };
              bool pass = true;
              if (t == DataType::U16 && byte == 0) pass = b(1) == filter[r];
              if (t == DataType::U32)
                for (unsigned k = 3; k > byte; --k) pass = pass && b(k) == filter[3 - k];
              if (pass && b(byte) == bin) ++cumulative;
            }
            ASSERT_EQ(h.word(0, r, bin), cumulative) << num::name(t) << " byte " << byte << " row " << r << " bin " << bin;
          }
        }
      }
}

// A plain image-to-column reference: build the full (N*outH*outW) x
// (C1*Kh*Kw*C0) matrix with nested loops, then read the window.
TEST(OpsIeeeRandomCompare, Img2ColMatchesNestedLoopReference) {
  std::mt19937_64 g(3);
  for (unsigned iteration = 0; iteration < 40; ++iteration) {
    ops::FeatureMapDescriptor d;
    d.valid = true;
    d.batches = 1 + g() % 2;
    d.channel_groups = 1 + g() % 2;
    d.height = 2 + g() % 4;
    d.width = 2 + g() % 4;
    d.channels_per_group = 1 + g() % 4;
    d.filter_height = 1 + g() % 3;
    d.filter_width = 1 + g() % 3;
    d.stride_height = 1 + g() % 2;
    d.stride_width = 1 + g() % 2;
    d.dilation_height = 1 + g() % 2;
    d.dilation_width = 1 + g() % 2;
    d.pad_top = g() % 2;
    d.pad_bottom = g() % 2;
    d.pad_left = g() % 2;
    d.pad_right = g() % 2;
    d.logical_channels = 1 + static_cast<std::uint32_t>(g() % (d.channel_groups * d.channels_per_group));
    d.padding = 0xEE;
    const auto extent = [](std::int64_t size, std::int64_t pa, std::int64_t pb, std::int64_t k, std::int64_t dil,
                           std::int64_t stride) -> std::int64_t {
      const std::int64_t span = dil * (k - 1) + 1;
      return size + pa + pb < span ? 0 : (size + pa + pb - span) / stride + 1;
    };
    const std::int64_t oh = extent(d.height, d.pad_top, d.pad_bottom, d.filter_height, d.dilation_height, d.stride_height);
    const std::int64_t ow = extent(d.width, d.pad_left, d.pad_right, d.filter_width, d.dilation_width, d.stride_width);
    if (oh == 0 || ow == 0) continue;
    const std::uint32_t elements = d.batches * d.channel_groups * d.height * d.width * d.channels_per_group;
    OpsHarness h;
    h.configure(0, DataType::U16, 512, 1, elements, 1024, TileLayout::RowMajor, TileLocation::Matrix);
    for (std::uint32_t i = 0; i < elements; ++i) h.set(0, 0, i, g() & 0xFFFF);
    // Reference matrix rows (n, oy, ox), columns (c1, ky, kx, c0).
    const std::int64_t rows = d.batches * oh * ow;
    const std::int64_t columns = std::int64_t{d.channel_groups} * d.filter_height * d.filter_width * d.channels_per_group;
    std::vector<std::uint64_t> matrix;
    for (std::int64_t n = 0; n < d.batches; ++n)
      for (std::int64_t oy = 0; oy < oh; ++oy)
        for (std::int64_t ox = 0; ox < ow; ++ox)
          for (std::int64_t c1 = 0; c1 < d.channel_groups; ++c1)
            for (std::int64_t ky = 0; ky < d.filter_height; ++ky)
              for (std::int64_t kx = 0; kx < d.filter_width; ++kx)
                for (std::int64_t c0 = 0; c0 < d.channels_per_group; ++c0) {
                  const std::int64_t y = oy * d.stride_height + ky * d.dilation_height - d.pad_top;
                  const std::int64_t x = ox * d.stride_width + kx * d.dilation_width - d.pad_left;
                  const bool inside = c1 * d.channels_per_group + c0 < d.logical_channels && y >= 0 && y < d.height &&
                                      x >= 0 && x < d.width;
                  const std::int64_t index =
                      (((n * d.channel_groups + c1) * d.height + y) * d.width + x) * d.channels_per_group + c0;
                  matrix.push_back(inside ? h.raw(0, 0, static_cast<std::uint32_t>(index)) : d.padding);
                }
    const std::uint32_t window_rows = 1 + static_cast<std::uint32_t>(g() % std::min<std::int64_t>(rows, 4));
    const std::uint32_t window_columns = 1 + static_cast<std::uint32_t>(g() % std::min<std::int64_t>(columns, 16));
    const auto m = static_cast<std::uint32_t>(g() % (rows - window_rows + 1));
    const auto k = static_cast<std::uint32_t>(g() % (columns - window_columns + 1));
    h.configure(1, DataType::U16, 16, window_rows, window_columns, 512, TileLayout::RowMajor, TileLocation::Matrix);
    ASSERT_TRUE(ops::img2col_operands_legal(h.tiles, 1, 0, d, m, k)) << iteration;
    EXPECT_FALSE(ops::img2col_operands_legal(h.tiles, 1, 0, d, m, static_cast<std::uint32_t>(columns)));
    ops::img2col(h.tiles.tile(1), h.tiles.tile(0), d, m, k);
    for (std::uint32_t r = 0; r < window_rows; ++r)
      for (std::uint32_t c = 0; c < window_columns; ++c)
        ASSERT_EQ(h.raw(1, r, c), matrix[(m + r) * columns + k + c]) << iteration << " at " << r << "," << c;
    EXPECT_TRUE(h.tiles.tile(1).contents_defined());
  }
}

}  // namespace
}  // namespace pto::tile::test
