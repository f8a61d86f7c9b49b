// Spec test points *-PADDING-001: a tile semantic handler run directly after
// B.DATR state selected a PadValue (/work/spec/tests/asl/tile/**/
// tile-state-*-padding-001.asl).  The B.DATR DataType values they write
// (U64, HiF4X2, FP16) and several tile types (U64, S64) are accepted by no
// real bundle of the operation, and TFMA/TADDS/TEXPANDS/TQUANT call model
// helpers, so the bundle-level extractor cannot express them.  Here the
// kernel entries of the TileKernelTable are called directly (operands_legal,
// then execute, as the commit path does) with the pad value
// CurrentBundlePadValue derives from the emulated B.DATR state.
//
// Padding rules under test: TileWithPadding / TilePadValueForDataType
// (asl/tile/model/definedness/elements.asl, ADR 0014): physical elements
// outside ValidRow x ValidCol receive the selected pad value; Zero, Max and
// Min define them, Null (also the omitted-B.DATR default,
// CurrentBundlePadValue in asl/block/model/state/control-state.asl) leaves
// them undefined.  Expected values are the points' own assertions; values a
// point does not assert but that these tests check as well are hand-derived
// from the ASL function named next to them.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "numerics/datatypes.hpp"
#include "ops_harness.hpp"

namespace pto::tile::test {
namespace {

using isa::TileOp;

constexpr std::uint64_t kOnes = ~0ULL;  // Ones{PTO_XLEN}

// B.DATR PadValue bits as the points pass them to SetBundleDataAttributeState.
constexpr std::uint8_t kPadZero = 0b00;
constexpr std::uint8_t kPadMax = 0b01;
constexpr std::uint8_t kPadMin = 0b10;

// B.DATR DataType field values the points write (TileDataTypeFromEncoding,
// asl/arch/data-types/tile-data-types.asl: 4 = FP16, 14 = HiF4X2, 24 = U64).
// They need not match the tiles' types: the handlers read the tile
// descriptors, and only the PadValue field of this state reaches them.
constexpr std::uint8_t kCode4 = 4;
constexpr std::uint8_t kCode14 = 14;
constexpr std::uint8_t kCode24 = 24;

struct PaddedTiles : OpsHarness {
  // The points' ConfigureTile(i, 128, rows, columns, 1, 1, type, RowMajor,
  // Any) for i in [0, count).  ConfigureTileForMask installs
  // DerivedTileRows(128, columns, type) as the physical row count (the rows
  // argument only bounds it), which is what configure() derives too.
  PaddedTiles(DataType t, unsigned count, std::uint32_t columns) {
    for (unsigned i = 0; i < count; ++i) configure(static_cast<TileIndex>(i), t, columns, 1, 1, 128);
  }

  // SetBundleDataAttributeState(DataType, 0, PadValue, 0, 0, FALSE, FALSE)
  // followed by _BundleDataAttributesPresent = TRUE.  Without this call the
  // bundle keeps the omitted-B.DATR state (PadValue field 11 = Null).
  void datr(std::uint8_t data_type_code, std::uint8_t pad_bits) {
    bundle.data_attributes_present = true;
    bundle.data_attributes.data_type_present = true;
    bundle.data_attributes.data_type = data_type_code;
    bundle.data_attributes.data_layout = 0;
    bundle.data_attributes.pad_value = pad_bits;
  }

  // InstructionContractExecute_<OP> / the semantic handler, with the pad
  // value CurrentBundlePadValue selects from the bundle state above.
  bool execute(TileOp op, const TileOperands& o) {
    return run(op, o, NumericProfile::Reference, current_pad_value(bundle));
  }

