// Spec test points that call semantic handlers directly
// (/work/spec/tests/asl/tile/model/execution/** plus the TSORT/TMRGSORT
// sNaN points of tests/asl/tile/irregular-and-complex/sorting/**),
// translated to the kernel-level counterpart: TileKernel::operands_legal
// (TileOperandsLegal_<handler>) followed by TileKernel::execute, exactly as
// steps 10 and 11 of the generic commit path run them.  Each test carries
// the AVS id; expected values are the points' own assertions (reference
// profile, raw carriers).  The CUBE points decode their Function through the
// CUBE start word first; the matrix post-processing points run as complete
// encoded CUBE bundles (see the section comments).  Assertions on
// model-internal helpers with no kernel counterpart are listed in a comment
// in each test.
#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <optional>

#include "block/bundle_engine.hpp"
#include "bundle_test_host.hpp"
#include "isa/tile_start.hpp"
#include "numerics/format.hpp"
#include "ops_harness.hpp"
#include "tile/cube_layout.hpp"
#include "tile/ops_matrix.hpp"
#include "tile_request.hpp"

namespace pto::tile::test {
namespace {

using isa::TileOp;

// The points' ConfigureTile(index, capacity, rows, columns, valid_rows,
// valid_columns, type, RowMajor, Any) is OpsHarness::configure_tile without
// `rows`, only an upper bound in the ASL (the descriptor derives its rows
// from capacity and columns).

TileOperands sort_operands(TileIndex values, TileIndex indices, TileIndex source, std::uint8_t width, bool descending) {
  TileOperands o = OpsHarness::operands(values, {source});
  o.destination[1] = indices;
  o.sort_width = width;
  o.flag0 = descending;
  return o;
}

TileOperands merge_operands(TileIndex destination, TileIndex left, TileIndex right, bool descending) {
  TileOperands o = OpsHarness::operands(destination, {left, right});
  o.flag0 = descending;
  return o;
}

constexpr std::uint64_t kFp32One = 0x3f800000, kFp32Two = 0x40000000, kFp32Three = 0x40400000,
                        kFp32Four = 0x40800000, kFp32SignallingNaN = 0x7f800001;

// ------------------------------------------------------------------ sorting

// tile-bound-tmrgsort-snan-001.asl: an FP32 sNaN (left) stays mergeable,
// follows the numeric right element, and records NV (NumericStatusFlags = 1).
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TMRGSORT_SNAN_001) {
  OpsHarness h;
  h.configure_tile(30, 256, 1, 1, 1, DataType::FP32);
  h.configure_tile(31, 256, 1, 1, 1, DataType::FP32);
  h.configure_tile(32, 256, 2, 1, 2, DataType::FP32);
  h.set(30, 0, 0, kFp32SignallingNaN);
  h.set(31, 0, 0, kFp32One);
  const TileOperands o = merge_operands(32, 30, 31, false);
  ASSERT_TRUE(h.legal(TileOp::TMRGSORT, o));
  ASSERT_TRUE(h.run(TileOp::TMRGSORT, o));
  EXPECT_EQ(h.word(32, 0, 0), kFp32One);
  EXPECT_EQ(h.word(32, 0, 1), kFp32SignallingNaN);
  EXPECT_EQ(h.last_flags, num::kNV);
}

// tile-bound-tsort-snan-001.asl: the sNaN at column 0 sorts after 1.0 and
// keeps its group-local source index 0.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TSORT_SNAN_001) {
  OpsHarness h;
  h.configure_tile(20, 256, 2, 1, 2, DataType::FP32);
  h.configure_tile(21, 256, 2, 1, 2, DataType::U32);
  h.configure_tile(22, 256, 2, 1, 2, DataType::FP32);
  h.set(22, 0, 0, kFp32SignallingNaN);
  h.set(22, 0, 1, kFp32One);
  const TileOperands o = sort_operands(20, 21, 22, 2, false);
  ASSERT_TRUE(h.legal(TileOp::TSORT, o));
  ASSERT_TRUE(h.run(TileOp::TSORT, o));
  EXPECT_EQ(h.word(20, 0, 0), kFp32One);
  EXPECT_EQ(h.word(20, 0, 1), kFp32SignallingNaN);
  EXPECT_EQ(h.word(21, 0, 0), 1U);
  EXPECT_EQ(h.word(21, 0, 1), 0U);
  EXPECT_EQ(h.last_flags, num::kNV);
}

// tile-exec-tmrgsort-kernel-001.asl: [1, 3] merged with [2, 4].
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TMRGSORT_KERNEL_001) {
  OpsHarness h;
  h.configure_tile(50, 128, 2, 1, 2, DataType::FP32);
  h.configure_tile(51, 128, 2, 1, 2, DataType::FP32);
  h.configure_tile(52, 128, 4, 1, 4, DataType::FP32);
  h.set(50, 0, 0, kFp32One);
  h.set(50, 0, 1, kFp32Three);
  h.set(51, 0, 0, kFp32Two);
  h.set(51, 0, 1, kFp32Four);
  ASSERT_TRUE(h.run(TileOp::TMRGSORT, merge_operands(52, 50, 51, false)));
  EXPECT_EQ(h.word(52, 0, 0), kFp32One);
  EXPECT_EQ(h.word(52, 0, 1), kFp32Two);
  EXPECT_EQ(h.word(52, 0, 2), kFp32Three);
  EXPECT_EQ(h.word(52, 0, 3), kFp32Four);
}

// tile-exec-tsort-kernel-001.asl: width 3 sorts [3, 1, 2] and leaves the
// trailing one-element group [0] in place with index 0.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TSORT_KERNEL_001) {
  OpsHarness h;
  h.configure_tile(40, 128, 4, 1, 4, DataType::FP32);
  h.configure_tile(41, 128, 4, 1, 4, DataType::FP32);
  h.configure_tile(42, 128, 4, 1, 4, DataType::U32);
  h.fill(40, {kFp32Three, kFp32One, kFp32Two, 0});
  ASSERT_TRUE(h.run(TileOp::TSORT, sort_operands(41, 42, 40, 3, false)));
  EXPECT_EQ(h.word(41, 0, 0), kFp32One);
  EXPECT_EQ(h.word(41, 0, 2), kFp32Three);
  EXPECT_EQ(h.word(41, 0, 3), 0U);
  EXPECT_EQ(h.word(42, 0, 0), 1U);
  EXPECT_EQ(h.word(42, 0, 1), 2U);
  EXPECT_EQ(h.word(42, 0, 2), 0U);
}

