// Hand-translated spec test points the automatic extractor skipped (model
// helpers, ASL tuples / record literals / case): TCVT canonicalisation,
// defaults, E8M0 rounding / pairs / specials, schema and status flags, and
// the irregular / expansion points (EXPDIF stage 3, TROWARGMIN index type,
// TMOV definedness, TDEQUANT affine, TQUANT defaults and zero mask, TGATHER /
// TSCATTER stage 2), from /work/spec/tests/asl/tile/**.
//
// Each test names its AVS id.  Where a point pokes a model-internal record
// (_BundleDataAttributes, _BundleTileBindings, _Tiles) or calls a dispatch
// helper (ResolveBundleTileDestinationsWithShapeAndType, ExecuteTileInstruction),
// the test drives the architectural counterpart instead: the kernel entry
// (TileKernel::operands_legal / execute, as the generic commit path calls
// them) or a complete encoded bundle run through the machine
// (bundle_test_host.hpp), whose words are the points' own bit constructions.
// Expected values are the points' assertions or hand derivations from
// asl/arch/profile/reference-profile.asl noted at the test.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "bundle_test_host.hpp"
#include "ops_harness.hpp"
#include "tile/ops_convert.hpp"
#include "tile/ops_registry.hpp"
#include "tile_request.hpp"

namespace pto::tile::test {
namespace {

using ::pto::test::bdim;
using ::pto::test::bior;
using ::pto::test::BundleOutcome;
using ::pto::test::BundleTestHost;
using ::pto::test::encode_form;
using ::pto::test::kBDatr;
using ::pto::test::kBIotSrcDst;
using ::pto::test::kBIotSrcSrcDst;
using ::pto::test::kBstop;
using ::pto::test::tepl_start;
using arch::FaultCode;
using isa::TileOp;
using num::RoundingMode;

constexpr unsigned code(DataType t) { return num::code_of(t); }
constexpr unsigned kDtypeNone = num::kDataTypeNoneCode;

// TEPL selectors (mode, function) of the points' BSTART words.
constexpr unsigned kTcvtFunction = 27;                                     // mode 0, selector 0x01B
constexpr unsigned kTrowexpandexpdifFunction = 11, kTcolexpandexpdifFunction = 27;  // mode 2, 0x04B / 0x05B
constexpr unsigned kTrowargminFunction = 13;                               // mode 2, selector 0x04D
constexpr unsigned kTquantFunction = 10, kTgatherFunction = 15, kTscatterFunction = 16;  // mode 3

// ConfigureTile(index, capacity, ..., columns, valid_rows, valid_columns,
// type, RowMajor, location) on a machine's tile file; rows derive from the
// capacity (the points' row counts either equal the derived rows or are
// never read by the operation).
void configure(BundleTestHost& h, TileIndex i, std::uint32_t capacity, std::uint32_t columns, std::uint32_t valid_rows,
               std::uint32_t valid_columns, DataType t, PeMask mask = 0b1111) {
  ASSERT_EQ(h.file.configure(i, tile_request(capacity, columns, valid_rows, valid_columns, t, mask)), FaultCode::Fault_None)
      << "tile " << unsigned{i};
}

void write(BundleTestHost& h, TileIndex i, std::uint32_t row, std::uint32_t column, std::uint64_t v) {
  h.file.tile(i).write_element(row, column, v);
}

std::uint64_t read(const BundleTestHost& h, TileIndex i, std::uint32_t row, std::uint32_t column) {
  return ::pto::test::element_at(h, i, row, column);
}

// B.DATR DataType, PadValue (and the other fields zero).
std::uint64_t datr(unsigned data_type, unsigned pad) {
  return encode_form(kBDatr, {{"DataType", data_type}, {"PadValueOrByteId", pad}});
}

// One terminating Local B.IOT: SrcTile0 [, SrcTile1] -> new destination.
std::uint64_t biot(unsigned size_code, unsigned pe_mode, unsigned source0) {
  return encode_form(kBIotSrcDst, {{"SrcTile0", source0}, {"SizeCode", size_code}, {"PEMode", pe_mode}, {"L", 1}, {"DstTile", 0}});
}
std::uint64_t biot2(unsigned size_code, unsigned pe_mode, unsigned source0, unsigned source1) {
  return encode_form(kBIotSrcSrcDst, {{"SrcTile0", source0},
                                      {"SrcTile1", source1},
                                      {"SizeCode", size_code},
                                      {"PEMode", pe_mode},
                                      {"L", 1},
                                      {"DstTile", 0}});
}

// ======================================================================= TCVT

// PTO-AVS-TILE-TCVT-CANONICAL-001 (TileOperandsLegal_TCVT,
// asl/tile/model/legality/operand-schema.asl): a Matrix (private CUBE)
// source needs Canonicalize=1 and Layout=NORM; an ordinary source rejects
// Canonicalize=1.  The point's record assignments are B.DATR field values.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TCVT_CANONICAL_001) {
  const auto setup = [](OpsHarness& h, TileLocation source_location) {
    h.configure(0, DataType::FP32, 8, 2, 2, 256, TileLayout::RowMajor, source_location);
    h.configure(1, DataType::FP16, 8, 2, 2, 128);
    h.fill(0, {0});
    // SetBundleDataAttributeState(FP16, NORM, Null, 0, 0, Sat=0, Canonicalize=1).
    h.bundle.data_attributes_present = true;
    h.bundle.data_attributes.data_type_present = true;
    h.bundle.data_attributes.data_type = static_cast<std::uint8_t>(code(DataType::FP16));
    h.bundle.data_attributes.data_layout = 0;
    h.bundle.data_attributes.pad_value = 3;
    h.bundle.data_attributes.canonicalize = true;
  };
  const TileOperands o = OpsHarness::operands(1, {0});
  {
    OpsHarness h;
    setup(h, TileLocation::Matrix);
    EXPECT_TRUE(h.legal(TileOp::TCVT, o));
    h.bundle.data_attributes.canonicalize = false;  // missing canonicalisation
    EXPECT_FALSE(h.legal(TileOp::TCVT, o));
    h.bundle.data_attributes.canonicalize = true;
    h.bundle.data_attributes.data_layout = 1;  // a transformed layout (ND2DN)
    EXPECT_FALSE(h.legal(TileOp::TCVT, o));
  }
  {
    OpsHarness h;  // ordinary source with Canonicalize=1
    setup(h, TileLocation::Any);
    EXPECT_FALSE(h.legal(TileOp::TCVT, o));
  }
}

// PTO-AVS-TILE-TCVT-DEFAULTS-001 (InstructionContractDestinationDataType_TCVT,
// InstructionContractDefaultRounding_TCVT, TCVT.asl): an omitted or DTYPE_NONE
// B.DATR DataType inherits the source type, an encoded zero selects FP64;
// RMode zero is RTZ for float -> integer and RNE otherwise.  The destination
// type is checked both on ResolveBundleEffectiveDataType and on the type of
// the destination a decoded TCVT bundle allocates.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TCVT_DEFAULTS_001) {
  const auto effective = [](bool present, unsigned data_type) {
    arch::BlockState b;
    b.operation.data_type_valid = true;
    b.operation.data_type = static_cast<std::uint8_t>(code(DataType::U8));
    b.data_attributes_present = present;
    b.data_attributes.data_type_present = present;
    b.data_attributes.data_type = static_cast<std::uint8_t>(data_type);
    return effective_data_type(b);
  };
  EXPECT_EQ(effective(false, 0), DataType::U8);
  EXPECT_EQ(effective(true, kDtypeNone), DataType::U8);
  EXPECT_EQ(effective(true, 0), DataType::FP64);