  bool defined(TileIndex i, std::uint32_t row, std::uint32_t column) const {
    return tiles.tile(i).element_defined_at(row, column);
  }
  std::uint32_t rows(TileIndex i) const { return tiles.tile(i).descriptor().rows; }
};

// ------------------------------------------------------- B.DATR decoding

// The emulation above relies on CurrentBundlePadValue: omitted B.DATR is
// Null; explicit 00/01/10/11 select Zero/Max/Min/Null.  The DataType codes
// the points pass are decoded as TileDataTypeFromEncoding does.
TEST(OpsSpecHandlerPadding, BundlePadValueAndDataTypeCodes) {
  OpsHarness h;
  EXPECT_EQ(current_pad_value(h.bundle), PadValue::Null);
  PaddedTiles p(DataType::U64, 0, 2);
  for (const auto& [bits, pad] : {std::pair{kPadZero, PadValue::Zero}, std::pair{kPadMax, PadValue::Max},
                                  std::pair{kPadMin, PadValue::Min}, std::pair{std::uint8_t{0b11}, PadValue::Null}}) {
    p.datr(kCode24, bits);
    EXPECT_EQ(current_pad_value(p.bundle), pad) << unsigned{bits};
  }
  EXPECT_EQ(num::data_type_from_code(kCode24), DataType::U64);
  EXPECT_EQ(num::data_type_from_code(kCode14), DataType::HiF4X2);
  EXPECT_EQ(num::data_type_from_code(kCode4), DataType::FP16);
}

// ------------------------------------------------ ExecuteTileBinary (TEPL)

// Tiles 0..2 of type t, sources 0 and 1 holding one valid element each.
struct BinaryPoint : PaddedTiles {
  BinaryPoint(DataType t, std::uint32_t columns, std::uint64_t left, std::uint64_t right)
      : PaddedTiles(t, 3, columns) {
    set(0, 0, 0, left);
    set(1, 0, 0, right);
  }
};

// PTO-AVS-TILE-TADD-PADDING-001 (ExecuteTileBinary ADD, U64 8x2, valid 1x1).
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TADD_PADDING_001) {
  {
    BinaryPoint h(DataType::U64, 2, 7, 5);
    ASSERT_EQ(h.rows(2), 8U);  // (7, 1) is the last physical element
    h.datr(kCode24, kPadZero);
    ASSERT_TRUE(h.execute(TileOp::TADD, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 12U);
    EXPECT_TRUE(h.defined(2, 0, 1));
    EXPECT_EQ(h.word(2, 0, 1), 0U);
    EXPECT_TRUE(h.defined(2, 7, 1));
  }
  {
    BinaryPoint h(DataType::U64, 2, 7, 5);  // B.DATR omitted: Null
    ASSERT_TRUE(h.execute(TileOp::TADD, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 12U);
    EXPECT_FALSE(h.defined(2, 0, 1));
    EXPECT_FALSE(h.defined(2, 7, 1));
  }
}

// PTO-AVS-TILE-TSUB-PADDING-001.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TSUB_PADDING_001) {
  {
    BinaryPoint h(DataType::U64, 2, 7, 5);
    h.datr(kCode24, kPadZero);
    ASSERT_TRUE(h.execute(TileOp::TSUB, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 2U);
    EXPECT_TRUE(h.defined(2, 0, 1));
    EXPECT_EQ(h.word(2, 0, 1), 0U);
  }
  {
    BinaryPoint h(DataType::U64, 2, 7, 5);
    ASSERT_TRUE(h.execute(TileOp::TSUB, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 2U);
    EXPECT_FALSE(h.defined(2, 0, 1));
  }
}

// PTO-AVS-TILE-TMUL-PADDING-001: S64 Min padding is 0x8000000000000000.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TMUL_PADDING_001) {
  {
    BinaryPoint h(DataType::S64, 2, 3, 5);
    h.datr(kCode24, kPadMin);
    ASSERT_TRUE(h.execute(TileOp::TMUL, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 15U);
    EXPECT_TRUE(h.defined(2, 0, 1));
    EXPECT_EQ(h.word(2, 0, 1), 0x8000000000000000ULL);
  }
  {
    BinaryPoint h(DataType::S64, 2, 3, 5);
    ASSERT_TRUE(h.execute(TileOp::TMUL, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 15U);
    EXPECT_FALSE(h.defined(2, 0, 1));
  }
}

// PTO-AVS-TILE-TMAX-PADDING-001: U64 Max padding is Ones.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TMAX_PADDING_001) {
  {
    BinaryPoint h(DataType::U64, 2, 7, 5);
    h.datr(kCode24, kPadMax);
    ASSERT_TRUE(h.execute(TileOp::TMAX, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 7U);
    EXPECT_TRUE(h.defined(2, 0, 1));
    EXPECT_EQ(h.word(2, 0, 1), kOnes);
  }
  {
    BinaryPoint h(DataType::U64, 2, 7, 5);
    ASSERT_TRUE(h.execute(TileOp::TMAX, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 7U);
    EXPECT_FALSE(h.defined(2, 0, 1));
  }
}

// PTO-AVS-TILE-TMIN-PADDING-001: S8 Min padding.  The point reads the
// padding Word 0x80 that TilePadValueForDataType stores; our S8 storage keeps
// the element's 8 bits, so the raw (not sign-extended) view is compared.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TMIN_PADDING_001) {
  {
    BinaryPoint h(DataType::S8, 2, 7, 5);
    h.datr(kCode24, kPadMin);
    ASSERT_TRUE(h.execute(TileOp::TMIN, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 5U);
    EXPECT_TRUE(h.defined(2, 0, 1));
    EXPECT_EQ(h.raw(2, 0, 1), 0x80U);
  }
  {
    BinaryPoint h(DataType::S8, 2, 7, 5);
    ASSERT_TRUE(h.execute(TileOp::TMIN, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 5U);
    EXPECT_FALSE(h.defined(2, 0, 1));
  }
}

// PTO-AVS-TILE-TDIV-PADDING-001: legality asserted in both halves.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TDIV_PADDING_001) {
  {
    BinaryPoint h(DataType::U64, 2, 15, 3);
    h.datr(kCode24, kPadMax);
    EXPECT_TRUE(h.legal(TileOp::TDIV, OpsHarness::operands(2, {0, 1})));
    ASSERT_TRUE(h.execute(TileOp::TDIV, OpsHarness::operands(2, {0, 1})));
    EXPECT_EQ(h.word(2, 0, 0), 5U);
    EXPECT_TRUE(h.defined(2, 0, 1));
    EXPECT_EQ(h.word(2, 0, 1), kOnes);
  }
  {
    BinaryPoint h(DataType::U64, 2, 15, 3);
    EXPECT_TRUE(h.legal(TileOp::TDIV, OpsHarness::operands(2, {0, 1})));
    ASSERT_TRUE(h.execute(TileOp::TDIV, OpsHarness::operands(2, {0, 1})));
    EXPECT_FALSE(h.defined(2, 0, 1));
  }
}

// PTO-AVS-TILE-TREM-PADDING-001: S64 -7 rem 3 = 2 (TileSignedModulo); the
// divisor check (TilePayloadNonzero) sees only the valid region, whose
// physical padding is undefined and is not read.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TREM_PADDING_001) {
  BinaryPoint h(DataType::S64, 2, static_cast<std::uint64_t>(-7), 3);
  h.datr(kCode24, kPadZero);
  EXPECT_TRUE(h.legal(TileOp::TREM, OpsHarness::operands(2, {0, 1})));
  ASSERT_TRUE(h.execute(TileOp::TREM, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.word(2, 0, 0), 2U);
  EXPECT_TRUE(h.defined(2, 0, 1));
  EXPECT_EQ(h.word(2, 0, 1), 0U);
}

// PTO-AVS-TILE-TAND-PADDING-001 (U8 16x8).
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TAND_PADDING_001) {
  BinaryPoint h(DataType::U8, 8, 15, 6);
  h.datr(kCode14, kPadZero);
  EXPECT_TRUE(h.legal(TileOp::TAND, OpsHarness::operands(2, {0, 1})));
  ASSERT_TRUE(h.execute(TileOp::TAND, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.word(2, 0, 0), 6U);
  EXPECT_TRUE(h.defined(2, 0, 1));
  EXPECT_EQ(h.word(2, 0, 1), 0U);
}

// PTO-AVS-TILE-TOR-PADDING-001: U8 Max padding is 255.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TOR_PADDING_001) {
  BinaryPoint h(DataType::U8, 8, 8, 3);
  h.datr(kCode14, kPadMax);
  EXPECT_TRUE(h.legal(TileOp::TOR, OpsHarness::operands(2, {0, 1})));
  ASSERT_TRUE(h.execute(TileOp::TOR, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.word(2, 0, 0), 11U);
  EXPECT_TRUE(h.defined(2, 0, 1));
  EXPECT_EQ(h.word(2, 0, 1), 255U);
}

// PTO-AVS-TILE-TSHL-PADDING-001.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TSHL_PADDING_001) {
  BinaryPoint h(DataType::U8, 8, 3, 1);
  h.datr(kCode14, kPadZero);
  EXPECT_TRUE(h.legal(TileOp::TSHL, OpsHarness::operands(2, {0, 1})));
  ASSERT_TRUE(h.execute(TileOp::TSHL, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.word(2, 0, 0), 6U);
  EXPECT_TRUE(h.defined(2, 0, 1));
  EXPECT_EQ(h.word(2, 0, 1), 0U);
}

// PTO-AVS-TILE-TSHR-PADDING-001: unsigned U8 shift, Max padding 255.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TSHR_PADDING_001) {
  BinaryPoint h(DataType::U8, 8, 128, 1);
  h.datr(kCode14, kPadMax);
  EXPECT_TRUE(h.legal(TileOp::TSHR, OpsHarness::operands(2, {0, 1})));
  ASSERT_TRUE(h.execute(TileOp::TSHR, OpsHarness::operands(2, {0, 1})));
  EXPECT_EQ(h.word(2, 0, 0), 64U);
  EXPECT_TRUE(h.defined(2, 0, 1));
  EXPECT_EQ(h.word(2, 0, 1), 255U);
}

// ------------------------------------------------------------------- TFMA

// PTO-AVS-TILE-TFMA-PADDING-001: TFMA(0, 1, 2, 3) = 2 * 3 + 4 on U64 with Max
// padding (asl/tile/model/execution/fused-multiply-add.asl TFMA).
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TFMA_PADDING_001) {
  PaddedTiles h(DataType::U64, 4, 2);
  h.set(1, 0, 0, 2);
  h.set(2, 0, 0, 3);
  h.set(3, 0, 0, 4);
  h.datr(kCode24, kPadMax);
  ASSERT_TRUE(h.execute(TileOp::TFMA, OpsHarness::operands(0, {1, 2, 3})));
  EXPECT_EQ(h.word(0, 0, 0), 10U);
  EXPECT_TRUE(h.defined(0, 0, 1));
  EXPECT_EQ(h.word(0, 0, 1), kOnes);
}

// ------------------------------------------------------- ExecuteTileUnary

// Tiles 0 (source, one valid element) and 1 (destination) of type t.
struct UnaryPoint : PaddedTiles {
  UnaryPoint(DataType t, std::uint64_t value) : PaddedTiles(t, 2, 2) { set(0, 0, 0, value); }
};

// The four closed unary points share one shape: U64 source value, Max
// padding defines (1, 0, 1) as Ones; omitted B.DATR leaves it undefined.
void closed_unary_padding(TileOp op, std::uint64_t value) {
  {
    UnaryPoint h(DataType::U64, value);
    h.datr(kCode24, kPadMax);
    ASSERT_TRUE(h.execute(op, OpsHarness::operands(1, {0})));
    EXPECT_TRUE(h.defined(1, 0, 1));
    EXPECT_EQ(h.word(1, 0, 1), kOnes);
  }
  {
    UnaryPoint h(DataType::U64, value);
    ASSERT_TRUE(h.execute(op, OpsHarness::operands(1, {0})));
    EXPECT_FALSE(h.defined(1, 0, 1));
  }
}

// PTO-AVS-TILE-TABS-PADDING-001.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TABS_PADDING_001) { closed_unary_padding(TileOp::TABS, 7); }
// PTO-AVS-TILE-TNEG-PADDING-001.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TNEG_PADDING_001) { closed_unary_padding(TileOp::TNEG, 1); }
// PTO-AVS-TILE-TNOT-PADDING-001.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TNOT_PADDING_001) { closed_unary_padding(TileOp::TNOT, 3); }
// PTO-AVS-TILE-TRELU-PADDING-001.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TRELU_PADDING_001) { closed_unary_padding(TileOp::TRELU, 7); }

// SFU unary points (FP32 8x2, Max): the point asserts
// definedness only; the padding value 0x7f7fffff (largest finite FP32) is
// TilePadValueForDataType(Max, FP32), checked in addition.
void sfu_unary_padding(TileOp op, std::uint64_t value) {
  {
    UnaryPoint h(DataType::FP32, value);
    h.datr(kCode4, kPadMax);
    ASSERT_TRUE(h.execute(op, OpsHarness::operands(1, {0})));
    EXPECT_TRUE(h.defined(1, 0, 1));
    EXPECT_EQ(h.raw(1, 0, 1), 0x7f7fffffU);
  }
  {
    UnaryPoint h(DataType::FP32, value);
    ASSERT_TRUE(h.execute(op, OpsHarness::operands(1, {0})));
    EXPECT_FALSE(h.defined(1, 0, 1));
  }
}

// PTO-AVS-TILE-TEXP-PADDING-001 (source +0).
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TEXP_PADDING_001) { sfu_unary_padding(TileOp::TEXP, 0); }
// PTO-AVS-TILE-TSQRT-PADDING-001 (source 1.0).
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TSQRT_PADDING_001) { sfu_unary_padding(TileOp::TSQRT, 0x3f800000); }

// ------------------------------------------ ExecuteTileScalar / FillScalar

// PTO-AVS-TILE-TADDS-PADDING-001: ExecuteTileScalar(ADD, 1, 0, 5) on U64.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TADDS_PADDING_001) {
  {
    UnaryPoint h(DataType::U64, 7);
    h.datr(kCode24, kPadZero);
    ASSERT_TRUE(h.execute(TileOp::TADDS, OpsHarness::operands(1, {0}, 5)));
    EXPECT_EQ(h.word(1, 0, 0), 12U);
    EXPECT_TRUE(h.defined(1, 0, 1));
    EXPECT_EQ(h.word(1, 0, 1), 0U);
  }
  {
    UnaryPoint h(DataType::U64, 7);
    ASSERT_TRUE(h.execute(TileOp::TADDS, OpsHarness::operands(1, {0}, 5)));
    EXPECT_EQ(h.word(1, 0, 0), 12U);
    EXPECT_FALSE(h.defined(1, 0, 1));
  }
}

// PTO-AVS-TILE-TEXPANDS-PADDING-001: ExecuteTileFillScalar(0, 7) on U64.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TEXPANDS_PADDING_001) {
  {
    PaddedTiles h(DataType::U64, 1, 2);
    h.datr(kCode24, kPadZero);
    ASSERT_TRUE(h.execute(TileOp::TEXPANDS, OpsHarness::operands(0, {}, 7)));
    EXPECT_EQ(h.word(0, 0, 0), 7U);
    EXPECT_TRUE(h.defined(0, 0, 1));
    EXPECT_EQ(h.word(0, 0, 1), 0U);
  }
  {
    PaddedTiles h(DataType::U64, 1, 2);
    ASSERT_TRUE(h.execute(TileOp::TEXPANDS, OpsHarness::operands(0, {}, 7)));
    EXPECT_EQ(h.word(0, 0, 0), 7U);
    EXPECT_FALSE(h.defined(0, 0, 1));
  }
}