// ------------------------------------------------------------------ complex

// tile-exec-complex-operations-001.asl (TestTileComplex).  Not expressible:
// the ExecuteTilePartialArg block (tiles 45..48, set up with TCI) - the
// TPARTARGMAX/TPARTARGMIN operations it backs are deleted from the ISA
// (catalog deleted_tile_names), so no kernel or encoding reaches it.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TESTTILECOMPLEX_EXECUTION_001) {
  OpsHarness h;
  // ExecuteTilePartial(TilePartial_ADD, 31, 29, 30) = TPARTADD.
  h.configure_tile(29, 256, 4, 1, 3, DataType::U32);
  h.configure_tile(30, 256, 4, 1, 2, DataType::U32);
  h.configure_tile(31, 256, 4, 1, 3, DataType::U32);
  h.fill(29, {2, 4, 6});
  h.fill(30, {1, 3});
  h.loop(DataType::U32, 3, 1, 4);
  ASSERT_TRUE(h.run(TileOp::TPARTADD, OpsHarness::operands(31, {29, 30})));
  EXPECT_EQ(h.word(31, 0, 0), 3U);
  EXPECT_EQ(h.word(31, 0, 1), 7U);
  EXPECT_EQ(h.word(31, 0, 2), 6U);

  // TCI(47, 10, FALSE) and TCI(48, 20, FALSE): the PartialArg inputs.  The
  // point asserts nothing on them directly; the PartialArg results it
  // asserts (46[0,0] = 10, 46[0,2] = 12) are the TCI sequence values.
  h.configure_tile(47, 256, 4, 1, 3, DataType::U32);
  h.configure_tile(48, 256, 4, 1, 2, DataType::U32);
  ASSERT_TRUE(h.run(TileOp::TCI, OpsHarness::operands(47, {}, 10)));
  ASSERT_TRUE(h.run(TileOp::TCI, OpsHarness::operands(48, {}, 20)));
  EXPECT_EQ(h.word(47, 0, 0), 10U);
  EXPECT_EQ(h.word(47, 0, 2), 12U);

  // TSORT(33, 38, 32, 32, FALSE): raw FP32 carriers 4, 1, 3, 2 (subnormals).
  h.configure_tile(32, 256, 4, 1, 4, DataType::FP32);
  h.configure_tile(33, 256, 4, 1, 4, DataType::FP32);
  h.configure_tile(38, 256, 4, 1, 4, DataType::U32);
  h.fill(32, {4, 1, 3, 2});
  ASSERT_TRUE(h.run(TileOp::TSORT, sort_operands(33, 38, 32, 32, false)));
  EXPECT_EQ(h.word(33, 0, 0), 1U);
  EXPECT_EQ(h.word(33, 0, 3), 4U);
  EXPECT_EQ(h.word(38, 0, 0), 1U);
  EXPECT_EQ(h.word(38, 0, 3), 0U);

  // TMRGSORT(36, 34, 35, FALSE).
  h.configure_tile(34, 256, 2, 1, 2, DataType::FP32);
  h.configure_tile(35, 256, 2, 1, 2, DataType::FP32);
  h.configure_tile(36, 256, 4, 1, 4, DataType::FP32);
  h.fill(34, {1, 4});
  h.fill(35, {2, 3});
  ASSERT_TRUE(h.run(TileOp::TMRGSORT, merge_operands(36, 34, 35, false)));
  EXPECT_EQ(h.word(36, 0, 0), 1U);
  EXPECT_EQ(h.word(36, 0, 3), 4U);

  // THISTOGRAM(37, 50, 49, 0): cumulative counts of byte 0 of [0, 1, 1, 3].
  h.configure_tile(37, 2048, 256, 1, 256, DataType::U32);
  h.configure_tile(49, 256, 1, 3, 1, DataType::U8);
  h.configure_tile(50, 256, 4, 1, 4, DataType::U32);
  h.fill(49, {0});
  h.fill(50, {0, 1, 1, 3});
  TileOperands histogram = OpsHarness::operands(37, {50, 49});
  histogram.selected_byte = 0;
  ASSERT_TRUE(h.run(TileOp::THISTOGRAM, histogram));
  EXPECT_EQ(h.word(37, 0, 0), 1U);
  EXPECT_EQ(h.word(37, 0, 1), 3U);
  EXPECT_EQ(h.word(37, 0, 2), 3U);
  EXPECT_EQ(h.word(37, 0, 3), 4U);
}

// --------------------------------------------------------------- generation

// tile-exec-generation-operations-001.asl (TestTileGeneration).
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TESTTILEGENERATION_EXECUTION_001) {
  OpsHarness h;
  h.configure_tile(14, 256, 4, 1, 4, DataType::U32);
  ASSERT_TRUE(h.run(TileOp::TCI, OpsHarness::operands(14, {}, 5)));  // ascending from 5
  EXPECT_EQ(h.word(14, 0, 0), 5U);
  EXPECT_EQ(h.word(14, 0, 3), 8U);

  h.configure_tile(14, 256, 2, 2, 2, DataType::U32);  // ConfigureTwoByTwo(14)
  TileOperands lower = OpsHarness::operands(14, {});
  lower.flag0 = false;
  lower.diagonal = 0;
  ASSERT_TRUE(h.run(TileOp::TTRI, lower));
  EXPECT_EQ(h.word(14, 0, 0), 1U);
  EXPECT_EQ(h.word(14, 0, 1), 0U);
  EXPECT_EQ(h.word(14, 1, 1), 1U);

  h.configure_tile(15, 512, 4, 3, 3, DataType::U32);
  ASSERT_TRUE(h.run(TileOp::TFILLPAD, OpsHarness::operands(15, {14}, 9)));
  EXPECT_EQ(h.word(15, 0, 0), 1U);
  EXPECT_EQ(h.word(15, 0, 1), 0U);
  EXPECT_EQ(h.word(15, 2, 2), 9U);
}