  struct Case {
    bool datr;
    unsigned data_type;
    DataType expected;
  };
  for (const Case& c : {Case{false, 0, DataType::U8}, Case{true, kDtypeNone, DataType::U8}, Case{true, 0, DataType::FP64}}) {
    BundleTestHost h(arch::MachineConfig::reference());
    configure(h, 1, 128, 8, 1, 2, DataType::U8);
    write(h, 1, 0, 0, 3);
    write(h, 1, 0, 1, 4);
    std::vector<std::uint64_t> words{tepl_start(kTcvtFunction, code(DataType::U8))};
    if (c.datr) words.push_back(datr(c.data_type, 3));
    for (std::uint64_t w : {bdim(0, 2), bdim(2, 8), biot(c.expected == DataType::FP64 ? 4 : 1, 7, 1), kBstop}) words.push_back(w);
    const BundleOutcome o = h.run(words);
    ASSERT_TRUE(o.ok()) << c.data_type << " " << o.message << o.trace.outcome;
    EXPECT_EQ(h.file.tile(h.destination()).data_type(), c.expected) << c.data_type;
  }

  const NumericSelection rmode_zero;  // RMode 000: the operation default
  EXPECT_EQ(ops::tcvt_rounding(rmode_zero, DataType::FP32, DataType::S32), RoundingMode::RTZ);
  EXPECT_EQ(ops::tcvt_rounding(rmode_zero, DataType::FP32, DataType::FP16), RoundingMode::RNE);
  EXPECT_EQ(ops::tcvt_rounding(rmode_zero, DataType::S32, DataType::U8), RoundingMode::RNE);

  // The defaults observed on decoded bundles without RMode (the IEEE profile
  // rounds; the reference profile's raw rule would hide the mode): FP32 2.5
  // -> S32 is 2 under RTZ (RNE also 2, RNA 3) and -1.5 -> -1 (RNE -2); FP32
  // 1 + 3 * 2^-11 -> FP16 is the even 0x3c02 under RNE (RTZ 0x3c01).
  const auto convert_fp32 = [](DataType destination, unsigned size_code, std::uint32_t a, std::uint32_t b) {
    BundleTestHost h;
    configure(h, 1, 256, 8, 1, 2, DataType::FP32);
    write(h, 1, 0, 0, a);
    write(h, 1, 0, 1, b);
    const BundleOutcome o = h.run({tepl_start(kTcvtFunction, code(DataType::FP32)), datr(code(destination), 3),
                                   bdim(0, 2), bdim(2, 8), biot(size_code, 7, 1), kBstop});
    EXPECT_TRUE(o.ok()) << o.message << o.trace.outcome;
    return std::pair{read(h, h.destination(), 0, 0), read(h, h.destination(), 0, 1)};
  };
  EXPECT_EQ(convert_fp32(DataType::S32, 2, 0x40200000, 0xbfc00000), (std::pair<std::uint64_t, std::uint64_t>{2, ~0ULL}));
  EXPECT_EQ(convert_fp32(DataType::FP16, 1, 0x3f803000, 0x3f803000), (std::pair<std::uint64_t, std::uint64_t>{0x3c02, 0x3c02}));
}