// ------------------------------------------------------------------ TQUANT

// Destination U8 (2 columns, 64 rows) with its padding element (0, 1)
// defined beforehand; source FP32 (2 columns) holding 1.0; scale 1.0, zero
// point 0, default numeric control.
struct QuantPoint : OpsHarness {
  QuantPoint() {
    configure(0, DataType::U8, 2, 1, 1, 128);
    configure(1, DataType::FP32, 2, 1, 1, 128);
    set(0, 0, 1, 0xaa);
    set(1, 0, 0, 0x3f800000);
  }
  static TileOperands tquant() {
    TileOperands o = OpsHarness::operands(0, {1}, 0x3f800000);  // scale 1.0
    o.scalar1 = 0;                                                 // zero point
    return o;
  }
};

// PTO-AVS-TILE-TQUANT-PADDING-001: TQUANT pads with Null whatever the
// bundle selected (asl/tile/model/numeric/formats.asl TQUANT): the valid
// element is defined and the previously written padding element is not.
// The quantized value 1 (1.0 * 1.0 + 0, exact; TileProfileQuantize of the
// reference profile) is checked in addition.
TEST(OpsSpecHandlerPadding, PTO_AVS_TILE_TQUANT_PADDING_001) {
  QuantPoint h;  // no B.DATR, as in the point
  ASSERT_TRUE(h.tiles.tile(0).element_defined_at(0, 1));
  ASSERT_TRUE(h.run(TileOp::TQUANT, QuantPoint::tquant(), NumericProfile::Reference, current_pad_value(h.bundle)));
  EXPECT_TRUE(h.tiles.tile(0).element_defined_at(0, 0));
  EXPECT_EQ(h.raw(0, 0, 0), 1U);
  EXPECT_FALSE(h.tiles.tile(0).element_defined_at(0, 1));
}

// A real TQUANT bundle must carry B.DATR PadValue 00 (the quantization
// schema), which CurrentBundlePadValue reads as Zero; TQUANT still applies
// TilePad_Null, so the padding stays undefined.
TEST(OpsSpecHandlerPadding, TquantIgnoresBundlePadValue) {
  QuantPoint h;
  ASSERT_TRUE(h.run(TileOp::TQUANT, QuantPoint::tquant(), NumericProfile::Reference, PadValue::Zero));
  EXPECT_TRUE(h.tiles.tile(0).element_defined_at(0, 0));
  EXPECT_FALSE(h.tiles.tile(0).element_defined_at(0, 1));
  EXPECT_FALSE(h.tiles.tile(0).element_defined_at(63, 1));
}

}  // namespace
}  // namespace pto::tile::test