// ------------------------------------------------------------ rearrangement

// tile-exec-rearrangement-operations-001.asl (TestTileRearrangement).
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TESTTILEREARRANGEMENT_EXECUTION_001) {
  OpsHarness h;
  h.configure_tile(16, 256, 2, 2, 2, DataType::U16);
  h.fill(16, {10, 20, 30, 40});

  h.configure_tile(17, 256, 2, 1, 2, DataType::U16);
  TileOperands extract = OpsHarness::operands(17, {16});
  extract.natural0 = 1;  // row offset
  extract.natural1 = 0;  // column offset
  ASSERT_TRUE(h.run(TileOp::TEXTRACT, extract));
  EXPECT_EQ(h.word(17, 0, 0), 30U);
  EXPECT_EQ(h.word(17, 0, 1), 40U);

  h.configure_tile(18, 256, 2, 2, 2, DataType::U16);
  ASSERT_TRUE(h.run(TileOp::TTRANS, OpsHarness::operands(18, {16})));
  EXPECT_EQ(h.word(18, 0, 1), 30U);
  EXPECT_EQ(h.word(18, 1, 0), 20U);

  h.configure_tile(19, 256, 2, 1, 2, DataType::U32);
  h.fill(19, {1, 0});
  h.configure_tile(20, 256, 2, 1, 2, DataType::U16);
  ASSERT_TRUE(h.run(TileOp::TGATHER, OpsHarness::operands(20, {16, 19})));
  EXPECT_EQ(h.word(20, 0, 0), 30U);
  EXPECT_EQ(h.word(20, 0, 1), 20U);
}

// ---------------------------------------------------------------- reduction

// tile-exec-reduction-operations-001.asl (TestTileReduction):
// ExecuteTileReduction(SUM, Row) = TROWSUM, (ARGMAX, Column) = TCOLARGMAX.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TESTTILEREDUCTION_EXECUTION_001) {
  OpsHarness h;
  h.configure_tile(8, 256, 2, 2, 2, DataType::U32);
  h.configure_tile(9, 256, 1, 2, 1, DataType::U32);
  h.configure_tile(10, 128, 2, 1, 2, DataType::U32);
  h.fill(8, {1, 2, 4, 3});
  ASSERT_TRUE(h.run(TileOp::TROWSUM, OpsHarness::operands(9, {8})));
  EXPECT_EQ(h.word(9, 0, 0), 3U);
  EXPECT_EQ(h.word(9, 1, 0), 7U);
  ASSERT_TRUE(h.run(TileOp::TCOLARGMAX, OpsHarness::operands(10, {8})));
  EXPECT_EQ(h.word(10, 0, 0), 1U);
  EXPECT_EQ(h.word(10, 0, 1), 1U);
}

// ------------------------------------------------------------ stage 4 carriers

// tile-exec-stage4-carrier-001.asl.  Not expressible: the eleven
// TileCarrierOnlyDataTypeSupported assertions (a model-internal predicate of
// asl/tile/model/legality/dtype-layout.asl with no kernel or encoding of its
// own); their effect on TRELU is the last assertion below.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_STAGE4_CARRIER_001) {
  constexpr std::uint64_t kInvalidLeft = 0x3f800001, kInvalidRight = 0x00ff00f0;
  OpsHarness h;
  for (TileIndex i = 0; i < 3; ++i) h.configure_tile(i, 128, 1, 1, 1, DataType::U32);
  h.set(0, 0, 0, kInvalidLeft);
  h.set(1, 0, 0, kInvalidRight);
  const TileOperands tand = OpsHarness::operands(2, {0, 1});
  ASSERT_TRUE(h.legal(TileOp::TAND, tand));
  ASSERT_TRUE(h.run(TileOp::TAND, tand));
  EXPECT_EQ(h.word(2, 0, 0), 0x00800000U);

  // ExecuteTileScalar(XOR, 3, 0, 0xffffffff) = TXORS.
  h.configure_tile(3, 128, 1, 1, 1, DataType::U32);
  const TileOperands txors = OpsHarness::operands(3, {0}, 0xffffffff);
  ASSERT_TRUE(h.legal(TileOp::TXORS, txors));
  ASSERT_TRUE(h.run(TileOp::TXORS, txors));
  EXPECT_EQ(h.word(3, 0, 0), 0xc07ffffeU);

  // ExecuteTileSelectScalar(6, 4, 5, 0x12345678) = TSELS: the FP32 carrier
  // 0x3f800001 is copied exactly.
  h.configure_predicate(4, 128, 32, 1, 1, 1);
  h.configure_tile(5, 128, 1, 1, 1, DataType::FP32);
  h.configure_tile(6, 128, 1, 1, 1, DataType::FP32);
  h.set_predicate_bit(4, 0, 0, true);
  h.set(5, 0, 0, kInvalidLeft);
  const TileOperands tsels = OpsHarness::operands(6, {4, 5}, 0x12345678);
  ASSERT_TRUE(h.legal(TileOp::TSELS, tsels));
  ASSERT_TRUE(h.run(TileOp::TSELS, tsels));
  EXPECT_EQ(h.word(6, 0, 0), kInvalidLeft);

  // TF32 TRELU of an internally invalid encoding is rejected by preflight;
  // the destination stays undefined.
  h.configure_tile(7, 128, 1, 1, 1, DataType::TF32);
  h.configure_tile(8, 128, 1, 1, 1, DataType::TF32);
  h.set(8, 0, 0, kInvalidLeft);
  EXPECT_FALSE(h.legal(TileOp::TRELU, OpsHarness::operands(7, {8})));
  EXPECT_FALSE(h.tiles.tile(7).contents_defined());
}