// TileProfileConvert to E8M0 (asl/arch/profile/e8m0-conversion.asl,
// PTO-TCVT-E8M0-PROFILE-001).  The rule is exact, so both numeric profiles
// must give the same result and flags; the reference result is returned.
num::Result to_e8m0(std::uint64_t value, DataType source, RoundingMode mode, bool saturating) {
  const num::Result reference =
      ops::convert_element(value, source, DataType::E8M0, mode, saturating, NumericProfile::Reference);
  const num::Result ieee = ops::convert_element(value, source, DataType::E8M0, mode, saturating, NumericProfile::Ieee);
  EXPECT_EQ(ieee, reference) << std::hex << value << " ieee profile";
  return reference;
}

// PTO-AVS-TILE-TCVT-E8M0-ROUND-003: every rounding mode applied to the
// base-two exponent of BF16 1.5 and 0.75, each inexact (NX only).
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TCVT_E8M0_ROUND_003) {
  struct Case {
    std::uint64_t value;
    RoundingMode mode;
    std::uint64_t expected;
  };
  const Case cases[] = {
      {0x3fc0, RoundingMode::RNE, 128}, {0x3fc0, RoundingMode::RTM, 127}, {0x3fc0, RoundingMode::RTP, 128},
      {0x3fc0, RoundingMode::RTZ, 127}, {0x3fc0, RoundingMode::RNA, 128}, {0x3fc0, RoundingMode::RTO, 128},
      {0x3fc0, RoundingMode::RHB, 128}, {0x3f40, RoundingMode::RTM, 126}, {0x3f40, RoundingMode::RTP, 127},
      {0x3f40, RoundingMode::RTZ, 127},
  };
  for (const Case& c : cases) {
    const num::Result r = to_e8m0(c.value, DataType::BF16, c.mode, false);
    EXPECT_EQ(r.bits, c.expected) << std::hex << c.value << " mode " << static_cast<unsigned>(c.mode);
    EXPECT_EQ(r.flags, num::kNX) << std::hex << c.value << " mode " << static_cast<unsigned>(c.mode);
  }
}

// PTO-AVS-TILE-TCVT-E8M0-PAIRS-005 (HardwareTCVTTypePairSupported): only
// FP16, BF16 and FP32 sources may convert to E8M0; a decoded FP64 -> E8M0
// bundle is Fault_TileLegality before any destination allocation.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TCVT_E8M0_PAIRS_005) {
  const auto pair_legal = [](DataType source) {
    OpsHarness h;
    // TileStorageBytes(16, 8, source): 16 rows of 8 columns.
    const std::uint32_t capacity = 16 * 8 * element_bits(source) / 8;
    h.configure(0, source, 8, 1, 1, capacity);
    h.configure(1, DataType::E8M0, 8, 1, 1, 128);
    h.set(0, 0, 0, 1);
    return h.legal(TileOp::TCVT, OpsHarness::operands(1, {0}));
  };
  EXPECT_TRUE(pair_legal(DataType::FP16));
  EXPECT_TRUE(pair_legal(DataType::BF16));
  EXPECT_TRUE(pair_legal(DataType::FP32));
  EXPECT_FALSE(pair_legal(DataType::FP64));
  EXPECT_FALSE(pair_legal(DataType::E4M3));
  EXPECT_FALSE(pair_legal(DataType::S32));
  EXPECT_FALSE(pair_legal(DataType::E8M0));

  // BSTART.TEPL TCVT FP64 (0x01b19181); B.DATR E8M0, PadValue 11; LB0=1,
  // LB1=1, LB2=8; B.IOT T#1 mask 0001 -> 128-byte destination.
  BundleTestHost h(arch::MachineConfig::reference());
  configure(h, 0, 1024, 8, 1, 1, DataType::FP64, 0b0001);
  write(h, 0, 0, 0, 0x3ff0000000000000ULL);
  const std::uint64_t capacity_before = h.file.core_capacity_in_use();
  ASSERT_EQ(tepl_start(kTcvtFunction, code(DataType::FP64)), 0x01b19181U);
  const BundleOutcome o = h.run({tepl_start(kTcvtFunction, code(DataType::FP64)), datr(code(DataType::E8M0), 3),
                                 bdim(0, 1), bdim(1, 1), bdim(2, 8), biot(1, 4, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), capacity_before);
  EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
}

