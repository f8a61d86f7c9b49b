// Operand legality and schema rejections of the VEC/SFU kernels,
// hand-derived from asl/tile/model/legality/{operand-schema,dtype-layout,
// reduction-and-expansion}.asl and asl/block/model/dispatch/*-schema.asl:
// every rejection happens in operands_legal/schema_legal, before any effect.
#include <gtest/gtest.h>

#include "ops_harness.hpp"

namespace pto::tile::test {
namespace {

using isa::TileOp;

struct Three : OpsHarness {
  explicit Three(DataType t, std::uint32_t columns = 4, std::uint32_t vr = 1, std::uint32_t vc = 4) {
    for (TileIndex i = 0; i < 3; ++i) configure(i, t, columns, vr, vc);
    fill(0, {1, 2, 3, 4});
    fill(1, {5, 6, 7, 8});
    loop(t, vc, vr, columns);
  }
};

TEST(OpsLegality, BinaryRejectsUndefinedSource) {  // TileSourceContentsDefined
  Three h(DataType::U32);
  h.configure(1, DataType::U32, 4, 1, 4);  // reconfigured: undefined
  EXPECT_FALSE(h.legal(TileOp::TSUB, OpsHarness::operands(2, {0, 1})));
}

TEST(OpsLegality, BinaryRejectsShapeOrTypeMismatch) {  // TileShapeAndTypeMatch
  Three h(DataType::U32);
  h.configure(1, DataType::S32, 4, 1, 4);
  h.fill(1, {1});
  EXPECT_FALSE(h.legal(TileOp::TMUL, OpsHarness::operands(2, {0, 1})));
  Three g(DataType::U32);
  g.configure(2, DataType::U32, 4, 1, 3);
  EXPECT_FALSE(g.legal(TileOp::TMUL, OpsHarness::operands(2, {0, 1})));
}

TEST(OpsLegality, IntegerDivisionRejectsZeroDivisor) {  // TilePayloadNonzero
  Three h(DataType::S16);
  EXPECT_TRUE(h.legal(TileOp::TDIV, OpsHarness::operands(2, {0, 1})));
  h.set(1, 0, 3, 0);
  EXPECT_FALSE(h.legal(TileOp::TDIV, OpsHarness::operands(2, {0, 1})));
  EXPECT_FALSE(h.legal(TileOp::TREM, OpsHarness::operands(2, {0, 1})));
  Three f(DataType::FP32);  // floating division by zero is legal (DZ at execution)
  f.set(1, 0, 3, 0);
  EXPECT_TRUE(f.legal(TileOp::TDIV, OpsHarness::operands(2, {0, 1})));
}

TEST(OpsLegality, LogicalOpsRejectFloatingTypes) {  // TileBinaryDataTypeSupported
  Three h(DataType::FP32);
  for (TileOp op : {TileOp::TAND, TileOp::TOR, TileOp::TXOR, TileOp::TSHL, TileOp::TSHR})
    EXPECT_FALSE(h.legal(op, OpsHarness::operands(2, {0, 1}))) << static_cast<unsigned>(op);
  EXPECT_FALSE(h.legal(TileOp::TNOT, OpsHarness::operands(2, {0})));
}

TEST(OpsLegality, MinMaxRejectInvalidTf32Encoding) {  // TileSourceEncodingsValid: TF32 low 13 bits zero
  Three h(DataType::TF32);
  h.fill(0, {0x3f800000});
  h.fill(1, {0x40000000});
  EXPECT_TRUE(h.legal(TileOp::TMAX, OpsHarness::operands(2, {0, 1})));
  h.set(1, 0, 2, 0x40000001);
  EXPECT_FALSE(h.legal(TileOp::TMAX, OpsHarness::operands(2, {0, 1})));
}

TEST(OpsLegality, TranscendentalsRejectIntegerTypes) {  // TileFloatingElementwiseDataTypeSupported
  Three h(DataType::S32);
  for (TileOp op : {TileOp::TEXP, TileOp::TLOG, TileOp::TSQRT, TileOp::TRSQRT, TileOp::TRECIP})
    EXPECT_FALSE(h.legal(op, OpsHarness::operands(2, {0}))) << static_cast<unsigned>(op);
}

TEST(OpsLegality, ScalarRejectsZeroIntegerScalarAndLoopMismatch) {
  Three h(DataType::U8);
  EXPECT_TRUE(h.legal(TileOp::TDIVS, OpsHarness::operands(2, {0}, 0x100 | 3)));
  EXPECT_FALSE(h.legal(TileOp::TDIVS, OpsHarness::operands(2, {0}, 0x100)));  // low byte zero
  // SelectedBundleComparisonShapeMatches and the zero integer divisor belong
  // to the closed schema (step 5, before allocation) as well.
  arch::BundleTileBinding& t = h.bundle.tile_bindings[0];
  t.valid = t.destination_valid = t.source0_valid = t.last = true;
  t.source0 = 0;
  t.destination_size = 1;
  const TileKernel* adds = h.table.get(TileOp::TADDS);
  const TileKernel* divs = h.table.get(TileOp::TDIVS);
  EXPECT_TRUE(adds->schema_legal(h.schema_view(1)));
  EXPECT_TRUE(divs->schema_legal(h.schema_view(0x100 | 3)));
  EXPECT_FALSE(divs->schema_legal(h.schema_view(0x100)));
  h.loop(DataType::U8, 3, 1, 4);  // LB0 != ValidCol
  EXPECT_FALSE(adds->schema_legal(h.schema_view(1)));
  EXPECT_TRUE(h.legal(TileOp::TADDS, OpsHarness::operands(2, {0}, 1)));  // not a TileOperandsLegal rule
}

TEST(OpsLegality, ScalarRejectsInvalidScalarEncoding) {  // TileNumericEncodingValid of the scalar
  Three h(DataType::TF32);
  h.fill(0, {0x3f800000});
  EXPECT_TRUE(h.legal(TileOp::TADDS, OpsHarness::operands(2, {0}, 0x3f800000)));
  EXPECT_FALSE(h.legal(TileOp::TADDS, OpsHarness::operands(2, {0}, 0x3f800001)));
}

TEST(OpsLegality, ReductionRejectsAliasAndWrongShape) {  // TileOperandsLegal_ExecuteTileReduction
  OpsHarness h;
  h.configure(0, DataType::U16, 4, 2, 4);
  h.fill(0, {1});
  h.configure(1, DataType::U16, 1, 2, 1);
  EXPECT_TRUE(h.legal(TileOp::TROWSUM, OpsHarness::operands(1, {0})));
  EXPECT_FALSE(h.legal(TileOp::TROWSUM, OpsHarness::operands(0, {0})));   // destination == source
  EXPECT_FALSE(h.legal(TileOp::TCOLSUM, OpsHarness::operands(1, {0})));   // column shape required
  EXPECT_FALSE(h.legal(TileOp::TROWARGMAX, OpsHarness::operands(1, {0})));  // index destination must be S32/U32
}

TEST(OpsLegality, ExpandDivRejectsZeroBroadcast) {  // TileBroadcastPayloadNonzero
  OpsHarness h;
  h.configure(0, DataType::S32, 4, 2, 4);
  h.fill(0, {9});
  h.configure(1, DataType::S32, 1, 2, 1);
  h.fill(1, {3, 0});
  h.configure(2, DataType::S32, 4, 2, 4);
  EXPECT_FALSE(h.legal(TileOp::TROWEXPANDDIV, OpsHarness::operands(2, {0, 1})));
  h.set(1, 1, 0, 1);
  EXPECT_TRUE(h.legal(TileOp::TROWEXPANDDIV, OpsHarness::operands(2, {0, 1})));
}

TEST(OpsLegality, ClosedBinarySchema) {  // SelectedBundleClosedBinarySchemaLegal
  OpsHarness h;
  arch::BlockState& b = h.bundle;
  b.operation.data_type_valid = true;
  b.operation.data_type = num::code_of(DataType::FP32);
  arch::BundleTileBinding& t = b.tile_bindings[0];
  t.valid = t.destination_valid = t.source0_valid = t.source1_valid = t.last = true;
  t.destination_size = 1;
  b.dimension_present[0] = true;
  b.dimensions[0] = 8;
  const TileKernel* k = h.table.get(TileOp::TSUB);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->schema_legal(h.schema_view()));
  b.dimensions[0] = 0;  // LB0 must be nonzero
  EXPECT_FALSE(k->schema_legal(h.schema_view()));
  b.dimensions[0] = 8;
  b.operation.data_type = num::code_of(DataType::E8M0);  // not a VEC arithmetic type
  EXPECT_FALSE(k->schema_legal(h.schema_view()));
  b.operation.data_type = num::code_of(DataType::FP32);
  t.source1_valid = false;  // binary needs two sources
  EXPECT_FALSE(k->schema_legal(h.schema_view()));
  const DestinationPlan p = k->destinations(b, h.tiles);  // ValidRow 1, Col = ValidCol by default
  EXPECT_TRUE(p.explicit_shape);
  EXPECT_EQ(p.valid_columns, 8U);
  EXPECT_EQ(p.valid_rows, 1U);
  EXPECT_EQ(p.columns, 8U);
}

TEST(OpsLegality, EveryVecSfuOperationIsAccountedFor) {
  // Every catalog operation of the VEC and SFU engines (31 + 56) has a
  // kernel; TLSU and CUBE operations other than TLOAD/TSTORE (tile_ops.cpp)
  // are not VEC/SFU kernels.
  OpsHarness h;
  unsigned vec_sfu = 0;
  for (std::size_t i = 0; i < isa::kTileOpCount; ++i) {
    const auto op = static_cast<TileOp>(i);
    const isa::TileEngine engine = isa::tile_op(op).engine;
    if (engine != isa::TileEngine::VEC && engine != isa::TileEngine::SFU) continue;
    ++vec_sfu;
    EXPECT_NE(h.table.get(op), nullptr) << isa::tile_op(op).name;
  }
  EXPECT_EQ(vec_sfu, 87U);
  for (TileOp op : {TileOp::TMATMUL, TileOp::MGATHER, TileOp::GMOV}) EXPECT_EQ(h.table.get(op), nullptr);
}

}  // namespace
}  // namespace pto::tile::test