// tile-exec-stage4-copy-001.asl: ExecuteTileExpand(COPY, Row, 1, 0, 0) =
// TROWEXPAND keeps invalid TF32 carriers; ExecuteTileFillScalar = TEXPANDS
// keeps the low U8 byte of 0x1ff.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_STAGE4_COPY_001) {
  OpsHarness h;
  h.configure_tile(0, 128, 1, 2, 1, DataType::TF32);
  h.configure_tile(1, 128, 2, 2, 2, DataType::TF32);
  h.set(0, 0, 0, 0x3f800001);
  h.set(0, 1, 0, 0x3f800002);
  EXPECT_FALSE(num::encoding_valid(DataType::TF32, 0x3f800001));  // TileNumericEncodingValid
  h.loop(DataType::TF32, 2, 2, 2);
  const TileOperands copy = OpsHarness::operands(1, {0});
  ASSERT_TRUE(h.legal(TileOp::TROWEXPAND, copy));
  ASSERT_TRUE(h.run(TileOp::TROWEXPAND, copy));
  EXPECT_EQ(h.tiles.tile(1).data_type(), DataType::TF32);
  EXPECT_EQ(h.word(1, 0, 0), 0x3f800001U);
  EXPECT_EQ(h.word(1, 1, 0), 0x3f800002U);
  EXPECT_EQ(h.word(1, 0, 1), 0x3f800001U);
  EXPECT_EQ(h.word(1, 1, 1), 0x3f800002U);

  h.configure_tile(2, 128, 1, 1, 1, DataType::U8);
  EXPECT_TRUE(h.legal(TileOp::TEXPANDS, OpsHarness::operands(2, {}, 0xff)));
  ASSERT_TRUE(h.run(TileOp::TEXPANDS, OpsHarness::operands(2, {}, 0x1ff)));
  EXPECT_EQ(h.tiles.tile(2).data_type(), DataType::U8);
  EXPECT_EQ(h.word(2, 0, 0), 0xffU);
}


// --------------------------------------------------------------------- CUBE
//
// The CUBE points drive ExecuteTileInstruction(TileDecode_CUBE, function,
// operands) or the direct TMATMUL/TGEMV handlers after
// InstallBundleOperationDescriptor (a TileMatrix descriptor with selector 0
// and the BSTART data type).  Counterpart: the CUBE start word's Function
// decodes through isa::tile_op_of_start (DecodeTileOperation), then the
// op's TileKernel runs operands_legal (a false result is the
// TileExecution_Rejected / Fault_TileLegality outcome) and execute.

class Cube {
 public:
  // InstallBundleOperationDescriptor(valid, TileMatrix, selector 0, data_type).
  explicit Cube(unsigned data_type_code) {
    arch::BundleOperationDescriptor& d = bundle.operation;
    d.valid = true;
    d.operation_class = arch::BundleOperationClass::TileMatrix;
    d.selector_valid = true;
    d.selector = 0;
    d.data_type_valid = true;
    d.data_type = static_cast<std::uint8_t>(data_type_code);
  }
  // ConfigureCubeTile(index, capacity, valid_rows, valid_columns, type, layout, Matrix).
  bool cube(TileIndex i, std::uint32_t capacity, std::uint32_t rows, std::uint32_t columns, DataType t,
            TileLayout layout) {
    return file.configure_cube(i, tile_request(capacity, 0, rows, columns, t, 0b0001, layout, TileLocation::Matrix)) ==
           FaultCode::Fault_None;
  }
  // ConfigureTile(index, capacity, rows, columns, valid_rows, valid_columns, type, RowMajor, location).
  void plain(TileIndex i, std::uint32_t capacity, std::uint32_t columns, std::uint32_t valid_rows,
             std::uint32_t valid_columns, DataType t, TileLocation location) {
    ConfigureRequest r;
    r.capacity_bytes = capacity;
    r.columns = columns;
    r.valid_rows = valid_rows;
    r.valid_columns = valid_columns;
    r.data_type = t;
    r.location = location;
    r.mask = 0b0001;
    ASSERT_EQ(file.configure(i, r), FaultCode::Fault_None);
  }
  void write(TileIndex i, std::uint32_t row, std::uint32_t column, std::uint64_t v) {
    file.tile(i).write_element(row, column, v);
  }
  std::uint64_t read(TileIndex i, std::uint32_t row, std::uint32_t column) const {
    const Tile& t = file.tile(i);
    EXPECT_TRUE(t.element_defined_at(row, column)) << unsigned{i} << " (" << row << ", " << column << ")";
    return t.read_word(t.linear_index(row, column));
  }
  bool legal(TileOp op, const TileOperands& o) const {
    const TileKernel* k = tile_kernel_table().get(op);
    EXPECT_NE(k, nullptr);
    return k != nullptr && k->operands_legal(file, o, bundle);
  }
  // The semantic handler alone (the ASL's direct TMATMUL/TGEMV functions).
  bool execute(TileOp op, const TileOperands& o) {
    const TileKernel* k = tile_kernel_table().get(op);
    if (k == nullptr) return false;
    std::array<std::byte, 16> no_memory{};
    FlatTileMemory memory(no_memory);
    TileExecutionContext context{file, memory, bundle, o};
    context.profile = NumericProfile::Reference;
    return k->execute(context).ok();
  }
  // ExecuteTileInstruction: decode, operand legality, then the handler.
  // Returns true for TileExecution_Executed.
  bool instruction(unsigned function, const TileOperands& o) {
    const std::optional<TileOp> op = isa::tile_op_of_start(0x00031181 | (std::uint64_t{function} << 20));
    if (!op) return false;
    return legal(*op, o) && execute(*op, o);
  }

  TileFile file;
  arch::BlockState bundle;
};

constexpr unsigned kU16Code = 26, kE4m3Code = 7, kFp16Code = 4;  // '11010', '00111', 4

TileOperands cube_operands(TileIndex d, std::initializer_list<TileIndex> sources) {
  return OpsHarness::operands(d, sources);
}

// ConfigureCubeUnitTile: a 1x1 tile of capacity 512 holding `value`.
void unit_tile(Cube& h, TileIndex i, DataType t, TileLayout layout, TileLocation location, std::uint64_t value) {
  if (layout == TileLayout::CubeM16 || layout == TileLayout::CubeN8) {
    ASSERT_TRUE(h.cube(i, 512, 1, 1, t, layout));
  } else {
    h.plain(i, 512, 1, 1, 1, t, location);
  }
  h.write(i, 0, 0, value);
}