// PTO-AVS-TILE-TCVT-SCHEMA-001 (SelectedBundleClosedTCVTSchemaLegal,
// asl/block/model/dispatch/tcvt-schema.asl): one typed Local source and one
// new terminating destination.  B.IOR, a second source, a source whose type
// is not the BSTART DataType, or a missing LB0 reject before allocation.
//
// First the schema predicate itself (TileKernel::schema_legal) on the
// point's header state, with its record pokes as header / tile changes.
// Then the same variants as decoded bundles: there the ASL's
// ExecuteBundleTileOperation checks BundleOperationBindingsComplete
// (asl/block/model/dispatch/descriptor-legality.asl) before any closed
// schema, so the point's B.IOR (RegSrc0 = x1, BundleOperationScalarBinding-
// SchemaLegal) and the second source (source count 2 != 1) raise
// Fault_BundleControl; an all-zero B.IOR passes that check and is rejected
// by the TCVT schema's own B.IOR rule (Fault_TileLegality), as are the type
// mismatch and the missing LB0.  Every variant leaves no allocation.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TCVT_SCHEMA_001) {
  const auto prepare_tiles = [](OpsHarness& h, DataType source_type) {
    h.configure(1, source_type, 2, 1, 2, 128);
    h.set(1, 0, 0, 3);
    h.set(1, 0, 1, 4);
    // BSTART TCVT U8; B.DIM LB0=2; B.IOT T#2 (tile 1), mask 1111, L -> T<SizeCode 1>.
    arch::BlockState& b = h.bundle;
    b.operation.data_type_valid = true;
    b.operation.data_type = static_cast<std::uint8_t>(code(DataType::U8));
    b.dimensions[0] = 2;
    b.dimension_present[0] = true;
    arch::BundleTileBinding& t = b.tile_bindings[0];
    t.valid = t.destination_valid = t.source0_valid = t.last = true;
    t.destination = 0;
    t.destination_size = 1;
    t.pe_mask = 0b1111;
    t.source0 = 1;
  };
  const TileKernel* k = tile_kernel_table().get(TileOp::TCVT);
  ASSERT_NE(k, nullptr);
  ASSERT_NE(k->schema_legal, nullptr);
  {
    OpsHarness h;
    prepare_tiles(h, DataType::U8);
    EXPECT_TRUE(k->schema_legal(h.schema_view()));
    h.bundle.scalar_bindings[0].valid = true;  // SetBundleScalarBinding(0, x0, x1, x0, x0, 1)
    h.bundle.scalar_bindings[0].source0 = 1;
    h.bundle.scalar_bindings[0].source_count = 1;
    EXPECT_FALSE(k->schema_legal(h.schema_view()));
  }
  {
    OpsHarness h;
    prepare_tiles(h, DataType::U8);
    h.bundle.tile_bindings[0].source1_valid = true;
    EXPECT_FALSE(k->schema_legal(h.schema_view()));
  }
  {
    OpsHarness h;
    prepare_tiles(h, DataType::U16);
    EXPECT_FALSE(k->schema_legal(h.schema_view()));
  }
  {
    OpsHarness h;
    prepare_tiles(h, DataType::U8);
    h.bundle.dimension_present[0] = false;
    EXPECT_FALSE(k->schema_legal(h.schema_view()));
  }

  const std::uint64_t start = tepl_start(kTcvtFunction, code(DataType::U8));
  ASSERT_EQ(start, 0xd9b19181U);
  const auto prepare = [](BundleTestHost& h, DataType source_type) {
    configure(h, 1, 128, 2, 1, 2, source_type);
    write(h, 1, 0, 0, 3);
    write(h, 1, 0, 1, 4);
  };
  {
    BundleTestHost h(arch::MachineConfig::reference());  // the canonical schema executes
    prepare(h, DataType::U8);
    const BundleOutcome o = h.run({start, bdim(0, 2), biot(1, 7, 1), kBstop});
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.file.tile(h.destination()).data_type(), DataType::U8);
    EXPECT_EQ(read(h, h.destination(), 0, 0), 3U);
    EXPECT_EQ(read(h, h.destination(), 0, 1), 4U);
  }
  struct Variant {
    const char* what;
    DataType source_type;
    std::vector<std::uint64_t> words;
    FaultCode fault;
  };
  const Variant variants[] = {
      {"B.IOR x1", DataType::U8, {start, bdim(0, 2), bior(1, 0), biot(1, 7, 1), kBstop}, FaultCode::Fault_BundleControl},
      {"B.IOR x0", DataType::U8, {start, bdim(0, 2), bior(0, 0), biot(1, 7, 1), kBstop}, FaultCode::Fault_TileLegality},
      {"second source", DataType::U8, {start, bdim(0, 2), biot2(1, 7, 1, 1), kBstop}, FaultCode::Fault_BundleControl},
      {"source type", DataType::U16, {start, bdim(0, 2), biot(1, 7, 1), kBstop}, FaultCode::Fault_TileLegality},
      {"missing LB0", DataType::U8, {start, biot(1, 7, 1), kBstop}, FaultCode::Fault_TileLegality},
  };
  for (const Variant& v : variants) {
    BundleTestHost h(arch::MachineConfig::reference());
    prepare(h, v.source_type);
    const std::uint64_t before = h.file.core_capacity_in_use();
    const BundleOutcome o = h.run(v.words);
    EXPECT_EQ(o.fault, v.fault) << v.what;
    EXPECT_EQ(h.file.core_capacity_in_use(), before) << v.what;
    EXPECT_FALSE(h.file.tile(0).allocated()) << v.what;
  }
}

// PTO-AVS-TILE-TCVT-E8M0-SPECIAL-004: zero, negative, NaN, infinity,
// endpoints, finite underflow / overflow, with and without Sat (RNE).
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TCVT_E8M0_SPECIAL_004) {
  struct Case {
    std::uint64_t value;
    DataType source;
    bool saturating;
    std::uint64_t expected;
    num::Flags flags;
  };
  const num::Flags nv = num::kNV, of_nx = num::kOF | num::kNX, uf_nx = num::kUF | num::kNX;
  const Case cases[] = {
      {0x0000, DataType::BF16, false, 0xff, nv},           // zero
      {0xbf80, DataType::BF16, true, 0xff, nv},            // negative, even under Sat
      {0x7fc0, DataType::BF16, false, 0xff, nv},           // NaN
      {0x7f80, DataType::BF16, false, 0xff, of_nx},        // +infinity overflows
      {0x7f80, DataType::BF16, true, 0xfe, of_nx},         // ... clamped under Sat
      {0x00400000, DataType::FP32, false, 0x00, 0},        // 2^-127: exact lower endpoint
      {0x00200000, DataType::FP32, false, 0xff, uf_nx},    // 2^-128 underflows
      {0x00200000, DataType::FP32, true, 0x00, uf_nx},     // ... clamped under Sat
      {0x7f000000, DataType::FP32, false, 0xfe, 0},        // 2^127: exact upper endpoint
      {0x7f7fffff, DataType::FP32, false, 0xff, of_nx},    // FP32 max rounds to 2^128
      {0x7f7fffff, DataType::FP32, true, 0xfe, of_nx},
  };
  for (const Case& c : cases) {
    const num::Result r = to_e8m0(c.value, c.source, RoundingMode::RNE, c.saturating);
    EXPECT_EQ(r.bits, c.expected) << std::hex << c.value << " sat " << c.saturating;
    EXPECT_EQ(r.flags, c.flags) << std::hex << c.value << " sat " << c.saturating;
  }
}

