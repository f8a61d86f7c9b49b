// Spec test points of the VEC/SFU classes, translated from
// /work/spec/tests/asl/tile/{elementwise-tile-tile, tile-scalar-and-immediate,
// reduce-and-expand}/** (reference profile).  Each test name carries the AVS
// id; expected values are the points' own assertions (or, where a point
// computes its expectation through profile hooks, the hand-derived value of
// asl/arch/profile/reference-profile.asl noted in the comment).
#include <gtest/gtest.h>

#include <bit>

#include "numerics/format.hpp"
#include "ops_harness.hpp"
#include "tile/ops_convert.hpp"
#include "tile/ops_elementwise.hpp"

namespace pto::tile::test {
namespace {

using isa::TileOp;
using num::kDZ;
using num::kNV;
using ops::Binary;
using ops::Unary;

constexpr std::uint64_t kFp32One = 0x3f800000;

// Two tiles 0,1 holding one element each and a destination 2 of one element.
struct Pair : OpsHarness {
  Pair(DataType t, std::uint64_t left, std::uint64_t right) {
    for (TileIndex i = 0; i < 3; ++i) configure(i, t, 1, 1, 1);
    set(0, 0, 0, left);
    set(1, 0, 0, right);
  }
};

std::uint64_t binary_on(TileOp op, DataType t, std::uint64_t l, std::uint64_t r) {
  Pair h(t, l, r);
  EXPECT_TRUE(h.run(op, OpsHarness::operands(2, {0, 1})));
  return h.word(2, 0, 0);
}

// ---------------------------------------------------------------- TileBinary

TEST(OpsSpecPoints, PTO_AVS_TILE_TSUB_ORDER_001) { EXPECT_EQ(binary_on(TileOp::TSUB, DataType::U32, 9, 4), 5U); }

TEST(OpsSpecPoints, PTO_AVS_TILE_TMAX_FLOAT_001) {
  EXPECT_EQ(binary_on(TileOp::TMAX, DataType::FP32, 0xbf800000, 0xc0000000), 0xbf800000U);  // max(-1,-2) = -1
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMIN_FLOAT_001) {
  EXPECT_EQ(binary_on(TileOp::TMIN, DataType::FP32, 0xbf800000, 0xc0000000), 0xc0000000U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMAX_INTEGERS_001) {
  EXPECT_EQ(binary_on(TileOp::TMAX, DataType::S8, 1, 0xff), 1U);
  EXPECT_EQ(binary_on(TileOp::TMAX, DataType::U8, 255, 1), 255U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMIN_INTEGERS_001) {
  EXPECT_EQ(binary_on(TileOp::TMIN, DataType::S8, 1, 0xff), ~0ULL);  // ReadTileElement sign-extends S8 -1
  EXPECT_EQ(binary_on(TileOp::TMIN, DataType::U8, 255, 1), 1U);
}

// TileFloatingMinMaxValue (asl/tile/model/execution/minmax.asl, ADR 0050).
TEST(OpsSpecPoints, PTO_AVS_TILE_TMAX_NAN_001) {
  const std::uint64_t numeric = kFp32One, qnan = 0x7fc00001, snan = 0x7f800001;
  const auto p = NumericProfile::Reference;
  EXPECT_EQ(ops::binary_element(Binary::MAX, DataType::FP32, qnan, numeric, p), (num::Result{numeric, 0}));
  EXPECT_EQ(ops::binary_element(Binary::MAX, DataType::FP32, qnan, qnan, p), (num::Result{0x7fc00000, 0}));
  EXPECT_EQ(ops::binary_element(Binary::MAX, DataType::FP32, snan, numeric, p), (num::Result{numeric, kNV}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMIN_NAN_001) {
  const auto p = NumericProfile::Reference;
  EXPECT_EQ(ops::binary_element(Binary::MIN, DataType::FP32, 0x7fc00001, kFp32One, p).bits, kFp32One);
  EXPECT_EQ(ops::binary_element(Binary::MIN, DataType::FP32, 0x7fc00001, 0x7fc00001, p).bits, 0x7fc00000U);
  EXPECT_EQ(ops::binary_element(Binary::MIN, DataType::FP32, 0x7f800001, kFp32One, p).flags, kNV);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMIN_ZERO_001) {
  const auto p = NumericProfile::Reference;
  EXPECT_EQ(ops::binary_element(Binary::MIN, DataType::FP32, 0x80000000, 0, p), (num::Result{0x80000000, 0}));
  EXPECT_EQ(ops::binary_element(Binary::MIN, DataType::FP32, 0, 0x80000000, p), (num::Result{0x80000000, 0}));
  EXPECT_EQ(ops::binary_element(Binary::MIN, DataType::FP32, 0, 0, p), (num::Result{0, 0}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMAX_ZERO_001) {
  const auto p = NumericProfile::Reference;
  EXPECT_EQ(ops::binary_element(Binary::MAX, DataType::FP32, 0x80000000, 0, p).bits, 0U);
  EXPECT_EQ(ops::binary_element(Binary::MAX, DataType::FP32, 0, 0x80000000, p).bits, 0U);
  EXPECT_EQ(ops::binary_element(Binary::MAX, DataType::FP32, 0x80000000, 0x80000000, p).bits, 0x80000000U);
}

// Destination aliasing the left source reads the old left value.
TEST(OpsSpecPoints, PTO_AVS_TILE_TMAX_ALIAS_001) {
  Pair h(DataType::S32, 5, 3);
  ASSERT_TRUE(h.run(TileOp::TMAX, OpsHarness::operands(0, {0, 1})));
  EXPECT_EQ(h.word(0, 0, 0), 5U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMIN_ALIAS_001) {
  Pair h(DataType::S32, 5, 3);
  ASSERT_TRUE(h.run(TileOp::TMIN, OpsHarness::operands(0, {0, 1})));
  EXPECT_EQ(h.word(0, 0, 0), 3U);
}

TEST(OpsSpecPoints, PTO_AVS_TILE_TDIV_SIGNED_001) {
  EXPECT_EQ(binary_on(TileOp::TDIV, DataType::S64, static_cast<std::uint64_t>(-7), 3), static_cast<std::uint64_t>(-2));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TREM_DIVISOR_SIGN_001) {  // TileSignedModulo: sign of the divisor
  EXPECT_EQ(binary_on(TileOp::TREM, DataType::S64, static_cast<std::uint64_t>(-7), 3), 2U);
  EXPECT_EQ(binary_on(TileOp::TREM, DataType::S64, 7, static_cast<std::uint64_t>(-3)), static_cast<std::uint64_t>(-2));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TAND_BITS_001) { EXPECT_EQ(binary_on(TileOp::TAND, DataType::U8, 240, 90), 80U); }
TEST(OpsSpecPoints, PTO_AVS_TILE_TOR_BITS_001) { EXPECT_EQ(binary_on(TileOp::TOR, DataType::U8, 240, 15), 255U); }
TEST(OpsSpecPoints, PTO_AVS_TILE_TXOR_BITS_001) { EXPECT_EQ(binary_on(TileOp::TXOR, DataType::U8, 170, 15), 165U); }
TEST(OpsSpecPoints, PTO_AVS_TILE_TSHL_MASK_001) { EXPECT_EQ(binary_on(TileOp::TSHL, DataType::U8, 1, 10), 4U); }
TEST(OpsSpecPoints, PTO_AVS_TILE_TSHR_SIGNED_001) {
  Pair s(DataType::S8, 0x80, 1);
  ASSERT_TRUE(s.run(TileOp::TSHR, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(s.raw(2, 0, 0), 0xC0U);
  EXPECT_EQ(binary_on(TileOp::TSHR, DataType::U8, 0x80, 1), 0x40U);
}

// ----------------------------------------------------------------- TileUnary

struct Single : OpsHarness {
  Single(DataType t, std::uint64_t v) {
    configure(0, t, 1, 1, 1);
    configure(1, t, 1, 1, 1);
    set(0, 0, 0, v);
  }
};

struct UnaryOutcome {
  std::uint64_t raw;
  num::Flags flags;
};

UnaryOutcome unary_on(Unary op, DataType t, std::uint64_t v) {
  Single h(t, v);
  const num::Flags f = ops::tile_unary(op, h.tiles.tile(1), h.tiles.tile(0), PadValue::Null, NumericProfile::Reference);
  return {h.raw(1, 0, 0), f};
}

TEST(OpsSpecPoints, PTO_AVS_TILE_TABS_FLOAT_001) {
  const UnaryOutcome r = unary_on(Unary::ABS, DataType::FP32, 0xff800001);
  EXPECT_EQ(r.raw, 0x7f800001U);
  EXPECT_EQ(r.flags, 0);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TABS_WIDTH_001) { EXPECT_EQ(unary_on(Unary::ABS, DataType::S8, 0xff).raw, 1U); }
TEST(OpsSpecPoints, PTO_AVS_TILE_TNEG_FLOAT_001) {
  const UnaryOutcome r = unary_on(Unary::NEG, DataType::FP32, 0xff800001);
  EXPECT_EQ(r.raw, 0x7f800001U);
  EXPECT_EQ(r.flags, 0);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TNEG_WIDTH_001) { EXPECT_EQ(unary_on(Unary::NEG, DataType::U8, 1).raw, 0xffU); }
TEST(OpsSpecPoints, PTO_AVS_TILE_TNOT_WIDTH_001) { EXPECT_EQ(unary_on(Unary::NOT, DataType::U8, 0x0f).raw, 0xf0U); }
TEST(OpsSpecPoints, PTO_AVS_TILE_TRELU_FLOAT_001) {
  const UnaryOutcome r = unary_on(Unary::RELU, DataType::FP32, 0xff800000);
  EXPECT_EQ(r.raw, 0U);
  EXPECT_EQ(r.flags, 0);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TRELU_SIGNED_001) { EXPECT_EQ(unary_on(Unary::RELU, DataType::S8, 0xff).raw, 0U); }

TEST(OpsSpecPoints, PTO_AVS_TILE_TEXP_ZERO_001) {
  const UnaryOutcome r = unary_on(Unary::EXP, DataType::FP32, 0x80000000);
  EXPECT_EQ(r.raw, kFp32One);
  EXPECT_EQ(r.flags, 0);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TLOG_ZERO_001) {
  const UnaryOutcome r = unary_on(Unary::LOG, DataType::FP32, 0);
  EXPECT_EQ(r.raw, 0xff800000U);
  EXPECT_EQ(r.flags, kDZ);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TLOG_E4M3ZERO_001) {  // E4M3 has no infinity: canonical NaN 0x7f
  const UnaryOutcome r = unary_on(Unary::LOG, DataType::E4M3, 0);
  EXPECT_EQ(r.raw, 0x7fU);
  EXPECT_EQ(r.flags, kDZ);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TRECIP_E4M3ZERO_001) {
  for (std::uint64_t zero : {0x00ULL, 0x80ULL}) {
    const UnaryOutcome r = unary_on(Unary::RECIP, DataType::E4M3, zero);
    EXPECT_EQ(r.raw, 0x7fU);
    EXPECT_EQ(r.flags, kDZ);
  }
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TRECIP_SIGNEDZERO_001) {
  const UnaryOutcome r = unary_on(Unary::RECIP, DataType::FP32, 0x80000000);
  EXPECT_EQ(r.raw, 0xff800000U);
  EXPECT_EQ(r.flags, kDZ);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TRSQRT_E4M3ZERO_001) {
  for (std::uint64_t zero : {0x00ULL, 0x80ULL}) {
    const UnaryOutcome r = unary_on(Unary::RSQRT, DataType::E4M3, zero);
    EXPECT_EQ(r.raw, 0x7fU);
    EXPECT_EQ(r.flags, kDZ);
  }
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TRSQRT_INFINITY_001) {
  const UnaryOutcome r = unary_on(Unary::RSQRT, DataType::FP32, 0x7f800000);
  EXPECT_EQ(r.raw, 0U);
  EXPECT_EQ(r.flags, 0);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TSQRT_NEGATIVE_001) {
  const UnaryOutcome r = unary_on(Unary::SQRT, DataType::FP32, 0xbf800000);
  EXPECT_EQ(r.raw, 0x7fc00000U);
  EXPECT_EQ(r.flags, kNV);
}


// TileSFUUnarySpecialValue then the reference hooks, hand-derived: NaN inputs
// give the canonical NaN (NV only for a signalling NaN), LOG(1) = +0, and a
// positive finite input takes TileExponential (v + 1) / TileReciprocal
// (Ones / v, truncated) / identity.
TEST(OpsSpecPoints, SfuSpecialValuesAndReferenceHooks) {
  EXPECT_EQ(unary_on(Unary::EXP, DataType::FP32, 0x7f800001).raw, 0x7fc00000U);
  EXPECT_EQ(unary_on(Unary::EXP, DataType::FP32, 0x7f800001).flags, kNV);
  EXPECT_EQ(unary_on(Unary::EXP, DataType::FP32, 0x7fc00001).flags, 0);
  EXPECT_EQ(unary_on(Unary::LOG, DataType::FP32, kFp32One).raw, 0U);
  EXPECT_EQ(unary_on(Unary::LOG, DataType::FP16, 0x3c00).raw, 0U);
  EXPECT_EQ(unary_on(Unary::EXP, DataType::FP32, 0x40000000).raw, 0x40000001U);
  EXPECT_EQ(unary_on(Unary::RECIP, DataType::FP16, 0x4000).raw, (~0ULL / 0x4000) & 0xffff);
  EXPECT_EQ(unary_on(Unary::SQRT, DataType::BF16, 0x4080).raw, 0x4080U);
  EXPECT_EQ(unary_on(Unary::LOG, DataType::BF16, 0xbf80).raw, 0x7fc0U);  // negative: canonical NaN
  EXPECT_EQ(unary_on(Unary::LOG, DataType::BF16, 0xbf80).flags, kNV);
}

// --------------------------------------------------------------------- TFMA

TEST(OpsSpecPoints, PTO_AVS_TILE_TFMA_ALIAS_001) {  // U64: 2 * 3 + 4 with destination = left
  OpsHarness h;
  for (TileIndex i = 0; i < 3; ++i) h.configure(i, DataType::U64, 1, 1, 1);
  h.set(0, 0, 0, 2);
  h.set(1, 0, 0, 3);
  h.set(2, 0, 0, 4);
  ASSERT_TRUE(h.run(TileOp::TFMA, OpsHarness::operands(0, {0, 1, 2})));
  EXPECT_EQ(h.raw(0, 0, 0), 10U);
  EXPECT_EQ(h.raw(1, 0, 0), 3U);
  EXPECT_EQ(h.raw(2, 0, 0), 4U);
}

// --------------------------------------------------------------- TileScalar

struct ScalarCase : OpsHarness {
  ScalarCase(DataType t, std::uint64_t a, std::uint64_t b) {
    configure(0, t, 2, 1, 2);
    configure(1, t, 2, 1, 2);
    set(0, 0, 0, a);
    set(0, 0, 1, b);
    loop(t, 2, 1, 2);
  }
  std::pair<std::uint64_t, std::uint64_t> run_scalar(TileOp op, std::uint64_t scalar) {
    EXPECT_TRUE(run(op, operands(1, {0}, scalar)));
    return {word(1, 0, 0), word(1, 0, 1)};
  }
};

using Out = std::pair<std::uint64_t, std::uint64_t>;

TEST(OpsSpecPoints, PTO_AVS_TILE_TDIVS_ORDER_001) {
  EXPECT_EQ(ScalarCase(DataType::U8, 9, 255).run_scalar(TileOp::TDIVS, 2), (Out{4, 127}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMAXS_UNSIGNED_001) {
  EXPECT_EQ(ScalarCase(DataType::U8, 2, 250).run_scalar(TileOp::TMAXS, 9), (Out{9, 250}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMINS_UNSIGNED_001) {
  EXPECT_EQ(ScalarCase(DataType::U8, 2, 250).run_scalar(TileOp::TMINS, 9), (Out{2, 9}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TMULS_WIDTH_001) {
  EXPECT_EQ(ScalarCase(DataType::U8, 7, 86).run_scalar(TileOp::TMULS, 3), (Out{21, 2}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TREMS_SIGNED_001) {
  EXPECT_EQ(ScalarCase(DataType::S8, 0xfb, 5).run_scalar(TileOp::TREMS, 3), (Out{1, 2}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TSUBS_ORDER_001) {
  ScalarCase h(DataType::U8, 3, 9);
  EXPECT_EQ(h.run_scalar(TileOp::TSUBS, 5), (Out{254, 4}));
  EXPECT_EQ(h.raw(0, 0, 0), 3U);  // the source persists
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TANDS_BITS_001) {
  EXPECT_EQ(ScalarCase(DataType::U8, 170, 0x33).run_scalar(TileOp::TANDS, 15), (Out{10, 3}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TORS_BITS_001) {
  EXPECT_EQ(ScalarCase(DataType::U8, 0xa0, 0x05).run_scalar(TileOp::TORS, 15), (Out{0xaf, 0x0f}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TXORS_BITS_001) {
  EXPECT_EQ(ScalarCase(DataType::U8, 0xa5, 0x0f).run_scalar(TileOp::TXORS, 15), (Out{0xaa, 0x00}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TSHLS_MASK_001) {  // U8 scalar 9 shifts by 9 & 7 = 1
  EXPECT_EQ(ScalarCase(DataType::U8, 0x81, 1).run_scalar(TileOp::TSHLS, 9), (Out{0x02, 0x02}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TSHRS_SIGNED_001) {
  ScalarCase h(DataType::S8, 0x80, 0x40);
  h.run_scalar(TileOp::TSHRS, 9);
  EXPECT_EQ(h.raw(1, 0, 0), 0xc0U);
  EXPECT_EQ(h.raw(1, 0, 1), 0x20U);
}
TEST(OpsSpecPoints, TaddsScalarUpperBitsIgnored) {  // TileRawElementValue (hand-derived)
  EXPECT_EQ(ScalarCase(DataType::U8, 1, 2).run_scalar(TileOp::TADDS, 0x1ff), (Out{0, 1}));
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TEXPANDS_BUNDLE_001) {
  OpsHarness h;
  h.configure(0, DataType::U8, 2, 1, 2);
  ASSERT_TRUE(h.run(TileOp::TEXPANDS, OpsHarness::operands(0, {}, 0x1ff)));
  EXPECT_EQ(h.raw(0, 0, 0), 0xffU);
  EXPECT_EQ(h.raw(0, 0, 1), 0xffU);
  EXPECT_TRUE(h.tiles.tile(0).contents_defined());
}

// ---------------------------------------------------------------- reductions

// Source 0 (rows x columns, valid region = all) and a reduced destination 1.
struct Reduce : OpsHarness {
  Reduce(DataType t, DataType dt, std::uint32_t rows, std::uint32_t columns, bool row_axis,
         std::initializer_list<std::uint64_t> values) {
    const std::uint32_t physical = std::bit_ceil(columns);  // power-of-two Col
    configure(0, t, physical, rows, columns);
    if (row_axis) configure(1, dt, 1, rows, 1);
    else configure(1, dt, physical, 1, columns);
    fill(0, values);
  }
};

TEST(OpsSpecPoints, PTO_AVS_TILE_TROWSUM_U8_WRAP_001) {
  Reduce h(DataType::U8, DataType::U8, 1, 2, true, {130, 130});
  ASSERT_TRUE(h.run(TileOp::TROWSUM, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 4U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TROWPROD_ONE_001) {
  Reduce h(DataType::U8, DataType::U8, 1, 2, true, {20, 20});
  ASSERT_TRUE(h.run(TileOp::TROWPROD, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 144U);  // 400 mod 256 from the integer one
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TROWMAX_U16_001) {
  Reduce h(DataType::U16, DataType::U16, 1, 2, true, {0xffff, 1});
  ASSERT_TRUE(h.run(TileOp::TROWMAX, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 0xffffU);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TROWMIN_S8_001) {
  Reduce h(DataType::S8, DataType::S8, 1, 2, true, {1, 0xff});
  ASSERT_TRUE(h.run(TileOp::TROWMIN, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.word(1, 0, 0), ~0ULL);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TROWARGMAX_TIE_001) {
  Reduce h(DataType::U8, DataType::U32, 1, 3, true, {1, 9, 9});
  ASSERT_TRUE(h.run(TileOp::TROWARGMAX, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 1U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TROWARGMIN_TIE_001) {
  Reduce h(DataType::U8, DataType::U32, 1, 3, true, {4, 2, 2});
  ASSERT_TRUE(h.run(TileOp::TROWARGMIN, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 1U);
  h.configure(2, DataType::S32, 1, 1, 1);  // an S32 index destination is legal too
  ASSERT_TRUE(h.run(TileOp::TROWARGMIN, OpsHarness::operands(2, {0})));
  EXPECT_EQ(h.raw(2, 0, 0), 1U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TCOLSUM_COLUMNS_001) {
  Reduce h(DataType::U8, DataType::U8, 2, 2, false, {1, 2, 3, 4});
  ASSERT_TRUE(h.run(TileOp::TCOLSUM, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 4U);
  EXPECT_EQ(h.raw(1, 0, 1), 6U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TCOLPROD_COLUMNS_001) {
  Reduce h(DataType::U8, DataType::U8, 2, 2, false, {2, 3, 4, 5});
  ASSERT_TRUE(h.run(TileOp::TCOLPROD, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 8U);
  EXPECT_EQ(h.raw(1, 0, 1), 15U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TCOLMAX_U16_001) {
  Reduce h(DataType::U16, DataType::U16, 2, 2, false, {0xffff, 1, 2, 0xffff});
  ASSERT_TRUE(h.run(TileOp::TCOLMAX, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 0xffffU);
  EXPECT_EQ(h.raw(1, 0, 1), 0xffffU);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TCOLMIN_S8_001) {
  Reduce h(DataType::S8, DataType::S8, 2, 2, false, {0xff, 5, 1, 0xfe});
  ASSERT_TRUE(h.run(TileOp::TCOLMIN, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.word(1, 0, 0), ~0ULL);
  EXPECT_EQ(h.word(1, 0, 1), ~0ULL - 1);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TCOLARGMAX_TIE_001) {
  Reduce h(DataType::U8, DataType::U32, 3, 2, false, {2, 7, 9, 7, 9, 3});
  ASSERT_TRUE(h.run(TileOp::TCOLARGMAX, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 1U);
  EXPECT_EQ(h.raw(1, 0, 1), 0U);
}
TEST(OpsSpecPoints, PTO_AVS_TILE_TCOLARGMIN_TIE_001) {
  Reduce h(DataType::U8, DataType::U32, 3, 2, false, {2, 7, 2, 3, 4, 3});
  ASSERT_TRUE(h.run(TileOp::TCOLARGMIN, OpsHarness::operands(1, {0})));
  EXPECT_EQ(h.raw(1, 0, 0), 0U);
  EXPECT_EQ(h.raw(1, 0, 1), 1U);
}

// ---------------------------------------------------------------- expansions

// Full source 1 (2x3 valid of a 4x32/ts physical tile), broadcast 2, destination 3.
struct ExpandCase : OpsHarness {
  ExpandCase(DataType t, std::uint32_t columns, bool row_axis, std::uint64_t full, std::uint64_t broadcast) {
    configure(1, t, columns, 2, 3);
    fill(1, {full});
    if (row_axis) configure(2, t, 1, 2, 1);
    else configure(2, t, columns, 1, 3);
    fill(2, {broadcast});
    configure(3, t, columns, 2, 3);
    loop(t, 3, 2, columns);
  }
};

struct ExpandPoint {
  const char* id;
  TileOp row_op, column_op;
  DataType type;
  std::uint32_t columns;
  std::uint64_t full, broadcast, expected;  // expected = ReadTileElement(3, 1, 2)
};

TEST(OpsSpecPoints, RowAndColumnExpansionTypedPoints) {
  const ExpandPoint points[] = {
      {"PTO-AVS-TILE-T{ROW,COL}EXPANDADD-TYPED-001", TileOp::TROWEXPANDADD, TileOp::TCOLEXPANDADD, DataType::U8, 32, 250, 10, 4},
      {"PTO-AVS-TILE-T{ROW,COL}EXPANDSUB-TYPED-001", TileOp::TROWEXPANDSUB, TileOp::TCOLEXPANDSUB, DataType::S8, 32, 2, 253, 5},
      {"PTO-AVS-TILE-T{ROW,COL}EXPANDMUL-TYPED-001", TileOp::TROWEXPANDMUL, TileOp::TCOLEXPANDMUL, DataType::U16, 16, 400, 200, 14464},
      {"PTO-AVS-TILE-T{ROW,COL}EXPANDDIV-SIGNED-001", TileOp::TROWEXPANDDIV, TileOp::TCOLEXPANDDIV, DataType::S8, 32, 248, 2, ~0ULL - 3},
      {"PTO-AVS-TILE-T{ROW,COL}EXPANDMAX-UNSIGNED-001", TileOp::TROWEXPANDMAX, TileOp::TCOLEXPANDMAX, DataType::U64, 4, 0x8000000000000000ULL, 1, 0x8000000000000000ULL},
      {"PTO-AVS-TILE-T{ROW,COL}EXPANDMIN-SIGNED-001", TileOp::TROWEXPANDMIN, TileOp::TCOLEXPANDMIN, DataType::S8, 32, 255, 1, ~0ULL},
      // EXPDIF-COMPOSE-001: reference SUB of raw carriers 0x40000000 - 0x3f800000 =
      // 0x00800000 (a positive normal, no special value), then TileExponential = value + 1.
      {"PTO-AVS-TILE-T{ROW,COL}EXPANDEXPDIF-COMPOSE-001", TileOp::TROWEXPANDEXPDIF, TileOp::TCOLEXPANDEXPDIF, DataType::FP32, 8, 0x40000000, kFp32One, 0x00800001},
  };
  for (const ExpandPoint& p : points) {
    for (bool row_axis : {true, false}) {
      ExpandCase h(p.type, p.columns, row_axis, p.full, p.broadcast);
      ASSERT_TRUE(h.run(row_axis ? p.row_op : p.column_op, OpsHarness::operands(3, {1, 2}))) << p.id;
      EXPECT_EQ(h.word(3, 1, 2), p.expected) << p.id << (row_axis ? " row" : " column");
      EXPECT_EQ(h.raw(2, 0, 0), p.broadcast) << p.id << " broadcast persists";
    }
  }
}

// PTO-AVS-TILE-T{ROW,COL}EXPAND-COPY-001
TEST(OpsSpecPoints, TrowexpandTcolexpandCopy) {
  for (bool row_axis : {true, false}) {
    ExpandCase h(DataType::U8, 32, row_axis, 0, 7);
    ASSERT_TRUE(h.run(row_axis ? TileOp::TROWEXPAND : TileOp::TCOLEXPAND, OpsHarness::operands(3, {2})));
    EXPECT_EQ(h.raw(3, 1, 2), 7U);
    EXPECT_EQ(h.raw(2, 0, 0), 7U);
  }
}

// --------------------------------------------------------------------- TCVT

TEST(OpsSpecPoints, PTO_AVS_TILE_TCVT_INTEGER_001) {  // TileConvertIntegerValue
  const auto rne = num::RoundingMode::RNE;
  const auto p = NumericProfile::Reference;
  EXPECT_EQ(ops::convert_element(0xf, DataType::S4X2, DataType::S8, rne, false, p).bits, ~0ULL);
  EXPECT_EQ(ops::convert_element(300, DataType::U16, DataType::U8, rne, false, p).bits, 44U);
  EXPECT_EQ(ops::convert_element(300, DataType::U16, DataType::U8, rne, true, p).bits, 255U);
  EXPECT_EQ(ops::convert_element(~0ULL, DataType::S64, DataType::U4X2, rne, true, p).bits, 0U);
}

TEST(OpsSpecPoints, PTO_AVS_TILE_TCVT_E8M0_FINITE_002) {  // BF16 -> E8M0, default RNE
  OpsHarness h;
  h.configure(0, DataType::BF16, 16, 1, 4, 256);
  h.configure(1, DataType::E8M0, 16, 1, 4, 128);
  h.fill(0, {0x3f80, 0x4000, 0x3f00, 0x3fc0});
  const num::Flags flags = ops::tile_convert(h.tiles.tile(1), h.tiles.tile(0), num::RoundingMode::RNE, false,
                                             PadValue::Null, NumericProfile::Reference);
  EXPECT_EQ(h.raw(1, 0, 0), 127U);
  EXPECT_EQ(h.raw(1, 0, 1), 128U);
  EXPECT_EQ(h.raw(1, 0, 2), 126U);
  EXPECT_EQ(h.raw(1, 0, 3), 128U);
  EXPECT_EQ(flags, num::kNX);
  EXPECT_EQ(h.raw(0, 0, 3), 0x3fc0U);
}

TEST(OpsSpecPoints, PTO_AVS_TILE_TCVT_ALIAS_001) {  // in-place U8 conversion, B.DATR PadValue Zero
  OpsHarness h;
  h.configure(0, DataType::U8, 16, 1, 2);
  h.set(0, 0, 0, 7);
  h.set(0, 0, 1, 9);
  h.bundle.data_attributes_present = true;
  h.bundle.data_attributes.data_type = 27;
  h.bundle.data_attributes.pad_value = 0;
  ASSERT_TRUE(h.run(TileOp::TCVT, OpsHarness::operands(0, {0}), NumericProfile::Reference, PadValue::Zero));
  EXPECT_EQ(h.raw(0, 0, 0), 7U);
  EXPECT_EQ(h.raw(0, 0, 1), 9U);
  EXPECT_TRUE(h.tiles.tile(0).element_defined_at(0, 2));
  EXPECT_EQ(h.raw(0, 0, 2), 0U);
  EXPECT_TRUE(h.tiles.tile(0).element_defined_at(7, 15));
}

}  // namespace
}  // namespace pto::tile::test