// ResetCubeOrdinaryOperands: U16 (BSTART '11010'); D=0, C=5 (U32 M16),
// A=2 (M16), B=3 (N8), Bias=7 (U32 RowMajor Any).
void ordinary_operands(Cube& h) {
  const DataType acc = matrix_accumulator_type(DataType::U16);
  unit_tile(h, 0, acc, TileLayout::CubeM16, TileLocation::Matrix, 0);
  unit_tile(h, 1, acc, TileLayout::CubeM16, TileLocation::Matrix, 5);
  unit_tile(h, 2, DataType::U16, TileLayout::CubeM16, TileLocation::Matrix, 2);
  unit_tile(h, 3, DataType::U16, TileLayout::CubeN8, TileLocation::Matrix, 3);
  unit_tile(h, 4, acc, TileLayout::RowMajor, TileLocation::Any, 7);
}

// ResetCubeMXOperands: E4M3 (BSTART '00111'); D=0, C=5 (FP32 M16), A=2,
// ScaleA=1 (E8M0), B=3, ScaleB=1, Bias=7 (FP32 RowMajor Any).
void mx_operands(Cube& h) {
  unit_tile(h, 0, DataType::FP32, TileLayout::CubeM16, TileLocation::Matrix, 0);
  unit_tile(h, 1, DataType::FP32, TileLayout::CubeM16, TileLocation::Matrix, 5);
  unit_tile(h, 2, DataType::E4M3, TileLayout::CubeM16, TileLocation::Matrix, 2);
  unit_tile(h, 3, DataType::E8M0, TileLayout::RowMajor, TileLocation::Any, 1);
  unit_tile(h, 4, DataType::E4M3, TileLayout::CubeN8, TileLocation::Matrix, 3);
  unit_tile(h, 5, DataType::E8M0, TileLayout::RowMajor, TileLocation::Any, 1);
  unit_tile(h, 6, DataType::FP32, TileLayout::RowMajor, TileLocation::Any, 7);
}

constexpr bool cube_uses_mx(unsigned f) { return f == 4 || f == 5 || f == 6 || f == 20 || f == 21 || f == 22; }
constexpr bool cube_accumulates(unsigned f) { return f == 2 || f == 6 || f == 18 || f == 22; }
constexpr bool cube_uses_bias(unsigned f) { return f == 1 || f == 5 || f == 17 || f == 21; }

// CubeTotalityOperands(function).
TileOperands totality_operands(unsigned f) {
  if (cube_uses_mx(f)) {
    if (cube_accumulates(f)) return cube_operands(0, {1, 2, 3, 4, 5});
    if (cube_uses_bias(f)) return cube_operands(0, {2, 3, 4, 5, 6});
    return cube_operands(0, {2, 3, 4, 5});
  }
  if (cube_accumulates(f)) return cube_operands(0, {1, 2, 3});
  if (cube_uses_bias(f)) return cube_operands(0, {2, 3, 4});
  return cube_operands(0, {2, 3});
}

// tile-bound-totality-001.asl (TestCubeDecodedSelectorMatrix,
// TestCubeRawCarrierTypeAndPlacementMatrix).
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_CUBE_SELECTORS_BOUND_001) {
  for (unsigned f = 0; f <= 22; ++f) {
    const bool accepted = f <= 2 || (f >= 4 && f <= 6) || (f >= 16 && f <= 18) || (f >= 20 && f <= 22);
    EXPECT_EQ(isa::tile_op_of_start(0x00031181 | (std::uint64_t{f} << 20)).has_value(), accepted) << f;
    if (!accepted) continue;
    Cube h(cube_uses_mx(f) ? kE4m3Code : kU16Code);
    if (cube_uses_mx(f)) mx_operands(h);
    else ordinary_operands(h);
    ASSERT_TRUE(h.instruction(f, totality_operands(f))) << "function " << f;
    // CubeUnitExpected: 2*3 + bias 7, 2*3 + C 5, or 2*3 (raw reference carriers).
    const std::uint64_t expected = cube_uses_bias(f) ? 13 : cube_accumulates(f) ? 11 : 6;
    EXPECT_EQ(h.read(0, 0, 0), expected) << "function " << f;
  }
  // Function 8 (removed): DecodeTileOperation fails (Fault_IllegalInstruction).
  EXPECT_FALSE(isa::tile_op_of_start(0x00031181 | (8ULL << 20)).has_value());

  // The 25 raw DataType encodings (TileDataTypeFromEncoding).
  const DataType types[25] = {DataType::FP64, DataType::FP32, DataType::TF32, DataType::HF32, DataType::FP16,
                              DataType::BF16, DataType::HiF8, DataType::E4M3, DataType::E5M2, DataType::E3M2,
                              DataType::E2M3, DataType::E2M1X2, DataType::E1M2X2, DataType::E8M0, DataType::HiF4X2,
                              DataType::S64, DataType::S32, DataType::S16, DataType::S8, DataType::S4X2,
                              DataType::U64, DataType::U32, DataType::U16, DataType::U8, DataType::U4X2};
  for (unsigned i = 0; i < 25; ++i) {
    const unsigned encoding = i <= 14 ? i : i <= 19 ? i + 1 : i + 4;
    const std::optional<DataType> decoded = num::data_type_from_code(static_cast<std::uint8_t>(encoding));
    ASSERT_TRUE(decoded.has_value()) << encoding;
    EXPECT_EQ(*decoded, types[i]) << encoding;
  }

  // An ImplementationDefined A layout is rejected; D keeps 0.
  Cube h(kU16Code);
  ordinary_operands(h);
  TileDescriptor a = h.file.tile(2).descriptor();
  a.layout = TileLayout::ImplementationDefined;
  h.file.tile(2).configure(a);
  h.file.tile(2).mark_valid_region_defined();  // only the layout differs
  EXPECT_FALSE(h.instruction(0, totality_operands(0)));
  EXPECT_EQ(h.read(0, 0, 0), 0U);
}