// PTO-AVS-TILE-TCVT-FLAGS-001 (TileCommitConversionResult,
// asl/tile/model/numeric/formats.asl): the commit ORs the conversion flags
// into the sticky CORE_STATE[36:32] and publishes the converted destination.
// The point calls the commit helper with a prepared result and flags '00010';
// no conversion produces DZ, so the architectural counterpart is a decoded
// BF16 -> E8M0 TCVT of 1.5 (NX, result 128 under RNE, E8M0-ROUND-003) with
// the point's prior sticky OF ('00100'): the status becomes OF|NX.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TCVT_FLAGS_001) {
  BundleTestHost h(arch::MachineConfig::reference());
  configure(h, 0, 256, 8, 1, 1, DataType::BF16);
  write(h, 0, 0, 0, 0x3fc0);
  h.m.state.sysregs.core_state |= arch::Word{num::kOF} << arch::kCoreStateFlagsShift;
  const BundleOutcome o = h.run({tepl_start(kTcvtFunction, code(DataType::BF16)), datr(code(DataType::E8M0), 3),
                                 bdim(0, 1), bdim(2, 8), biot(1, 7, 0), kBstop});
  ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
  EXPECT_EQ((h.m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F, unsigned{num::kOF | num::kNX});
  EXPECT_EQ(read(h, h.destination(), 0, 0), 128U);
  EXPECT_EQ(h.file.tile(h.destination()).data_type(), DataType::E8M0);
}

// ============================================================ expansions

// PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001: decoded TROWEXPANDEXPDIF /
// TCOLEXPANDEXPDIF for the five legal (source, destination) pairs, DTYPE_NONE
// inheritance with PadValue Max, and the four rejected pairs.
//
// Expected values (reference profile): a same-type pair subtracts raw
// carriers (ScalarFPBinaryProfile SUB: left - right) and applies
// TileExponential (value + 1) to the positive normal difference; a mixed
// FP16/BF16 -> FP32 pair widens exactly and hits the
// HardwareNumericMixedExpdifDiscriminator results the point asserts
// (0x3f810100 and 0x402da16e).  FP32 carriers equal to those widened values
// (discriminators '01' and '10') must NOT take the mixed results.
//   FP16 0x2000 - 0x0001 = 0x1fff -> 0x2000
//   BF16 0x3f80 - 0x3b00 = 0x0480 -> 0x0481
//   FP32 0x40000000 - 0x3f800000 = 0x00800000 -> 0x00800001
//   FP32 0x3c000000 - 0x33800000 = 0x08800000 -> 0x08800001
//   FP32 0x3f800000 - 0x3b000000 = 0x04800000 -> 0x04800001
struct ExpdifCase {
  bool row_axis;
  DataType source, destination;
  bool datr_present;
  unsigned datr_type, pad;
  std::uint64_t left, broadcast, expected;
};

BundleOutcome run_expdif(BundleTestHost& h, const ExpdifCase& c) {
  // PrepareDecodedExpdifStage3: a 2x2 source, a 2x1 (row) or 1x2 (column)
  // broadcast, LB0=LB1=LB2=2, B.IOT T#2, T#3 -> 256-byte destination.
  const DataType selected = !c.datr_present || c.datr_type == kDtypeNone ? c.source : static_cast<DataType>(c.datr_type);
  const std::uint32_t physical_rows = selected == DataType::FP32 ? 32 : 64;
  configure(h, 1, physical_rows * 2 * element_bits(c.source) / 8, 2, 2, 2, c.source);
  configure(h, 2, 256, c.row_axis ? 1 : 2, c.row_axis ? 2 : 1, c.row_axis ? 1 : 2, c.source);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t col = 0; col < 2; ++col) write(h, 1, r, col, c.left);
  for (std::uint32_t r = 0; r < (c.row_axis ? 2U : 1U); ++r)
    for (std::uint32_t col = 0; col < (c.row_axis ? 1U : 2U); ++col) write(h, 2, r, col, c.broadcast);
  std::vector<std::uint64_t> words{
      tepl_start(c.row_axis ? kTrowexpandexpdifFunction : kTcolexpandexpdifFunction, code(c.source), 2)};
  if (c.datr_present) words.push_back(datr(c.datr_type, c.pad));
  for (std::uint64_t w : {bdim(0, 2), bdim(1, 2), bdim(2, 2), biot2(2, 7, 1, 2), kBstop}) words.push_back(w);
  return h.run(words);
}

TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_EXPDIF_STAGE3_DECODED_001) {
  using D = DataType;
  const unsigned fp16 = code(D::FP16), bf16 = code(D::BF16), fp32 = code(D::FP32);
  const ExpdifCase positive[] = {
      {true, D::FP16, D::FP16, false, fp16, 0, 0x2000, 0x0001, 0x2000},
      {true, D::BF16, D::BF16, true, kDtypeNone, 1, 0x3f80, 0x3b00, 0x0481},
      {true, D::FP32, D::FP32, false, fp32, 0, 0x40000000, 0x3f800000, 0x00800001},
      {true, D::FP16, D::FP32, true, fp32, 0, 0x2000, 0x0001, 0x3f810100},
      {true, D::BF16, D::FP32, true, fp32, 0, 0x3f80, 0x3b00, 0x402da16e},
      {false, D::FP16, D::FP16, true, fp16, 0, 0x2000, 0x0001, 0x2000},
      {false, D::BF16, D::BF16, true, bf16, 0, 0x3f80, 0x3b00, 0x0481},
      {false, D::FP32, D::FP32, false, fp32, 0, 0x40000000, 0x3f800000, 0x00800001},
      {false, D::FP16, D::FP32, true, fp32, 0, 0x2000, 0x0001, 0x3f810100},
      {false, D::BF16, D::FP32, true, fp32, 0, 0x3f80, 0x3b00, 0x402da16e},
      {true, D::FP32, D::FP32, false, fp32, 0, 0x3c000000, 0x33800000, 0x08800001},   // discriminator '01'
      {false, D::FP32, D::FP32, false, fp32, 0, 0x3f800000, 0x3b000000, 0x04800001},  // discriminator '10'
  };
  int index = 0;
  for (const ExpdifCase& c : positive) {
    SCOPED_TRACE(testing::Message() << "positive case " << index++);
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o = run_expdif(h, c);
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    const TileIndex d = h.destination();
    const Tile& t = h.file.tile(d);
    EXPECT_TRUE(t.allocated());
    EXPECT_EQ(t.descriptor().storage_kind, TileStorageKind::Numeric);
    EXPECT_EQ(t.descriptor().layout, TileLayout::RowMajor);
    EXPECT_EQ(t.data_type(), c.destination);
    EXPECT_EQ(t.descriptor().capacity_bytes, 256U);
    EXPECT_EQ(t.descriptor().valid_rows, 2U);
    EXPECT_EQ(t.descriptor().valid_columns, 2U);
    for (std::uint32_t r = 0; r < 2; ++r)
      for (std::uint32_t col = 0; col < 2; ++col) EXPECT_EQ(read(h, d, r, col), c.expected) << r << "," << col;
    if (c.left == 0x3c000000) {
      EXPECT_NE(read(h, d, 0, 0), 0x3f810100U);
    }
    if (c.left == 0x3f800000 && c.source == D::FP32) {
      EXPECT_NE(read(h, d, 0, 0), 0x402da16eU);
    }
    // CurrentBundlePadValue: PadValue 01 = Max (BF16 0x7f7f), 00 = Zero, an
    // omitted B.DATR = Null (the physical padding row 2 stays undefined).
    if (c.datr_present) {
      ASSERT_TRUE(t.element_defined_at(2, 0));
      EXPECT_EQ(t.read_raw(t.linear_index(2, 0)), c.pad == 1 ? 0x7f7fU : 0U);
    } else {
      EXPECT_FALSE(t.element_defined_at(2, 0));
    }
    EXPECT_EQ(read(h, 1, 0, 0), c.left);  // sources persist
    EXPECT_EQ(read(h, 2, 0, 0), c.broadcast);
    EXPECT_TRUE(h.file.tile(1).contents_defined());
    EXPECT_TRUE(h.file.tile(2).contents_defined());
  }

  // Unsupported pairs (TileExpandExpdifTypePairLegal): FP16 -> FP64 (encoded
  // zero), FP16 -> BF16, BF16 -> FP16, FP32 -> FP16.
  const ExpdifCase rejected[] = {
      {true, D::FP16, D::FP64, true, 0, 0, 0x2000, 0x0001, 0},
      {true, D::FP16, D::BF16, true, bf16, 0, 0x2000, 0x0001, 0},
      {false, D::BF16, D::FP16, true, fp16, 0, 0x3f80, 0x3b00, 0},
      {false, D::FP32, D::FP16, true, fp16, 0, 0x40000000, 0x3f800000, 0},
  };
  index = 0;
  for (const ExpdifCase& c : rejected) {
    SCOPED_TRACE(testing::Message() << "rejected case " << index++);
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o = run_expdif(h, c);
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_EQ(read(h, 1, 0, 0), c.left);
    EXPECT_FALSE(h.file.tile(0).allocated());
    EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
  }
}

// ================================================================ TROWARGMIN

// PTO-AVS-TILE-TROWARGMIN-INDEX-DTYPE-DECODED-001: S32 and U32 index
// destinations execute (first minimum: row {4,2,2} -> 1, row {7,3,6} -> 1);
// S16 rejects before result effects.  The decoded bundle resolves the index
// destination as U32 (ResolveBundleTileDestinationsForOperation); the point
// forces S32 / S16 through ResolveBundleTileDestinationsWithShapeAndType, a
// dispatch helper with no encoding, so those two run through the kernel
// entry (TileOperandsLegal then the handler) on a destination of that type.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TROWARGMIN_INDEX_DTYPE_DECODED_001) {
  {
    BundleTestHost h(arch::MachineConfig::reference());
    configure(h, 0, 128, 4, 2, 3, DataType::U8);
    const std::uint64_t values[2][3] = {{4, 2, 2}, {7, 3, 6}};
    for (std::uint32_t r = 0; r < 2; ++r)
      for (std::uint32_t c = 0; c < 3; ++c) write(h, 0, r, c, values[r][c]);
    const BundleOutcome o = h.run({tepl_start(kTrowargminFunction, code(DataType::U8), 2), bdim(0, 3), bdim(1, 2),
                                   bdim(2, 4), biot(1, 7, 0), kBstop});
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    const TileIndex d = h.destination();
    EXPECT_EQ(h.file.tile(d).data_type(), DataType::U32);
    EXPECT_EQ(read(h, d, 0, 0), 1U);
    EXPECT_EQ(read(h, d, 1, 0), 1U);
  }
  for (DataType index_type : {DataType::S32, DataType::U32, DataType::S16}) {
    OpsHarness h;
    h.configure(0, DataType::U8, 4, 2, 3, 128);
    h.fill(0, {4, 2, 2, 7, 3, 6});
    h.configure(1, index_type, 1, 2, 1, 128);
    h.loop(DataType::U8, 3, 2, 4);
    const TileOperands o = OpsHarness::operands(1, {0});
    if (index_type == DataType::S16) {
      EXPECT_FALSE(h.legal(TileOp::TROWARGMIN, o));
      EXPECT_FALSE(h.tiles.tile(1).element_defined_at(0, 0));
      EXPECT_EQ(h.raw(0, 0, 0), 4U);
      continue;
    }
    ASSERT_TRUE(h.run(TileOp::TROWARGMIN, o)) << num::name(index_type);
    EXPECT_EQ(h.word(1, 0, 0), 1U);
    EXPECT_EQ(h.word(1, 1, 0), 1U);
  }
}

// ===================================================================== TMOV

// PTO-AVS-TILE-TMOV-DEFINED-001 (TMOV, asl/tile/model/memory/shared-movement.asl):
// Local TMOV copies payload and per-element definedness; the source persists.
// Driven through the TMOV kernel entry on the point's preconfigured tiles.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TMOV_DEFINED_001) {
  OpsHarness h;
  h.configure(1, DataType::U8, 4, 1, 2, 128);
  h.configure(2, DataType::U8, 4, 1, 2, 128);
  h.set(1, 0, 0, 7);
  const TileKernel* k = tile_kernel_table().get(TileOp::TMOV);
  ASSERT_NE(k, nullptr);
  const TileOperands o = OpsHarness::operands(2, {1});
  ASSERT_TRUE(k->operands_legal(h.tiles, o, h.bundle));
  TileExecutionContext c{h.tiles, h.memory, h.bundle, o, PadValue::Null, false, NumericProfile::Reference};
  ASSERT_TRUE(k->execute(c).ok());
  EXPECT_EQ(h.raw(2, 0, 0), 7U);
  EXPECT_TRUE(h.tiles.tile(2).element_defined_at(0, 0));
  EXPECT_FALSE(h.tiles.tile(2).element_defined_at(0, 1));
  EXPECT_EQ(h.raw(1, 0, 0), 7U);
  EXPECT_TRUE(h.tiles.tile(1).element_defined_at(0, 0));
}

// =========================================================== quantization

// PTO-AVS-TILE-TDEQUANT-AFFINE-001: S8 {1, 2}, multiplier 1.0, zero point 0
// -> FP32 {1.0, 2.0} (TDEQUANT through its kernel entry, default control).
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TDEQUANT_AFFINE_001) {
  OpsHarness h;
  h.configure(0, DataType::FP32, 2, 1, 2, 128);  // 16 rows x 2 columns
  h.configure(1, DataType::S8, 2, 1, 2, 128);    // 64 rows x 2 columns
  h.set(1, 0, 0, 1);
  h.set(1, 0, 1, 2);
  TileOperands o = OpsHarness::operands(0, {1}, 0x3f800000);
  o.scalar1 = 0;
  ASSERT_TRUE(h.run(TileOp::TDEQUANT, o));
  EXPECT_EQ(h.raw(0, 0, 0), 0x3f800000U);
  EXPECT_EQ(h.raw(0, 0, 1), 0x40000000U);
}

// TQUANT bundle: BSTART.TEPL TQUANT FP32; B.DATR S8; LB0=2; B.IOT T#1 -> T
// over a 1x2 FP32 source {1.0, 2.0}; `extra` words precede BSTOP.
BundleOutcome run_tquant(BundleTestHost& h, const std::vector<std::uint64_t>& extra) {
  configure(h, 1, 128, 2, 1, 2, DataType::FP32);
  write(h, 1, 0, 0, 0x3f800000);
  write(h, 1, 0, 1, 0x40000000);
  std::vector<std::uint64_t> words{tepl_start(kTquantFunction, code(DataType::FP32), 3), datr(code(DataType::S8), 0),
                                   bdim(0, 2), biot(1, 7, 1)};
  words.insert(words.end(), extra.begin(), extra.end());
  words.push_back(kBstop);
  return h.run(words);
}