// tile-bound-preflight-002.asl.  Not expressible:
// TestA2A3CubeMxDirectRejectionMatrix's NumericApplicabilityRules_A2A3Mx-
// Rejection branch (Fault_IllegalInstruction at the PC for every MX
// function): this model executes only the NumericApplicabilityRules_None
// set; the part that holds under None (each MX function decodes, and the
// operation is not rejected: it executes) is checked below.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_CUBE_PREFLIGHT_BOUND_002) {
  {  // TestCubeAliasMatrix: A as both sources of TMATMUL.
    Cube h(kU16Code);
    ordinary_operands(h);
    EXPECT_FALSE(h.instruction(0, cube_operands(0, {2, 2})));
    EXPECT_EQ(h.read(0, 0, 0), 0U);
  }
  {  // TMATMUL_ACC with D = C: rejected, C keeps 5.
    Cube h(kU16Code);
    ordinary_operands(h);
    EXPECT_FALSE(h.instruction(2, cube_operands(1, {1, 2, 3})));
    EXPECT_EQ(h.read(1, 0, 0), 5U);
  }
  {  // TestCubeCompositePreflight: C replaced by a 2x1 U32 RowMajor Matrix tile.
    Cube h(kU16Code);
    ordinary_operands(h);
    h.plain(1, 1024, 1, 2, 1, DataType::U32, TileLocation::Matrix);
    h.write(1, 0, 0, 5);
    h.write(1, 1, 0, 5);
    EXPECT_FALSE(h.instruction(2, totality_operands(2)));
    EXPECT_EQ(h.read(0, 0, 0), 0U);
  }
  {  // D retyped S32 for U16 inputs (the accumulator type is U32).
    Cube h(kU16Code);
    ordinary_operands(h);
    TileDescriptor d = h.file.tile(0).descriptor();
    d.data_type = DataType::S32;
    h.file.tile(0).configure(d);
    h.write(0, 0, 0, 0);
    EXPECT_FALSE(h.instruction(0, totality_operands(0)));
    EXPECT_EQ(h.read(0, 0, 0), 0U);
  }
  for (const unsigned f : {4U, 5U, 6U, 20U, 21U, 22U}) {  // under NumericApplicabilityRules_None
    ASSERT_TRUE(isa::tile_op_of_start(0x00031181 | (std::uint64_t{f} << 20)).has_value()) << f;
    Cube h(kE4m3Code);
    mx_operands(h);
    EXPECT_TRUE(h.instruction(f, totality_operands(f))) << f;
  }
}

// tile-exec-matmul-001.asl (TestTileMatmul), U16 operands, U32 D.
// Not expressible: TileMatrixCubeInfosMatchDimensions and
// TileMatrixInfoShapeLegal on a hand-edited TileInfo with valid_rows = 0
// (model-internal predicates; a zero-row tile cannot be configured).
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TESTTILEMATMUL_EXECUTION_001) {
  Cube h(kU16Code);
  ASSERT_TRUE(h.cube(5, 128, 2, 2, DataType::U16, TileLayout::CubeM16));
  ASSERT_TRUE(h.cube(6, 128, 2, 2, DataType::U16, TileLayout::CubeN8));
  ASSERT_TRUE(h.cube(7, 128, 2, 2, DataType::U32, TileLayout::CubeM16));
  h.write(5, 0, 0, 1);
  h.write(5, 0, 1, 2);
  h.write(5, 1, 0, 3);
  h.write(5, 1, 1, 4);
  h.write(6, 0, 0, 5);
  h.write(6, 0, 1, 6);
  h.write(6, 1, 0, 7);
  h.write(6, 1, 1, 8);
  for (std::uint32_t e = 0; e < 4; ++e) h.write(7, e / 2, e % 2, 0);

  const TileOperands matmul = cube_operands(7, {5, 6});
  ASSERT_TRUE(h.legal(TileOp::TMATMUL, matmul));
  ASSERT_TRUE(h.execute(TileOp::TMATMUL, matmul));
  EXPECT_EQ(h.read(7, 0, 0), 19U);
  EXPECT_EQ(h.read(7, 0, 1), 22U);
  EXPECT_EQ(h.read(7, 1, 0), 43U);
  EXPECT_EQ(h.read(7, 1, 1), 50U);

  h.plain(26, 256, 2, 1, 2, DataType::U32, TileLocation::Any);
  h.write(26, 0, 0, 1);
  h.write(26, 0, 1, 2);
  const TileOperands bias = cube_operands(7, {5, 6, 26});
  ASSERT_TRUE(h.legal(TileOp::TMATMUL_BIAS, bias));
  ASSERT_TRUE(h.execute(TileOp::TMATMUL_BIAS, bias));
  EXPECT_EQ(h.read(7, 0, 0), 20U);
  EXPECT_EQ(h.read(7, 1, 1), 52U);
  // The ASL's direct TMATMUL_ACC(7, 7, 5, 6) runs the semantic handler with
  // D = C (no legality check on that path): 20 + 19.
  ASSERT_TRUE(h.execute(TileOp::TMATMUL_ACC, cube_operands(7, {7, 5, 6})));
  EXPECT_EQ(h.read(7, 0, 0), 39U);

  // Arbitrary positive local CUBE dimensions configure.
  EXPECT_TRUE(h.cube(30, 128, 3, 3, DataType::U16, TileLayout::CubeM16));
  EXPECT_TRUE(h.cube(31, 128, 3, 3, DataType::U16, TileLayout::CubeN8));

  ASSERT_TRUE(h.cube(27, 128, 2, 1, DataType::U16, TileLayout::CubeN8));
  ASSERT_TRUE(h.cube(29, 128, 1, 2, DataType::U16, TileLayout::CubeM16));
  ASSERT_TRUE(h.cube(28, 128, 1, 1, DataType::U32, TileLayout::CubeM16));
  h.write(27, 0, 0, 2);
  h.write(27, 1, 0, 3);
  h.write(29, 0, 0, 1);
  h.write(29, 0, 1, 2);
  const TileOperands gemv = cube_operands(28, {29, 27});
  ASSERT_TRUE(h.legal(TileOp::TGEMV, gemv));
  ASSERT_TRUE(h.execute(TileOp::TGEMV, gemv));
  EXPECT_EQ(h.read(28, 0, 0), 8U);
}