// PTO-AVS-TILE-TQUANT-DEFAULTS-001: an omitted B.IOR resolves multiplier 1.0
// and zero point 0 (BundleTileInstructionOperands), observed as S8 {1, 2}
// from FP32 {1.0, 2.0}; an encoded all-zero B.IOR (x0, x0, x0) supplies a
// zero multiplier and fails the raw scalar preflight
// (BundleOperationGPRBindingValuesLegal) before allocation.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TQUANT_DEFAULTS_001) {
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o = run_tquant(h, {});
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    const TileIndex d = h.destination();
    EXPECT_EQ(h.file.tile(d).data_type(), DataType::S8);
    EXPECT_EQ(read(h, d, 0, 0), 1U);
    EXPECT_EQ(read(h, d, 0, 1), 2U);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const std::uint64_t before = 128 * 4;  // T#1 on four PEs
    const BundleOutcome o = run_tquant(h, {bior(0, 0, 0, 0)});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_EQ(h.file.core_capacity_in_use(), before);
    EXPECT_FALSE(h.file.tile(0).allocated());
  }
}

// PTO-AVS-TILE-TQUANT-MASK-ZERO-001: PE_MASK 0000 exits before schema, GPR,
// descriptor and allocation checks: an otherwise incomplete bundle (no
// B.DATR, no B.DIM, unallocated source T#64) completes without fault or
// destination allocation.  BSTART word: mode 3, function 10, DataType FP32.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TQUANT_MASK_ZERO_001) {
  BundleTestHost h(arch::MachineConfig::reference());
  const BundleOutcome o = h.run({tepl_start(kTquantFunction, code(DataType::FP32), 3), biot(1, 0, 63), kBstop});
  EXPECT_TRUE(o.ok()) << o.message << o.trace.outcome;
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  EXPECT_FALSE(h.file.tile(0).allocated());
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

// ======================================================== gather / scatter

// PrepareTgatherStage2 / PrepareTscatterStage2: a 2x1 data tile T#1 (tile 0)
// and a 2x1 index tile T#2 (tile 1) holding {first, second}; LB0=1, LB1=2,
// LB2=1; B.IOT T#1, T#2 -> new destination of `size_code`.
BundleOutcome run_indexed(BundleTestHost& h, unsigned function, std::uint32_t capacity, unsigned size_code,
                          DataType data_type, DataType index_type, std::uint64_t first, std::uint64_t second,
                          std::uint64_t value0, std::uint64_t value1) {
  configure(h, 0, capacity, 2, 2, 1, data_type);
  configure(h, 1, capacity, 1, 2, 1, index_type);
  write(h, 1, 0, 0, first);
  write(h, 1, 1, 0, second);
  write(h, 0, 0, 0, value0);
  write(h, 0, 1, 0, value1);
  return h.run({tepl_start(function, code(data_type), 3), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                biot2(size_code, 7, 0, 1), kBstop});
}

// PTO-AVS-TILE-TGATHER-STAGE2-DECODED-001: destination[r, 0] =
// source[index[r, 0], 0] with U64 and S16 index tiles; TF32 carriers with
// payload bits outside the TF32 encoding move unchanged; a U64 index above 32
// bits (0x100000001) is out of range at full width: Fault_TileLegality
// before publication, the source intact, the destination rolled back.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TGATHER_STAGE2_DECODED_001) {
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o = run_indexed(h, kTgatherFunction, 128, 1, DataType::U8, DataType::U64, 1, 0, 0x11, 0x22);
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    const TileIndex d = h.destination();
    EXPECT_EQ(h.file.tile(d).data_type(), DataType::U8);
    EXPECT_EQ(read(h, d, 0, 0), 0x22U);
    EXPECT_EQ(read(h, d, 1, 0), 0x11U);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o =
        run_indexed(h, kTgatherFunction, 128, 1, DataType::TF32, DataType::S16, 1, 0, 0x3f800001, 0x3f800002);
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    const TileIndex d = h.destination();
    EXPECT_EQ(h.file.tile(d).data_type(), DataType::TF32);
    EXPECT_EQ(read(h, d, 0, 0), 0x3f800002U);
    EXPECT_EQ(read(h, d, 1, 0), 0x3f800001U);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o =
        run_indexed(h, kTgatherFunction, 128, 1, DataType::U8, DataType::U64, 0x0000000100000001ULL, 0, 0x31, 0x42);
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_EQ(read(h, 0, 0, 0), 0x31U);
    EXPECT_FALSE(h.file.tile(2).allocated());  // the first free T index, rolled back
    EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
  }
}

// PTO-AVS-TILE-TSCATTER-STAGE2-DECODED-001: destination[index[r, 0], 0] =
// source[r, 0] with S16 and U64 index tiles, U64 and TF32 data; B64 values
// and TF32 carriers outside the TF32 encoding publish unchanged.
TEST(OpsSpecHandlerConvertIrregular, PTO_AVS_TILE_TSCATTER_STAGE2_DECODED_001) {
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const std::uint64_t v0 = 0x1122334455667788ULL, v1 = 0x8877665544332211ULL;
    const BundleOutcome o = run_indexed(h, kTscatterFunction, 256, 2, DataType::U64, DataType::S16, 1, 0, v0, v1);
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    const TileIndex d = h.destination();
    EXPECT_EQ(h.file.tile(d).data_type(), DataType::U64);
    EXPECT_EQ(read(h, d, 1, 0), v0);
    EXPECT_EQ(read(h, d, 0, 0), v1);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o =
        run_indexed(h, kTscatterFunction, 256, 2, DataType::TF32, DataType::U64, 1, 0, 0x3f800001, 0x3f800002);
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    const TileIndex d = h.destination();
    EXPECT_EQ(read(h, d, 1, 0), 0x3f800001U);
    EXPECT_EQ(read(h, d, 0, 0), 0x3f800002U);
  }
}

}  // namespace
}  // namespace pto::tile::test