// tile-exec-tmatmul-cube-storage-003.asl: operands written at their CUBE
// storage positions (TileStorageIndex = cube_payload_index); D is read back
// from its M16 storage positions.  FP16 data type, raw reference carriers.
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_TMATMUL_CUBE_STORAGE_003) {
  Cube h(kFp16Code);
  ASSERT_TRUE(h.cube(1, 128, 2, 3, DataType::FP16, TileLayout::CubeM16));
  ASSERT_TRUE(h.cube(2, 128, 3, 2, DataType::FP16, TileLayout::CubeN8));
  ASSERT_TRUE(h.cube(3, 128, 2, 2, DataType::FP32, TileLayout::CubeM16));
  const auto store = [&h](TileIndex i, std::uint32_t r, std::uint32_t c, std::uint64_t v) {
    Tile& t = h.file.tile(i);
    t.store_raw(cube_payload_index(t.descriptor(), r, c), v);
  };
  store(1, 0, 0, 1);
  store(1, 0, 1, 2);
  store(1, 0, 2, 3);
  store(1, 1, 0, 4);
  store(1, 1, 1, 5);
  store(1, 1, 2, 6);
  store(2, 0, 0, 1);
  store(2, 0, 1, 2);
  store(2, 1, 0, 3);
  store(2, 1, 1, 4);
  store(2, 2, 0, 5);
  store(2, 2, 1, 6);
  h.file.tile(1).mark_valid_region_defined();
  h.file.tile(2).mark_valid_region_defined();

  const TileOperands o = cube_operands(3, {1, 2});
  ASSERT_TRUE(h.legal(TileOp::TMATMUL, o));
  ASSERT_TRUE(h.execute(TileOp::TMATMUL, o));
  const Tile& d = h.file.tile(3);
  EXPECT_EQ(d.descriptor().layout, TileLayout::CubeM16);
  EXPECT_EQ(d.descriptor().location, TileLocation::Matrix);
  EXPECT_EQ(d.read_raw(cube_payload_index(d.descriptor(), 0, 0)), 22U);
  EXPECT_EQ(d.read_raw(cube_payload_index(d.descriptor(), 0, 1)), 28U);
  EXPECT_EQ(d.read_raw(cube_payload_index(d.descriptor(), 1, 0)), 49U);
  EXPECT_EQ(d.read_raw(cube_payload_index(d.descriptor(), 1, 1)), 64U);
  EXPECT_TRUE(d.contents_defined());
  EXPECT_EQ(d.defined_valid_elements(), 4U);
}


// ---------------------------------------------------- matrix post-processing
//
// The postprocess points set _BundleTileBindings by hand and call
// CommitMatrixResult on a prepared accumulator tile, or ExecuteBundleTile-
// Operation after AddBundleTileBinding.  Counterpart: a complete encoded
// CUBE bundle (BSTART TMATMUL, B.FPATR, B.DIM, B.IOT bindings in the same
// order, BSTOP) whose 1 x 1 x N product is the point's accumulator row:
// A = [1] (U16, so the accumulator is U32 as in the points), B = the row.

using pto::test::BundleTestHost;

// B.FPATR with PreQuantMode 0, ReluMode 0, GroupNCode 1 (GroupN 8) and the
// RowMaxEn [18], GroupMaxEn [17], RowMaxInit [16] bits (MaxAbsEn [15] clear):
// SetBundleFixedPointAttributeState(0, 0, '0001', row_max, group_max, init, FALSE).
std::uint64_t fpatr_aux(bool row_max, bool group_max, bool init) {
  return 0x2023 | (1U << 19) | (unsigned{row_max} << 18) | (unsigned{group_max} << 17) | (unsigned{init} << 16);
}
std::uint64_t cube_start(unsigned data_type) { return pto::test::tile_start(0x00031181, 0, data_type); }
std::uint64_t iot_math(unsigned size) {  // A (M#1 = 32), B (M#2 = 33) -> D
  return pto::test::encode_form(pto::test::kBIotSrcSrcDst,
                                {{"SrcTile0", 32}, {"SrcTile1", 33}, {"SizeCode", size}, {"PEMode", 7}, {"L", 0}});
}
std::uint64_t iot_aux(unsigned size, bool last, std::optional<unsigned> source = std::nullopt) {
  if (source)
    return pto::test::encode_form(pto::test::kBIotSrcDst,
                                  {{"SrcTile0", *source}, {"SizeCode", size}, {"PEMode", 7}, {"L", last}});
  return pto::test::encode_form(pto::test::kBIotDst, {{"SizeCode", size}, {"PEMode", 7}, {"L", last}});
}

void cube_operand(BundleTestHost& h, TileIndex i, std::uint32_t capacity, std::uint32_t rows, std::uint32_t columns,
                  DataType t, TileLayout layout) {
  ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.valid_rows = rows;
  r.valid_columns = columns;
  r.data_type = t;
  r.layout = layout;
  r.location = TileLocation::Matrix;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure_cube(i, r), FaultCode::Fault_None);
}

// A = [1] and B = `row` (U16); the U32 product is `row`.
void accumulator_row(BundleTestHost& h, std::initializer_list<std::uint64_t> row) {
  block::tile_state(h.m).profile = NumericProfile::Reference;
  const auto n = static_cast<std::uint32_t>(row.size());
  cube_operand(h, 32, 1024, 1, 1, DataType::U16, TileLayout::CubeM16);
  cube_operand(h, 33, 1024, 1, n, DataType::U16, TileLayout::CubeN8);
  h.file.tile(32).write_element(0, 0, 1);
  std::uint32_t c = 0;
  for (const std::uint64_t v : row) h.file.tile(33).write_element(0, c++, v);
}

num::Flags core_flags(const BundleTestHost& h) {
  return static_cast<num::Flags>((h.m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F);
}

// tile-exec-postprocess-aux-001.asl: D = [1..9] (U32), RowMaxIn = 10,
// GroupN 8: D keeps the raw values, RowMaxOut = max(10, 9) = 10, GroupMaxOut
// = [max(1..8), max(9)] = [8, 9] (a full and a partial group).
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_MODEL_EXECUTION_POSTPROCESS_AUX_EXECUTION_001) {
  BundleTestHost h;
  accumulator_row(h, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ConfigureRequest r;  // RowMaxIn: 1 x 1 U32
  r.capacity_bytes = 128;
  r.columns = r.valid_columns = r.valid_rows = 1;
  r.data_type = DataType::U32;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(40, r), FaultCode::Fault_None);
  h.file.tile(40).write_element(0, 0, 10);
  const auto o = h.run({cube_start(pto::test::kU16), fpatr_aux(true, true, true), pto::test::bdim(0, 1),
                        pto::test::bdim(1, 9), pto::test::bdim(2, 1), iot_math(5), iot_aux(1, false, 40),
                        iot_aux(1, true), pto::test::kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const auto& d = o.trace.destinations;
  ASSERT_EQ(d.size(), 3U);
  EXPECT_EQ(h.file.tile(d[0]).data_type(), DataType::U32);
  EXPECT_EQ(pto::test::element_at(h, d[0], 0, 8), 9U);
  EXPECT_EQ(pto::test::element_at(h, d[1], 0, 0), 10U);
  EXPECT_EQ(pto::test::element_at(h, d[2], 0, 0), 8U);
  EXPECT_EQ(pto::test::element_at(h, d[2], 0, 1), 9U);
}

// tile-exec-postprocess-group-large-004.asl: D = [2, 5, 4], GroupMaxEn only
// with GroupN 8 > N = 3: one partial group, GroupMaxOut = [5].
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_POSTPROCESS_GROUP_LARGE_004) {
  BundleTestHost h;
  accumulator_row(h, {2, 5, 4});
  const auto o = h.run({cube_start(pto::test::kU16), fpatr_aux(false, true, false), pto::test::bdim(0, 1),
                        pto::test::bdim(1, 3), pto::test::bdim(2, 1), iot_math(5), iot_aux(1, true),
                        pto::test::kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const auto& d = o.trace.destinations;
  ASSERT_EQ(d.size(), 2U);
  EXPECT_EQ(pto::test::element_at(h, d[0], 0, 2), 4U);
  EXPECT_EQ(pto::test::element_at(h, d[1], 0, 0), 5U);
  EXPECT_EQ(h.file.tile(d[1]).descriptor().valid_columns, 1U);
}

// tile-atomic-postprocess-rollback-003.asl: FP16 1 x 1 x 512 with RowMaxEn
// and GroupMaxEn (GroupN 8), D SizeCode 5, RowMaxOut and GroupMaxOut
// SizeCode 1: the bundle faults Fault_TileAllocation before any allocation,
// payload write or status-flag update (NV recorded beforehand survives).
// Note: with the point's SizeCode 5 the CUBE_M16 FP32 1 x 512 D itself needs
// 256 cells of 128 bytes (TileCubeDescriptorShapeLegal fails first, in the
// ASL too), so the late GroupMaxOut failure the summary names is also
// checked with a D large enough (SizeCode 9): GroupMaxOut needs 64 FP32
// columns = 256 bytes > 128; SizeCode 2 for it completes (control).
TEST(OpsSpecHandlerModelExecution, PTO_AVS_TILE_POSTPROCESS_ROLLBACK_003) {
  const auto attempt = [](unsigned d_size, unsigned group_size, bool expect_fault) {
    BundleTestHost h;
    block::tile_state(h.m).profile = NumericProfile::Reference;
    cube_operand(h, 32, 128, 1, 1, DataType::FP16, TileLayout::CubeM16);
    cube_operand(h, 33, 16384, 1, 512, DataType::FP16, TileLayout::CubeN8);
    h.file.tile(32).write_element(0, 0, 0x3c00);
    for (std::uint32_t c = 0; c < 512; ++c) h.file.tile(33).write_element(0, c, 0x3c00);

    const std::uint64_t capacity_before = h.file.core_capacity_in_use();
    const Tile& a = h.file.tile(32);
    const Tile& b = h.file.tile(33);
    const std::uint64_t source0_before = a.read_word(a.linear_index(0, 0));
    const std::uint64_t source1_before = b.read_word(b.linear_index(0, 511));
    h.m.state.sysregs.core_state |= std::uint64_t{num::kNV} << arch::kCoreStateFlagsShift;  // RecordNumericStatusFlags(NV)
    const num::Flags flags_before = core_flags(h);

    const auto o = h.run({cube_start(kFp16Code), fpatr_aux(true, true, false), pto::test::bdim(0, 1),
                          pto::test::bdim(1, 512), pto::test::bdim(2, 1), iot_math(d_size), iot_aux(1, false),
                          iot_aux(group_size, true), pto::test::kBstop});
    if (!expect_fault) {
      EXPECT_TRUE(o.ok()) << d_size << "/" << group_size;
      return;
    }
    EXPECT_EQ(o.status, pto::test::BundleStatus::Fault) << d_size;
    EXPECT_EQ(o.fault, arch::FaultCode::Fault_TileAllocation) << d_size;
    EXPECT_EQ(h.file.core_capacity_in_use(), capacity_before) << d_size;
    EXPECT_EQ(a.read_word(a.linear_index(0, 0)), source0_before) << d_size;
    EXPECT_EQ(b.read_word(b.linear_index(0, 511)), source1_before) << d_size;
    EXPECT_EQ(core_flags(h), flags_before) << d_size;
    for (unsigned i = 0; i < 3; ++i)
      EXPECT_FALSE(h.state().tile_bindings[i].destination_allocated_by_bundle) << d_size << " binding " << i;
  };
  attempt(5, 1, true);   // the point's bindings
  attempt(9, 1, true);   // only GroupMaxOut is too small
  attempt(9, 2, false);  // control: every destination fits
}

}  // namespace
}  // namespace pto::tile::test
